import { useEffect, useRef, useSyncExternalStore } from 'react';
import type {
  LiveDeviceEvent,
  LiveEvent,
  LiveIdentityEvent,
  LiveMenuEvent,
  LiveMessageEvent,
  LiveOrderEvent,
  LiveWorkOrderEvent,
  LiveNoticeEvent,
  LivePackageEvent,
  LiveUpgradeEvent,
  LiveApplicationEvent,
  LiveFileAcquisitionEvent,
  LiveAiLibraryEvent,
  LiveFenceEvent,
  LiveSystemCustomEvent,
  LivePushEvent,
  LiveSimEvent,
  LiveTaskEvent,
} from '@cpc/contracts';
import type { LivePermissionsEvent } from '@cpc/contracts/role';
import { BASE_URL } from '../config/settings';
import { post } from './request';
import { getToken, onSessionReset } from './session';

/** What the stream is doing: nobody listening, opening, streaming, or waiting before the next try. */
export type LiveStatus = 'idle' | 'connecting' | 'open' | 'retrying';

export interface LiveHandlers {
  onEvent(event: LiveEvent): void;
  /** Every time the stream (re)opens: what happened while it was down has to be read again. */
  onOpen?(): void;
  /** Events were lost while the stream stayed open (the server said `resync`, or a number was skipped): read again. */
  onGap?(): void;
}

/** The part of EventSource this client uses, so tests can stand in for it. */
export interface EventSourceLike {
  readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  addEventListener(type: string, listener: (ev: MessageEvent) => void): void;
  close(): void;
}

export interface LiveEventsDeps {
  /** A fresh ticket for the stream (`POST /device/events/ticket`). */
  ticket(): Promise<string>;
  /** Opens the stream at the URL for a ticket. */
  open(ticket: string): EventSourceLike;
  /** Whether anyone is signed in: without a session there is nothing to ask a ticket with. */
  signedIn(): boolean;
  /** Wait before the n-th attempt after a failure (1-based). */
  backoffMs?(attempt: number): number;
}

export interface LiveEventsClient {
  /** Starts listening; the stream opens with the first subscriber and closes after the last one leaves. */
  subscribe(handlers: LiveHandlers): () => void;
  status(): LiveStatus;
  onStatus(listener: () => void): () => void;
  /** Closes the stream and forgets every subscriber (logout). */
  reset(): void;
}

const EVENT_TYPES = [
  'device',
  'task',
  'identity',
  'permissions',
  'menu',
  'message',
  'department',
  'sim',
  'order',
  'workOrder',
  'notice',
  'package',
  'upgrade',
  'application',
  'fileAcquisition',
  'aiLibrary',
  'fence',
  'systemCustom',
  'push',
] as const;
const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** (attempt - 1));

/**
 * One event stream per console, shared by every page that shows live device or task state (DESIGN §6).
 * EventSource would reconnect by itself with the same URL, but the ticket in it expires after a minute:
 * on any failure the stream is closed and opened again with a fresh ticket, after a growing pause.
 */
export function createLiveEvents(deps: LiveEventsDeps): LiveEventsClient {
  const subscribers = new Set<LiveHandlers>();
  const statusListeners = new Set<() => void>();
  const backoff = deps.backoffMs ?? defaultBackoff;
  let status: LiveStatus = 'idle';
  let source: EventSourceLike | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  // bumped by every close, so a ticket that arrives after the stream was given up is dropped
  let generation = 0;

  const setStatus = (next: LiveStatus) => {
    if (next === status) return;
    status = next;
    for (const l of [...statusListeners]) l();
  };

  const dispatch = (event: LiveEvent) => {
    for (const s of [...subscribers]) s.onEvent(event);
  };
  const gap = () => {
    for (const s of [...subscribers]) s.onGap?.();
  };

  function close(next: LiveStatus = 'idle') {
    generation++;
    clearTimeout(timer);
    timer = undefined;
    source?.close();
    source = null;
    setStatus(next);
  }

  function retry() {
    close('retrying');
    const gen = generation;
    timer = setTimeout(() => {
      if (gen === generation) void connect();
    }, backoff(++failures));
  }

  async function connect() {
    if (!subscribers.size || !deps.signedIn()) return close();
    close('connecting');
    const gen = generation;
    let ticket: string;
    try {
      ticket = await deps.ticket();
    } catch {
      if (gen === generation) retry();
      return;
    }
    if (gen !== generation) return;
    const es = deps.open(ticket);
    source = es;
    es.onopen = () => {
      if (gen !== generation) return;
      failures = 0;
      setStatus('open');
      for (const s of [...subscribers]) s.onOpen?.();
    };
    // a dropped connection, a refused ticket (401 once it expired) or a server going away
    es.onerror = () => {
      if (gen === generation) retry();
    };
    // the server numbers a stream's events from 1: a number skipped is an event this console never got
    let lastId = 0;
    const skipped = (ev: MessageEvent) => {
      const id = Number(ev.lastEventId);
      if (!ev.lastEventId || !Number.isSafeInteger(id)) return false;
      const missed = id !== lastId + 1;
      lastId = id;
      return missed;
    };
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (ev) => {
        if (gen !== generation) return;
        const missed = skipped(ev);
        let data: unknown;
        try {
          data = JSON.parse(ev.data);
        } catch {
          data = null;
        }
        if (typeof data === 'object' && data !== null) dispatch({ type, data } as LiveEvent);
        if (missed) gap();
      });
    }
    // the server lost events on their way here (its database link dropped, a NOTIFY failed)
    es.addEventListener('resync', (ev) => {
      if (gen !== generation) return;
      skipped(ev);
      gap();
    });
  }

  return {
    subscribe(handlers) {
      subscribers.add(handlers);
      if (status === 'idle') void connect();
      else if (status === 'open') handlers.onOpen?.();
      return () => {
        subscribers.delete(handlers);
        if (!subscribers.size) close();
      };
    },
    status: () => status,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    reset() {
      subscribers.clear();
      failures = 0;
      close();
    },
  };
}

export const liveEvents = createLiveEvents({
  ticket: async () => (await post<{ ticket: string }>('/device/events/ticket', undefined, { silent: true })).ticket,
  open: (ticket) => new EventSource(`${BASE_URL}/device/events?ticket=${encodeURIComponent(ticket)}`),
  signedIn: () => !!getToken(),
});

// a logout ends the stream at once; the next signed-in page opens a new one
onSessionReset(() => liveEvents.reset());

/**
 * Live device and task events while the calling component is mounted (a kept-alive page that is hidden
 * stops listening). `onOpen` runs each time the stream opens, and also right away when it already is; `onGap` when
 * events were lost while it stayed open.
 */
export function useLiveEvents(
  handlers: {
    device?: (e: LiveDeviceEvent) => void;
    task?: (e: LiveTaskEvent) => void;
    identity?: (e: LiveIdentityEvent) => void;
    /** The signed-in user's roles changed (the server sends it to that user only). */
    permissions?: (e: LivePermissionsEvent) => void;
    menu?: (e: LiveMenuEvent) => void;
    message?: (e: LiveMessageEvent) => void;
    /** The account's department tree changed. */
    department?: () => void;
    /** SIMs of the account changed (data left, state, plan). */
    sim?: (e: LiveSimEvent) => void;
    /** An order changed state. */
    order?: (e: LiveOrderEvent) => void;
    /** A work order changed (opened, replied to, assigned, state). */
    workOrder?: (e: LiveWorkOrderEvent) => void;
    /** An announcement was published, edited or withdrawn. */
    notice?: (e: LiveNoticeEvent) => void;
    /** A firmware, application or model package was added or removed. */
    package?: (e: LivePackageEvent) => void;
    /** An upgrade release changed (state, wave, counts). */
    upgrade?: (e: LiveUpgradeEvent) => void;
    /** Installs or the installed apps and models of devices changed. */
    application?: (e: LiveApplicationEvent) => void;
    /** A file request changed. */
    fileAcquisition?: (e: LiveFileAcquisitionEvent) => void;
    /** A cloud AI job changed. */
    aiLibrary?: (e: LiveAiLibraryEvent) => void;
    /** A fence changed, or a device entered or left one. */
    fence?: (e: LiveFenceEvent) => void;
    /** A customization profile, its assignment or a device's applied state changed. */
    systemCustom?: (e: LiveSystemCustomEvent) => void;
    /** A push or its per-device delivery changed. */
    push?: (e: LivePushEvent) => void;
    onOpen?: () => void;
    onGap?: () => void;
  },
  enabled = true,
): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    return liveEvents.subscribe({
      onEvent: (e) => {
        if (e.type === 'device') latest.current.device?.(e.data);
        else if (e.type === 'task') latest.current.task?.(e.data);
        else if (e.type === 'identity') latest.current.identity?.(e.data);
        else if (e.type === 'permissions') latest.current.permissions?.(e.data);
        else if (e.type === 'menu') latest.current.menu?.(e.data);
        else if (e.type === 'message') latest.current.message?.(e.data);
        else if (e.type === 'department') latest.current.department?.();
        else if (e.type === 'sim') latest.current.sim?.(e.data);
        else if (e.type === 'order') latest.current.order?.(e.data);
        else if (e.type === 'workOrder') latest.current.workOrder?.(e.data);
        else if (e.type === 'notice') latest.current.notice?.(e.data);
        else if (e.type === 'package') latest.current.package?.(e.data);
        else if (e.type === 'upgrade') latest.current.upgrade?.(e.data);
        else if (e.type === 'application') latest.current.application?.(e.data);
        else if (e.type === 'fileAcquisition') latest.current.fileAcquisition?.(e.data);
        else if (e.type === 'aiLibrary') latest.current.aiLibrary?.(e.data);
        else if (e.type === 'fence') latest.current.fence?.(e.data);
        else if (e.type === 'systemCustom') latest.current.systemCustom?.(e.data);
        else latest.current.push?.(e.data);
      },
      onOpen: () => latest.current.onOpen?.(),
      onGap: () => latest.current.onGap?.(),
    });
  }, [enabled]);
}

/** The stream's status, for a "live" indicator. */
export const useLiveStatus = (): LiveStatus =>
  useSyncExternalStore(liveEvents.onStatus, liveEvents.status, liveEvents.status);
