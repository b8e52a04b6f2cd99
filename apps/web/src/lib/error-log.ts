import { create } from 'zustand';

/** An entry of the error-log panel (SPEC §3, §8): what failed and on which page. */
export interface ErrorLogEntry {
  err: { message: string; stack?: string };
  url: string;
}

interface ErrorLogState {
  logs: ErrorLogEntry[];
  add(entry: ErrorLogEntry): void;
  clear(): void;
}

/** Older entries are dropped so a failing poll cannot grow the log without bound. */
const MAX_ENTRIES = 100;

export const useErrorLog = create<ErrorLogState>()((set) => ({
  logs: [],
  add: (entry) => set((s) => ({ logs: [...s.logs, entry].slice(-MAX_ENTRIES) })),
  clear: () => set({ logs: [] }),
}));

/** The route the user is on: the hash path of the hash router. */
export function currentRouteUrl(): string {
  if (typeof window === 'undefined') return '/';
  return window.location.hash.replace(/^#/, '') || '/';
}

export function logError(error: unknown, url: string = currentRouteUrl()): void {
  const err =
    error instanceof Error
      ? { message: error.message, stack: error.stack }
      : { message: typeof error === 'string' ? error : JSON.stringify(error) ?? String(error) };
  useErrorLog.getState().add({ err, url });
}
