import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import pg from 'pg';
import { SignJWT, jwtVerify } from 'jose';
import { EVENTS_TICKET_TTL_S, PERMISSIONS, envelopeSchema, eventsQuery, eventsTicketResult, type LiveEvent } from '@cpc/contracts';
import type { Db } from '../db/database.ts';
import { caller, hasPermission, loadAuthUser } from './auth.ts';
import { AppError, ok } from './errors.ts';

/** One channel for every node: the payload names the tenant, each node hands it to its own consoles. */
export const LIVE_CHANNEL = 'cpc_live_events';
// NOTIFY payloads must stay under 8000 bytes; events are packed into arrays up to this size.
const MAX_PAYLOAD = 7000;
const FLUSH_MS = 10;

type Wire = [tenantId: number, type: LiveEvent['type'], data: LiveEvent['data']];
type Listener = (e: LiveEvent) => void;

/**
 * Live events for consoles, fanned out through PostgreSQL LISTEN/NOTIFY so a console connected to node A
 * sees a device that talks to node B. Every event goes through NOTIFY, also on one node: one path, one order.
 * Device events of the same device within a flush are coalesced (each is a full snapshot); task events are not.
 */
export class LiveEvents {
  private listeners = new Map<number, Set<Listener>>();
  private queue = new Map<string, Wire>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private client: pg.Client | undefined;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Events handed to local consoles, for the gateway's statistics. */
  delivered = 0;

  constructor(
    private db: Db,
    private databaseUrl: string | undefined,
    private log: FastifyBaseLogger,
  ) {}

  async start(): Promise<void> {
    if (!this.databaseUrl) return;
    await this.listen();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (n) => n.channel === LIVE_CHANNEL && n.payload && this.dispatch(n.payload));
    client.on('error', (err) => {
      this.log.warn({ err }, 'live events: LISTEN connection lost');
      this.client = undefined;
      client.end().catch(() => {});
      this.scheduleReconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${LIVE_CHANNEL}`);
    this.client = client;
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.listen().catch((err) => {
        this.log.warn({ err }, 'live events: LISTEN reconnect failed');
        this.scheduleReconnect();
      });
    }, 1000);
  }

  /** Queues an event for the consoles of a tenant; events of unbound devices (no tenant) go nowhere. */
  publish(tenantId: number | null | undefined, event: LiveEvent): void {
    if (tenantId == null || this.stopped) return;
    const key = event.type === 'device' ? `d:${event.data.id}` : `t:${++this.seq}`;
    this.queue.delete(key);
    this.queue.set(key, [tenantId, event.type, event.data]);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Sends what is queued now; flushes run one after the other so events keep their order. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(() => this.send());
    return this.flushing;
  }

  private async send(): Promise<void> {
    if (!this.queue.size) return;
    const wires = [...this.queue.values()];
    this.queue.clear();
    if (!this.databaseUrl) {
      for (const w of wires) this.deliver(w);
      return;
    }
    const chunks: string[] = [];
    let current: string[] = [];
    let size = 2;
    for (const w of wires) {
      const s = JSON.stringify(w);
      if (current.length && size + s.length + 1 > MAX_PAYLOAD) {
        chunks.push(`[${current.join(',')}]`);
        current = [];
        size = 2;
      }
      current.push(s);
      size += s.length + 1;
    }
    if (current.length) chunks.push(`[${current.join(',')}]`);
    for (const payload of chunks) {
      await sql`select pg_notify(${LIVE_CHANNEL}, ${payload})`.execute(this.db).catch((err) => this.log.warn({ err }, 'live events: NOTIFY failed'));
    }
  }

  private dispatch(payload: string): void {
    let wires: Wire[];
    try {
      wires = JSON.parse(payload);
    } catch {
      return;
    }
    for (const w of wires) this.deliver(w);
  }

  private deliver([tenantId, type, data]: Wire): void {
    const set = this.listeners.get(tenantId);
    if (!set) return;
    const event = { type, data } as LiveEvent;
    for (const fn of set) {
      this.delivered++;
      fn(event);
    }
  }

  /** Calls `fn` with every event of the tenant from now on; returns the unsubscribe function. */
  subscribe(tenantId: number, fn: Listener): () => void {
    let set = this.listeners.get(tenantId);
    if (!set) this.listeners.set(tenantId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size) this.listeners.delete(tenantId);
    };
  }

  get consoles(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }

  async stop(): Promise<void> {
    await this.flush();
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }
}

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
      throw new AppError(401, 'event ticket invalid or expired, ask for a new one');
    }
  }
}

const KEEPALIVE_MS = 20_000;

/**
 * `POST /device/events/ticket` (bearer) → a ticket valid for EVENTS_TICKET_TTL_S;
 * `GET /device/events?ticket=…` → text/event-stream of the caller's tenant: `event: device` (device:view) and
 * `event: task` (only with device:task too).
 * The ticket may be reused until it expires (EventSource reconnects with the same URL); after that the
 * stream answers 401 and the console asks for a new ticket.
 */
export const liveEventRoutes: FastifyPluginAsyncZod<{ db: Db; events: LiveEvents; tickets: EventTickets }> = async (app, { db, events, tickets }) => {
  const streams = new Set<() => void>();
  // Open streams would keep the HTTP server from closing.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });

  app.post(
    '/device/events/ticket',
    { config: { permission: PERMISSIONS.deviceView }, schema: { tags: ['device'], summary: 'A short-lived ticket for the live event stream', response: { 200: envelopeSchema(eventsTicketResult) } } },
    async (req) => {
      const u = caller(req);
      return ok({ ticket: await tickets.sign({ userId: u.id, tenantId: u.tenantId, sessionId: u.sessionId }), expiresIn: EVENTS_TICKET_TTL_S });
    },
  );

  app.get(
    '/device/events',
    {
      config: { auth: false },
      schema: { tags: ['device'], summary: "Live device and task events of the caller's account (Server-Sent Events; authenticate with a ticket)", querystring: eventsQuery },
    },
    async (req, reply) => {
      const claims = await tickets.verify(req.query.ticket);
      const user = await loadAuthUser(db, claims.userId, claims.tenantId, claims.sessionId);
      if (!hasPermission(user, PERMISSIONS.deviceView)) throw new AppError(403, `permission ${PERMISSIONS.deviceView} required`);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // proxies such as nginx must not buffer the stream
        'x-accel-buffering': 'no',
      });
      res.write(`retry: 3000\n: connected\n\n`);
      // task events only for those who may read tasks (device:task), as GET /device/task/list would answer them
      let seesTasks = hasPermission(user, PERMISSIONS.deviceTask);
      // identity events (published to the platform tenant) only for staff who review them
      let seesIdentity = hasPermission(user, PERMISSIONS.identityReview);
      const unsubscribe = events.subscribe(user.tenantId, (e) => {
        if (e.type === 'task' && !seesTasks) return;
        if (e.type === 'identity' && !seesIdentity) return;
        res.write(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
      });
      // the keep-alive also re-checks the session and the permissions: a logout, a disabled user or a role that
      // lost device:view ends the stream; one that lost or gained device:task stops or starts the task events
      const keepalive = setInterval(() => {
        res.write(`: ping\n\n`);
        loadAuthUser(db, user.id, user.tenantId, user.sessionId).then((u) => {
          if (!hasPermission(u, PERMISSIONS.deviceView)) return end();
          seesTasks = hasPermission(u, PERMISSIONS.deviceTask);
          seesIdentity = hasPermission(u, PERMISSIONS.identityReview);
        }, () => end());
      }, KEEPALIVE_MS);
      const end = () => {
        if (!streams.delete(end)) return;
        clearInterval(keepalive);
        unsubscribe();
        res.end();
      };
      streams.add(end);
      req.raw.on('close', end);
    },
  );
};
