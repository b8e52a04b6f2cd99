import { LOGIN_PATH } from '../../config/settings';
import { logout } from '../../lib/session-api';
import { useSession } from '../../lib/session';
import { useStableNavigate } from '../use-stable-navigate';

/** Logout from the avatar menu or the lock screen: the server ends the sessions, the console forgets the user. */
export function useSignOut(): () => Promise<void> {
  const navigate = useStableNavigate();
  return async () => {
    // the local session ends even when the server cannot be told
    await logout().catch(() => undefined);
    useSession.getState().reset();
    navigate(LOGIN_PATH, { replace: true });
  };
}
