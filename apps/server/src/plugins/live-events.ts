import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import type { LiveEvent } from '@cpc/contracts';
import { NO_FLUSH_WAIT, type Db } from '../db/database.ts';
import type { Reach } from '../lib/data-scope.ts';
import type { EntityReach } from './live-scope.ts';

/** One channel for every node: the payload names the tenant, each node hands it to its own consoles. */
export const LIVE_CHANNEL = 'cpc_live_events';
/**
 * Where PostgreSQL itself says (triggers of migration 0040) that an account's devices, SIMs, departments, users or
 * roles changed: the payload is the tenant id. Its consoles read their data scope and permissions again.
 */
export const SCOPE_CHANNEL = 'cpc_scope';
/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (BLCKSZ - NAMEDATALEN - 128); every payload we send,
 * header included, stays at or under this many UTF-8 bytes, with room to spare.
 */
export const MAX_PAYLOAD_BYTES = 7800;
/** Room kept for a payload's header (`c1|node|seq|part|parts|`: about 50 ASCII bytes at most). */
const HEADER_BYTES = 100;
const BODY_BYTES = MAX_PAYLOAD_BYTES - HEADER_BYTES;
const FRAME = 'c1';
/**
 * Events are sent at most once per this many ms: the first after a quiet spell goes at once, those that follow
 * within it together (a fleet's burst of status changes is a few NOTIFYs, not one per event).
 */
const FLUSH_MS = 10;
/** After a failed NOTIFY, how soon the node tries again to tell the others (by its next sequence number). */
const MARKER_RETRY_MS = 1000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 15_000;
/** Half-received chunked messages kept at most; they complete at once (one transaction) unless the link drops. */
const MAX_PARTIAL = 64;
/** Node ids remembered at most, with the last number heard from each. */
const MAX_NODES = 1000;

/** The tenant id of a wire meant for every tenant's consoles (real tenant ids start at 1). */
const ALL_TENANTS = 0;

type Wire = [tenantId: number, type: LiveEvent['type'], data: LiveEvent['data'], reach?: Reach];
/** Why a console must read its live lists again: this node's NOTIFY failed, its LISTEN dropped, or a node's message never came. */
export type ResyncReason = 'publish-failed' | 'listen-lost' | 'missed';
/** What a console's stream carries: an event, or word that events were lost and what it shows must be read again. */
export type StreamEvent =
  | LiveEvent
  | { type: 'resync'; data: { reason: ResyncReason } }
  /** The account's data scope may have changed (never written to a console: it reads its reach again). */
  | { type: 'scope'; data: Record<string, never> };
type Listener = (e: StreamEvent, reach?: Reach) => void;

/** Cuts text into pieces of at most `maxBytes` UTF-8 bytes, never inside a character. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < buf.length) {
    let end = Math.min(start + maxBytes, buf.length);
    // a continuation byte (10xxxxxx) belongs to the character before it: cut before that character instead
    while (end < buf.length && (buf[end] & 0xc0) === 0x80) end--;
    pieces.push(buf.toString('utf8', start, end));
    start = end;
  }
  return pieces;
}

/** Packs wires into JSON arrays of at most `budget` bytes each; a wire larger than that is an array of its own. */
function pack(wires: Wire[], budget: number): string[] {
  const bodies: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const w of wires) {
    const s = JSON.stringify(w);
    const n = Buffer.byteLength(s);
    if (current.length && size + n + 1 > budget) {
      bodies.push(`[${current.join(',')}]`);
      current = [];
      size = 2;
    }
    current.push(s);
    size += n + 1;
  }
  if (current.length) bodies.push(`[${current.join(',')}]`);
  return bodies;
}

/**
 * The NOTIFY payloads for a node's messages, numbered from `firstSeq`: `c1|<node>|<seq>|<part>|<parts>|<piece>`.
 * A message over the byte limit goes as several parts of one sequence number, joined again by the listeners.
 */
export function encodePayloads(node: string, firstSeq: number, bodies: string[]): string[] {
  const payloads: string[] = [];
  bodies.forEach((body, i) => {
    const pieces = splitUtf8(body, BODY_BYTES);
    pieces.forEach((piece, part) =>
      payloads.push(`${FRAME}|${node}|${firstSeq + i}|${part}|${pieces.length}|${piece}`),
    );
  });
  return payloads;
}

/** Where the server's code publishes live events (LiveEvents; tests pass a recorder). */
export interface EventSink {
  /** `reach`: what the event is about where its data does not say (lib/data-scope.ts `Reach`). */
  publish(tenantId: number | null | undefined, event: LiveEvent, reach?: Reach): void;
}

/**
 * Live events for consoles, fanned out through PostgreSQL LISTEN/NOTIFY so a console connected to node A
 * sees a device that talks to node B. Every event goes through NOTIFY, also on one node: one path, one order.
 * Device events of the same device within a flush are coalesced (each is a full snapshot); task events are not.
 *
 * Nothing is lost silently: each node numbers its messages (a random node id and a sequence), a listener that
 * sees a number skipped, a node whose NOTIFY failed and a node whose LISTEN connection came back all tell their
 * consoles to `resync` (read their lists again). Lost events are not sent again: device events are snapshots, and
 * a late one would overwrite what the console has just read.
 */
export class LiveEvents {
  /** This node's id in its messages; a restarted node is a new one. */
  readonly node = randomBytes(6).toString('hex');
  private listeners = new Map<number, Set<Listener>>();
  private queue = new Map<string, Wire>();
  private seq = 0;
  /** The last message number sent by this node (taken also by messages whose NOTIFY failed). */
  private sent = 0;
  /** Set after a failed NOTIFY until a later one goes through and the other nodes can see the skipped numbers. */
  private owesMarker = false;
  private markerTimer: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the last flush began (performance.now()). */
  private flushedAt = -Infinity;
  private flushing: Promise<void> = Promise.resolve();
  private client: pg.Client | undefined;
  private listened = false;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnects = 0;
  /** The last message number heard from each node, and messages of several parts still being put together. */
  private heard = new Map<string, number>();
  private partial = new Map<string, { pieces: string[]; got: number }>();
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
    // named, so an operator (or a test) can find it in pg_stat_activity; keepAlive notices a link gone dead
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: 'cpc-live-events',
      keepAlive: true,
    });
    let live = false;
    const lost = (err?: Error) => {
      if (!live) return;
      live = false;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      if (this.stopped) return;
      this.log.warn({ err }, 'live events: LISTEN connection lost, reconnecting');
      this.scheduleReconnect();
    };
    client.on('notification', (n) => {
      if (n.channel === LIVE_CHANNEL && n.payload) this.receive(n.payload);
      else if (n.channel === SCOPE_CHANNEL && n.payload) this.rescope(Number(n.payload));
    });
    // an idle connection that is killed may emit 'error', 'end' or both
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL}; LISTEN ${SCOPE_CHANNEL}`);
    } catch (err) {
      client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) return void client.end().catch(() => {});
    live = true;
    this.client = client;
    this.reconnects = 0;
    // what was sent while nobody listened here is gone: numbering starts afresh, consoles read their lists again
    this.heard.clear();
    this.partial.clear();
    if (this.listened) {
      this.log.info('live events: LISTEN connection back, consoles told to resync');
      this.resync(null, 'listen-lost');
    }
    this.listened = true;
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.reconnects++);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.listen().catch((err) => {
        this.log.warn({ err }, 'live events: LISTEN reconnect failed');
        this.scheduleReconnect();
      });
    }, delay);
  }

  /**
   * Queues an event for the consoles of a tenant; events of unbound devices (no tenant) go nowhere. `reach` says
   * what the event is about where its data does not (plugins/live-scope.ts): without it, a console narrower than
   * its account does not hear an event whose rule needs it.
   */
  publish(tenantId: number | null | undefined, event: LiveEvent, reach?: Reach): void {
    if (tenantId == null || this.stopped) return;
    const key = event.type === 'device' ? `d:${event.data.id}` : `t:${++this.seq}`;
    this.queue.delete(key);
    this.queue.set(key, reach ? [tenantId, event.type, event.data, reach] : [tenantId, event.type, event.data]);
    this.timer ??= setTimeout(() => void this.flush(), Math.max(0, this.flushedAt + FLUSH_MS - performance.now()));
  }

  /** Queues an event for the consoles of every tenant (the menu changed). */
  publishAll(event: LiveEvent): void {
    this.publish(ALL_TENANTS, event);
  }

  /** Sends what is queued now; flushes run one after the other so events keep their order. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushedAt = performance.now();
    this.flushing = this.flushing.then(() => this.send());
    return this.flushing;
  }

  private async send(): Promise<void> {
    if (!this.queue.size && !this.owesMarker) return;
    const wires = [...this.queue.values()];
    this.queue.clear();
    if (!this.databaseUrl) {
      for (const w of wires) this.deliver(w);
      return;
    }
    // an empty message after a failure carries the next number, so the other nodes see the skipped ones
    const bodies = wires.length ? pack(wires, BODY_BYTES) : ['[]'];
    const payloads = encodePayloads(this.node, this.sent + 1, bodies);
    this.sent += bodies.length;
    try {
      // one statement, one transaction: the parts go out all together, in order, or not at all. A NOTIFY's commit
      // is a WAL record like any other; it need not wait for the disk (listeners hear it at the commit, and a
      // PostgreSQL crash drops their connections, so their consoles read their lists again anyway)
      await sql`select pg_notify(${LIVE_CHANNEL}, p) from unnest(${payloads}::text[]) as p, ${NO_FLUSH_WAIT}`.execute(
        this.db,
      );
      this.owesMarker = false;
    } catch (err) {
      this.lost(wires, err);
    }
  }

  /** A failed NOTIFY: logged with what was lost (never the events' content), the tenants' consoles told to resync. */
  private lost(wires: Wire[], err: unknown): void {
    if (!wires.length)
      this.log.warn({ err }, 'live events: NOTIFY still failing, other nodes not yet told of the lost events');
    else this.logLost(wires, err);
    this.owesMarker = true;
    if (!this.stopped && !this.markerTimer) {
      this.markerTimer = setTimeout(() => {
        this.markerTimer = undefined;
        if (this.owesMarker) void this.flush();
      }, MARKER_RETRY_MS);
    }
  }

  private logLost(wires: Wire[], err: unknown): void {
    const kinds: Record<string, number> = {};
    const tenants = new Set<number>();
    for (const [tenantId, type] of wires) {
      kinds[type] = (kinds[type] ?? 0) + 1;
      tenants.add(tenantId);
    }
    this.log.error(
      { err, lost: { events: wires.length, kinds, tenants: [...tenants] } },
      `live events: NOTIFY failed, ${wires.length} events lost; consoles told to resync`,
    );
    for (const t of tenants) this.resync(t, 'publish-failed');
  }

  /** A NOTIFY payload: one message, or one part of it, from some node. */
  private receive(payload: string): void {
    // a node that predates the framing sends a bare JSON array (during a rolling update)
    if (payload.startsWith('[')) return this.dispatch(payload);
    const head = /^c1\|([0-9a-z]+)\|(\d+)\|(\d+)\|(\d+)\|/.exec(payload);
    if (!head)
      return this.log.warn({ bytes: Buffer.byteLength(payload) }, 'live events: unreadable NOTIFY payload ignored');
    const [prefix, node, seqText, partText, partsText] = head;
    const seq = Number(seqText);
    const parts = Number(partsText);
    const piece = payload.slice(prefix.length);
    let body = piece;
    if (parts > 1) {
      const key = `${node}|${seq}`;
      let p = this.partial.get(key);
      if (!p) {
        if (this.partial.size >= MAX_PARTIAL) this.partial.delete(this.partial.keys().next().value!);
        this.partial.set(key, (p = { pieces: [], got: 0 }));
      }
      const part = Number(partText);
      if (p.pieces[part] === undefined) p.got++;
      p.pieces[part] = piece;
      if (p.got < parts) return;
      this.partial.delete(key);
      body = p.pieces.join('');
    }
    const last = this.heard.get(node);
    // every restart of a node is a new id: forget them all now and then (each starts afresh at its next message)
    if (last === undefined && this.heard.size >= MAX_NODES) this.heard.clear();
    this.heard.set(node, seq);
    if (last !== undefined && seq !== last + 1) {
      this.log.warn(
        { node, expected: last + 1, got: seq },
        'live events: messages of a node never arrived, consoles told to resync',
      );
      this.resync(null, 'missed');
    }
    this.dispatch(body);
  }

  private dispatch(body: string): void {
    let wires: Wire[];
    try {
      wires = JSON.parse(body);
    } catch {
      return this.log.warn({ bytes: Buffer.byteLength(body) }, 'live events: unreadable message ignored');
    }
    for (const w of wires) this.deliver(w);
  }

  private deliver([tenantId, type, data, reach]: Wire): void {
    const sets = tenantId === ALL_TENANTS ? [...this.listeners.values()] : [this.listeners.get(tenantId)];
    const event = { type, data } as LiveEvent;
    for (const set of sets)
      for (const fn of set ?? []) {
        this.delivered++;
        fn(event, reach);
      }
  }

  /** Tells the consoles of a tenant that its data scope may have changed. */
  private rescope(tenantId: number): void {
    if (!Number.isSafeInteger(tenantId)) return;
    const event: StreamEvent = { type: 'scope', data: {} };
    for (const fn of [...(this.listeners.get(tenantId) ?? [])]) fn(event);
  }

  private entityReaches = new Map<LiveEvent['type'], EntityReach>();

  /** The owning module's answer to "which of these things does a reader see", for events of `type`. */
  entityReach(type: LiveEvent['type'], fn: EntityReach): void {
    this.entityReaches.set(type, fn);
  }

  /** Which of these things of `type` a reader with `access` sees; none when no module answers for the type. */
  visibleEntities(type: LiveEvent['type'], access: Parameters<EntityReach>[0], ids: number[]): Promise<Set<number>> {
    const fn = this.entityReaches.get(type);
    return fn ? fn(access, ids) : Promise.resolve(new Set());
  }

  /** Tells the consoles of a tenant (or of all tenants: null) to read their live lists again. */
  private resync(tenantId: number | null, reason: ResyncReason): void {
    const event: StreamEvent = { type: 'resync', data: { reason } };
    const sets =
      tenantId === null ? [...this.listeners.values()] : [this.listeners.get(tenantId) ?? new Set<Listener>()];
    for (const set of sets) for (const fn of [...set]) fn(event);
  }

  /** Calls `fn` with every event of the tenant from now on, and with `resync` when some were lost; returns the unsubscribe function. */
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
    clearTimeout(this.markerTimer);
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }
}
