import { QueryClient } from '@tanstack/react-query';
import { onSessionReset } from '../lib/session';

/**
 * Server state. The request layer already reports every failure, so queries do not retry behind the
 * user's back, and a logout drops everything the previous user loaded.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});

onSessionReset(() => queryClient.clear());
