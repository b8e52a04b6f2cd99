import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { SignJWT, jwtVerify } from 'jose';
import {
  EVENTS_TICKET_TTL_S,
  PERMISSIONS,
  envelopeSchema,
  eventsQuery,
  eventsTicketResult,
  type LiveEvent,
  type Permission,
} from '@cpc/contracts';
import type { Db } from '../db/database.ts';
import { dataAccessOf, loadScopeView, type Reach, type ScopeView } from '../lib/data-scope.ts';
import { caller, hasPermission, loadAuthUser, type AuthUser } from './auth.ts';
import { AppError, ok } from './errors.ts';
import type { LiveEvents, StreamEvent } from './live-events.ts';
import { ENTITY_ID, narrowEvent, ruleOf } from './live-scope.ts';

/*
 * The consoles' side of live events: the ticket that opens a stream, and each stream, which hears its account's
 * events (plugins/live-events.ts) and passes on what its reader may see.
 */

/** Short-lived tickets that stand in for the bearer token on the event stream (EventSource sends no headers). */
export class EventTickets {
  private key: Uint8Array;
  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(c: { userId: number; tenantId: number; sessionId: string }): Promise<string> {
    return new SignJWT({ tid: c.tenantId, sid: c.sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(c.userId))
      .setAudience('device-events')
      .setIssuedAt()
      .setExpirationTime(`${EVENTS_TICKET_TTL_S}s`)
      .sign(this.key);
  }

  async verify(ticket: string): Promise<{ userId: number; tenantId: number; sessionId: string }> {
    try {
      const { payload } = await jwtVerify(ticket, this.key, { algorithms: ['HS256'], audience: 'device-events' });
      if (typeof payload.tid !== 'number' || typeof payload.sid !== 'string') throw new Error('claims');
      return { userId: Number(payload.sub), tenantId: payload.tid, sessionId: payload.sid };
    } catch {
      throw new AppError(401, 'auth.eventTicketInvalid');
    }
  }
}

const KEEPALIVE_MS = 20_000;
/** Bytes waiting for a console's socket beyond which its events are skipped (and a resync sent when it drains). */
const SSE_BUFFER_MAX = 1 << 20;

/** Events of the fleet-software (issue 15) and fleet-control (issue 16) sections: each only to consoles holding one of its read permissions. */
const SECTION_READERS: Record<string, Permission[]> = {
  package: [PERMISSIONS.upgradeView, PERMISSIONS.applicationView, PERMISSIONS.aiLibraryView],
  upgrade: [PERMISSIONS.upgradeView],
  application: [PERMISSIONS.applicationView, PERMISSIONS.aiLibraryView],
  fileAcquisition: [PERMISSIONS.fileAcquisitionView],
  aiLibrary: [PERMISSIONS.aiLibraryView],
  fence: [PERMISSIONS.fenceView],
  systemCustom: [PERMISSIONS.systemCustomView],
  push: [PERMISSIONS.pushView],
} satisfies Partial<Record<LiveEvent['type'], Permission[]>>;

/** Events that may wait on one stream for its scope to be read again or a module's answer; beyond, they are skipped. */
const MAX_WAITING = 10_000;

/** The permissions (any of) that read what an event of each kind is about; kinds not named go to every console. */
const EVENT_READERS: Partial<Record<LiveEvent['type'], Permission[]>> = {
  device: [PERMISSIONS.deviceView],
  task: [PERMISSIONS.deviceTask],
  identity: [PERMISSIONS.identityReview],
  department: [PERMISSIONS.departmentEdit, PERMISSIONS.userEdit, PERMISSIONS.deviceView],
  sim: [PERMISSIONS.flowRateView],
  order: [PERMISSIONS.flowRateView, PERMISSIONS.flowRateBuy, PERMISSIONS.flowRateRefund],
  workOrder: [PERMISSIONS.workOrderView, PERMISSIONS.workOrderHandle],
  ...SECTION_READERS,
};

/**
 * One console's reader: the user, the event kinds its permissions read, and (narrower than its account) its data
 * scope's view with what the modules said of pushes and releases. Built anew whenever any of it may have changed.
 */
interface Reader {
  user: AuthUser;
  view: ScopeView | null;
  /** The event as this reader may hear it, or null. */
  hears(e: LiveEvent, reach: Reach | undefined): LiveEvent | null;
  /** The id of the thing an event is about when its module must be asked first (not yet asked), else undefined. */
  entityToAsk(e: LiveEvent): number | undefined;
  ask(type: LiveEvent['type'], id: number): Promise<void>;
}

async function readerOf(db: Db, events: LiveEvents, user: AuthUser): Promise<Reader> {
  const kinds = new Set(
    Object.entries(EVENT_READERS)
      .filter(([, codes]) => codes.some((c) => hasPermission(user, c)))
      .map(([type]) => type),
  );
  // staff read other accounts' work orders and identities as staff, not through a data scope of devices
  const access = dataAccessOf(user);
  const view = user.tenantKind === 'platform' ? null : await loadScopeView(db, access);
  const answers = new Map<string, boolean>();
  return {
    user,
    view,
    hears(e, reach) {
      if (e.type in EVENT_READERS && !kinds.has(e.type)) return null;
      // a role of someone else changed, a message of someone else: nothing for this console
      if (e.type === 'permissions' && !e.data.userIds.includes(user.id)) return null;
      if (e.type === 'message' && e.data.userId !== user.id) return null;
      return narrowEvent(e, reach, view, (type, id) => answers.get(`${type}:${id}`) === true);
    },
    entityToAsk(e) {
      if (ruleOf(e.type) !== 'entity') return undefined;
      const id = ENTITY_ID[e.type]?.(e.data as never);
      return id === undefined || answers.has(`${e.type}:${id}`) ? undefined : id;
    },
    async ask(type, id) {
      if (answers.has(`${type}:${id}`)) return;
      const seen = await events.visibleEntities(type, access, [id]);
      answers.set(`${type}:${id}`, seen.has(id));
    },
  };
}

/**
 * One console's open stream: numbered events as its reader may see them, work that must finish before later events
 * are judged (reading the reader again, asking a module about a push or a release) on one chain, events skipped
 * (their numbers too) while the console does not read, and a resync once it reads again.
 */
class ConsoleStream {
  /** Numbered events: a console that sees a number skipped knows it missed some and reads its lists again. */
  private id = 0;
  private behind = false;
  private chain: Promise<void> = Promise.resolve();
  private waiting = 0;
  private rereadQueued = false;
  private readonly keepalive: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    private db: Db,
    private events: LiveEvents,
    private reader: Reader,
    private res: ServerResponse,
    private onEnd: () => void,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // proxies such as nginx must not buffer the stream
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 3000\n: connected\n\n`);
    this.unsubscribe = events.subscribe(reader.user.tenantId, (e, reach) => this.heard(e, reach));
    res.on('drain', () => {
      if (!this.behind || this.waiting) return;
      this.behind = false;
      this.write('resync', { reason: 'missed' });
    });
    // the keep-alive also re-checks the session, the permissions and the data scope: a logout or a disabled user
    // ends the stream (changes of roles and scope are also heard at once, through `permissions` and `scope`)
    this.keepalive = setInterval(() => {
      res.write(`: ping\n\n`);
      this.reread();
    }, KEEPALIVE_MS);
  }

  end(): void {
    clearInterval(this.keepalive);
    this.unsubscribe();
    this.res.end();
  }

  private get full(): boolean {
    return this.res.writableLength > SSE_BUFFER_MAX;
  }

  private write(type: string, data: unknown): void {
    this.res.write(`id: ${++this.id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Skips an event (its number too): the console is told to resync once it can take more. */
  private skip(): void {
    this.id++;
    this.behind = true;
  }

  private send(e: LiveEvent, reach: Reach | undefined): void {
    const seen = this.reader.hears(e, reach);
    if (!seen) return;
    // a console that does not read (a stalled link) is not buffered for without end: its events are skipped
    // (their numbers too) and it is told to resync once it reads again
    if (this.full) return this.skip();
    this.write(seen.type, seen.data);
  }

  private heard(e: StreamEvent, reach: Reach | undefined): void {
    if (e.type === 'scope') return this.reread();
    if (e.type === 'resync') {
      if (this.full) return this.skip();
      return this.write(e.type, e.data);
    }
    // this user's roles changed: what it may hear changes with them, from the next event on
    if (e.type === 'permissions' && e.data.userIds.includes(this.reader.user.id)) this.reread();
    if (this.waiting > MAX_WAITING) return this.skip();
    const entity = () => (this.reader.view ? this.reader.entityToAsk(e) : undefined);
    if (!this.waiting && entity() === undefined) return this.send(e, reach);
    this.later(async () => {
      // asked of the reader as it is now: a re-read queued before this event starts with no answers
      const id = entity();
      if (id !== undefined) await this.reader.ask(e.type, id);
      this.send(e, reach);
    });
  }

  /** Runs after the work already waiting; events that arrive meanwhile wait behind it. */
  private later(job: () => Promise<void>): void {
    this.waiting++;
    this.chain = this.chain
      .then(job)
      .catch(() => this.onEnd())
      .finally(() => {
        this.waiting--;
        if (!this.waiting && this.behind && !this.full) {
          this.behind = false;
          this.write('resync', { reason: 'missed' });
        }
      });
  }

  /** Reads the user, its permissions and its data scope again (coalesced while one is waiting to run). */
  private reread(): void {
    if (this.rereadQueued) return;
    this.rereadQueued = true;
    this.later(async () => {
      this.rereadQueued = false;
      const { id, tenantId, sessionId } = this.reader.user;
      this.reader = await readerOf(this.db, this.events, await loadAuthUser(this.db, id, tenantId, sessionId));
    });
  }
}

/**
 * `POST /device/events/ticket` (bearer, any signed-in user) → a ticket valid for EVENTS_TICKET_TTL_S;
 * `GET /device/events?ticket=…` → text/event-stream of the caller's tenant, each kind of event only for those who
 * may read what it is about: `event: device` (device:view), `event: task` (device:task), `event: identity`
 * (identity:review, staff), `event: permissions` (only to the users whose roles changed: read the user
 * info and menu again) and `event: resync` (events were lost: read the live lists again),
 * each with `id:` numbered from 1 on every stream.
 * The ticket may be reused until it expires (EventSource reconnects with the same URL); after that the
 * stream answers 401 and the console asks for a new ticket.
 */
export const liveEventRoutes: FastifyPluginAsyncZod<{ db: Db; events: LiveEvents; tickets: EventTickets }> = async (
  app,
  { db, events, tickets },
) => {
  const streams = new Set<() => void>();
  // Open streams would keep the HTTP server from closing.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });

  app.post(
    '/device/events/ticket',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['device'],
        summary:
          'A short-lived ticket for the live event stream (any signed-in user; each event kind is sent by its permission)',
        response: { 200: envelopeSchema(eventsTicketResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok({
        ticket: await tickets.sign({ userId: u.id, tenantId: u.tenantId, sessionId: u.sessionId }),
        expiresIn: EVENTS_TICKET_TTL_S,
      });
    },
  );

  /** Opens a stream for the ticket's user, ended by the console, the server's close or a failed re-read. */
  const open = async (req: FastifyRequest<{ Querystring: { ticket: string } }>, reply: FastifyReply) => {
    const claims = await tickets.verify(req.query.ticket);
    const reader = await readerOf(db, events, await loadAuthUser(db, claims.userId, claims.tenantId, claims.sessionId));
    reply.hijack();
    const end = () => {
      if (!streams.delete(end)) return;
      stream.end();
    };
    const stream = new ConsoleStream(db, events, reader, reply.raw, () => end());
    streams.add(end);
    req.raw.on('close', end);
  };
  app.get(
    '/device/events',
    {
      config: { auth: false },
      schema: {
        tags: ['device'],
        summary: "Live device and task events of the caller's account (Server-Sent Events; authenticate with a ticket)",
        querystring: eventsQuery,
      },
    },
    open,
  );
};
