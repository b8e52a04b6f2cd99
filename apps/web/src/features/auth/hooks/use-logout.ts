import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';
import { LOGIN_PATH } from '@/config/settings';
import { useSession } from '@/lib/session';
import { logout } from '@/lib/session-api';

/** Ends the session on the server (best effort), forgets it here, and goes to the login page. */
export function useLogout() {
  const navigate = useNavigate();
  const reset = useSession((s) => s.reset);
  const [pending, setPending] = useState(false);
  const run = useCallback(async () => {
    setPending(true);
    try {
      await logout();
    } catch {
      // the local session ends anyway
    } finally {
      setPending(false);
      reset();
      void navigate(LOGIN_PATH, { replace: true });
    }
  }, [navigate, reset]);
  return { logout: run, pending };
}
