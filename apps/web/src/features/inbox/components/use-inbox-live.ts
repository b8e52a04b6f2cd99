import { useQueryClient } from '@tanstack/react-query';
import { useLiveEvents } from '@/lib/live-events';
import { useSession } from '@/lib/session';
import { MESSAGE_KEY } from '../api/inbox';

/**
 * The inbox follows the live-event channel (no polling): a `message` event for this user — a new message, or one
 * read or deleted in another console — reads the lists and the badge again; so does a reconnect or a gap.
 */
export function useInboxLive(enabled = true): void {
  const client = useQueryClient();
  const me = useSession((s) => s.userInfo?.id);
  const refresh = () => void client.invalidateQueries({ queryKey: MESSAGE_KEY });
  useLiveEvents(
    {
      message: (e) => {
        if (me === undefined || e.userId === me) refresh();
      },
      onGap: refresh,
    },
    enabled,
  );
}
