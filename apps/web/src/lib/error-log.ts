import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { ADMIN_ROLE } from '@cpc/contracts';
import { getAccess, getToken, onSessionReset } from './session';

/** An entry of the error-log panel (SPEC §3, §8): what failed and on which page. */
export interface ErrorLogEntry {
  err: { message: string; stack?: string };
  url: string;
  /** What else helps to understand it: for a failed call, the call and the server's answer. */
  details?: string;
  /** When it last happened (epoch ms). */
  time: number;
  /** How many identical errors in a row this entry stands for. */
  count: number;
}

export type NewErrorLogEntry = Pick<ErrorLogEntry, 'err' | 'url' | 'details'> & { time?: number };

interface ErrorLogState {
  logs: ErrorLogEntry[];
  add(entry: NewErrorLogEntry): void;
  /** Empties the log; the panel's button hides until the next error (the "do not show" of SPEC §8). */
  clear(): void;
}

/** Older entries are dropped so a failing poll cannot grow the log without bound. */
export const MAX_ENTRIES = 100;
export const ERROR_LOG_KEY = 'error-log';

const sameError = (a: ErrorLogEntry, b: NewErrorLogEntry): boolean =>
  a.url === b.url && a.err.message === b.err.message && a.err.stack === b.err.stack && a.details === b.details;

/**
 * Kept in session storage: a crash page's "reload" (or the user's) must not erase what the log is for.
 * Per tab, and gone with the tab.
 */
export const useErrorLog = create<ErrorLogState>()(
  persist(
    (set) => ({
      logs: [],
      add: (entry) =>
        set((s) => {
          const time = entry.time ?? Date.now();
          const last = s.logs.at(-1);
          // a poll failing every few seconds, or one error reported twice (window and boundary), is one line
          if (last && sameError(last, entry))
            return { logs: [...s.logs.slice(0, -1), { ...last, time, count: last.count + 1 }] };
          const added: ErrorLogEntry = { err: entry.err, url: entry.url, time, count: 1 };
          if (entry.details !== undefined) added.details = entry.details;
          return { logs: [...s.logs, added].slice(-MAX_ENTRIES) };
        }),
      clear: () => set({ logs: [] }),
    }),
    {
      name: ERROR_LOG_KEY,
      version: 1,
      storage: createJSONStorage(() => sessionStorage),
      partialize: (s) => ({ logs: s.logs }),
    },
  ),
);

// failed calls carry the server's answers: the next user of this tab does not get to read them
onSessionReset(() => useErrorLog.getState().clear());

/** The route the user is on: the hash path of the hash router. */
export function currentRouteUrl(): string {
  if (typeof window === 'undefined') return '/';
  return window.location.hash.replace(/^#/, '') || '/';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A failed call (the request layer's RequestError, recognised by shape: this module sits below the request
 * layer) is described by its URL, status, code and the body the server answered.
 */
function callDetails(error: Error): string | undefined {
  const e = error as Error & Record<string, unknown>;
  if (!('envelope' in e) || !('status' in e)) return undefined;
  return stringify({ request: e.url || undefined, status: e.status, code: e.code, response: e.envelope });
}

/** Sends a customer's unexpected error to the server's log; set by the request layer, which sits above this module. */
type ErrorReporter = (report: { message: string; stack?: string; url: string }) => void;
let reporter: ErrorReporter | null = null;
export function setErrorReporter(next: ErrorReporter | null): void {
  reporter = next;
}

/** The panel is for staff (SPEC §6: the Admin role); what a customer meets goes to the server's log instead. */
export const seesErrorLog = (): boolean => {
  const access = getAccess();
  return access.admin || access.roles.includes(ADMIN_ROLE);
};

/** Reports a page sends at most: a loop of failures must not turn into a loop of reports. */
const MAX_REPORTS = 20;
let reported = 0;

export function logError(error: unknown, url: string = currentRouteUrl()): void {
  let entry: NewErrorLogEntry;
  if (error instanceof Error) {
    const cause =
      error.cause === undefined
        ? undefined
        : stringify(error.cause instanceof Error ? error.cause.message : error.cause);
    entry = {
      err: { message: error.message || error.name, stack: error.stack },
      url,
      details: callDetails(error) ?? cause,
    };
  } else if (isRecord(error) && typeof error.message === 'string') {
    entry = { err: { message: error.message }, url, details: stringify(error) };
  } else {
    entry = { err: { message: typeof error === 'string' ? error : stringify(error) }, url };
  }
  if (entry.details === undefined) delete entry.details;
  if (seesErrorLog()) useErrorLog.getState().add(entry);
  else if (reporter && getToken() && reported < MAX_REPORTS) {
    reported++;
    reporter({
      message: entry.err.message.slice(0, 500),
      stack: entry.err.stack?.slice(0, 4000),
      url: url.slice(0, 500),
    });
  }
}
