import { sql } from 'kysely';
import { provinceAt } from '@cpc/contracts/geo/provinces';
import type { LiveDeviceEvent } from '@cpc/contracts';
import { OPEN_PRINT_JOB_STATES } from '@cpc/contracts/integration-constants';
import { DEFAULT_TIME_ZONE } from '@cpc/contracts/device-constants';
import type { HelloMsg, LocationMsg, StatusMsg, TrafficMsg } from '@cpc/contracts/device-protocol';
import { NO_FLUSH_WAIT, PREPARED, type Db } from '../../db/database.ts';
import { GroupCommit } from '../../lib/group-commit.ts';
import type { EventSink } from '../live-events.ts';
import type { DeviceBus } from './device-bus.ts';

interface DeviceRow {
  id: number;
  sn: string;
  tenant_id: number | null;
  status: 'online' | 'offline';
  paper: LiveDeviceEvent['paper'];
  battery: number | null;
  signal: number | null;
  firmware: string;
  last_seen_at: Date | null;
  connected_at: Date | null;
  lat: number | null;
  lng: number | null;
  province: string;
}
/**
 * What the gateway does after a hello: answer with the plan of the SIM the hello names (when the platform knows
 * it), and send again the tasks and print jobs still open, if any.
 */
interface HelloNext {
  sim_known: boolean;
  sim_plan_mb: string | number | null;
  sim_expires_at: Date | null;
  tasks_open: boolean;
  prints_open: boolean;
}
export type HelloRow = DeviceRow & HelloNext;
/** Unfinished states (a hello's `tasks_open` and `prints_open`): the resends' own conditions narrow them further. */
const inList = (states: readonly string[]) => sql.raw(`(${states.map((st) => `'${st}'`).join(', ')})`);
const OPEN_PRINTS = inList(OPEN_PRINT_JOB_STATES);
const RETURNING = sql.raw(
  'd.id, d.sn, d.tenant_id, d.status, d.paper, d.battery, d.signal, d.firmware, d.last_seen_at, d.connected_at, d.lat, d.lng, d.province',
);
/** The zone of the usage series' days and months (the platform's default). */
const ROLLUP_ZONE = DEFAULT_TIME_ZONE;
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const n = <T>(v: T | undefined) => (v === undefined ? null : v);

/** A device's status or location report (or neither: a telemetry sample due), for the grouped write (`Presence.reports`). */
interface DeviceReport {
  deviceId: number;
  status?: { paper: string | null; battery: number | null; signal: number | null };
  location?: { lat: number; lng: number; province: string };
}

/** One report of a SIM's counters (a `traffic` message, or a hello that carries them). */
interface CounterReport {
  deviceId: number;
  iccid: string | null;
  usedMb: number;
  tx: number | null;
  rx: number | null;
}

/** Whether `next` can stand for `prev` and itself: the same card, no counter smaller (no new period between). */
const continues = (prev: CounterReport, next: CounterReport) =>
  prev.iccid === next.iccid &&
  next.usedMb >= prev.usedMb &&
  (next.tx ?? 0) >= (prev.tx ?? 0) &&
  (next.rx ?? 0) >= (prev.rx ?? 0);

export interface PresenceOptions {
  heartbeatS: number;
  telemetrySampleS: number;
  /** How long the first status or location report of an idle group waits for others (ms; default 0). */
  reportWindowMs?: number;
  /** A usage roll-up that failed (logged; the counters are cumulative, so the SIM's next report recovers it). */
  onRollupError?: (err: unknown) => void;
  /** Where paper changes are told to the modules (absent: nobody hears them). */
  bus?: DeviceBus;
}

/**
 * What devices say about themselves, written to the database (DESIGN §6): presence (online on hello; offline on
 * last will, disconnect or 2.5 heartbeats of silence), last-seen times batched in memory and flushed in one
 * UPDATE, state changes with a row in device_status_log, sampled telemetry. A write happens only when
 * something changed (`IS DISTINCT FROM`), and a console event only then.
 */
export class Presence {
  /** Devices heard from since the last flush. */
  private touched = new Set<number>();
  private lastSample = new Map<number, number>();
  /** SIMs whose counters changed since the last `publishSims`, per account. */
  private simsChanged = new Map<number, Set<string>>();
  /**
   * `traffic` reports waiting for the next flush, the latest per device: within a plan period the counters only
   * grow, so the latest one's growth since the stored counters is the sum of all of theirs. A report that does
   * not continue the pending one (a new period, another card) has the pending one written first.
   */
  private pendingTraffic = new Map<number, CounterReport>();
  /** The batch being written (never rejects) and its devices: a device's own write waits for it. */
  private batch: { devices: Set<number>; done: Promise<void> } | null = null;
  /**
   * Status and location reports of all devices, written together: those that arrive while a group is in flight
   * (or within `reportWindowMs` of the first) share the next transaction, and each is answered after its commit.
   */
  readonly reports: GroupCommit<DeviceReport, void>;
  /** Devices gone offline, written together (those that arrive while a group is in flight share the next). */
  readonly offlines: GroupCommit<{ deviceId: number; conn: string; reason: string }, boolean>;

  constructor(
    private db: Db,
    private events: EventSink,
    private opts: PresenceOptions,
  ) {
    this.offlines = new GroupCommit({
      windowMs: 0,
      max: 1000,
      single: async (g) => (await this.writeOfflines([g]))[0],
      flush: (gs) => this.writeOfflines(gs),
    });
    this.reports = new GroupCommit({
      windowMs: opts.reportWindowMs ?? 0,
      max: 512,
      single: (r) => this.writeReports([r]),
      flush: async (rs) => {
        await this.writeReports(rs);
        return rs.map(() => undefined);
      },
    });
  }

  /** Writes the grouped offlines and reports still queued (on stop). */
  async drain(): Promise<void> {
    await this.offlines.drain();
    await this.reports.drain();
  }

  touch(deviceId: number): void {
    this.touched.add(deviceId);
  }

  get pendingTouches(): number {
    return this.touched.size;
  }

  /**
   * Writes every last-seen time heard since the previous flush; answers the devices the database thinks offline.
   * The SIM counters are not written here but by `flushTraffic`, on its own timer: presence never waits for, nor
   * fails with, the usage roll-up. (The first batched roll-up, reverted, rolled up first and took the touched
   * devices after that: a slow or locked roll-up held every last-seen time back — long enough, under load, for
   * the sweep to take talking devices for silent — and a failed one failed the flush.)
   */
  async flush(): Promise<number[]> {
    this.publishSims();
    if (!this.touched.size) return [];
    const ids = [...this.touched];
    this.touched.clear();
    // a row another transaction holds is left for the next flush rather than waited for: the SIM roll-up's trigger
    // (0037) writes the devices naming a card, so waiting here could close a deadlock with it, and presence never
    // waits for the counters
    const { rows } = await sql<{ id: number; state: 'offline' | 'online' | 'held' }>`
      WITH l AS (SELECT id FROM devices WHERE id = ANY(${ids}::bigint[]) FOR NO KEY UPDATE SKIP LOCKED),
      u AS (UPDATE devices d SET last_seen_at = now() FROM l WHERE d.id = l.id RETURNING d.id, d.status)
      SELECT id, CASE WHEN status = 'offline' THEN 'offline' ELSE 'online' END AS state FROM u
      UNION ALL
      SELECT d.id, 'held' FROM devices d WHERE d.id = ANY(${ids}::bigint[]) AND d.id NOT IN (SELECT id FROM l)`.execute(
      this.db,
    );
    for (const r of rows) if (r.state === 'held') this.touched.add(Number(r.id));
    return rows.filter((r) => r.state === 'offline').map((r) => r.id);
  }

  /** Reports waiting for the next flush (the bench and tests read it). */
  get pendingReports(): number {
    return this.pendingTraffic.size;
  }

  /**
   * Rolls up the pending `traffic` reports now, in one statement (the gateway calls it every LAST_SEEN_FLUSH_MS,
   * on a timer of its own, and at its stop), and tells the consoles which SIMs changed. One batch at a time; a
   * failed one is logged and dropped: the counters are cumulative, so each SIM's next report adds the growth
   * that was not written (only the growth before a new plan period within the lost window is lost).
   */
  async flushTraffic(): Promise<void> {
    while (this.batch) await this.batch.done;
    if (!this.pendingTraffic.size) return;
    const reports = [...this.pendingTraffic.values()];
    this.pendingTraffic.clear();
    const devices = new Set(reports.map((r) => r.deviceId));
    const done = this.rollup(reports).then(
      () => {},
      (err: unknown) => this.opts.onRollupError?.(err),
    );
    this.batch = { devices, done };
    await done;
    this.batch = null;
    this.publishSims();
  }

  /**
   * A `traffic` report as the gateway handled it before the batching: rolled up at once, in its own statement,
   * then the telemetry sample (the bench measures the two ways side by side).
   */
  async trafficNow(deviceId: number, m: Pick<TrafficMsg, 'usedMb' | 'iccid' | 'txBytes' | 'rxBytes'>): Promise<void> {
    await this.rollupNow([{ deviceId, iccid: n(m.iccid), usedMb: m.usedMb, tx: n(m.txBytes), rx: n(m.rxBytes) }]);
    await this.sample(deviceId);
  }

  /**
   * A device's reports written now, one after the other, after the batch under way when it holds this device's
   * earlier report (the growth is computed against the stored counters: two writes of one SIM at once would
   * both count it). A device's messages are handled in order, so no later batch can hold it meanwhile.
   */
  private async rollupNow(reports: CounterReport[]): Promise<void> {
    const b = this.batch;
    if (b && reports.some((r) => b.devices.has(r.deviceId))) await b.done;
    for (const r of reports) await this.rollup([r]);
  }

  /**
   * One statement: the device row, its status log when it was offline, its firmware history and a telemetry
   * sample; then the SIM's counters; then one read of what the gateway does next (`HelloRow`: the SIM's plan,
   * whether anything waits to be sent again), so a device that reconnects with nothing waiting costs three
   * statements, not six (issue 17: every rebooted device ends in a hello). The read follows the commits, as the
   * reads it replaces did: a task committed before it, for a device it saw offline, is seen and sent again.
   *
   * Neither write waits for the disk: everything the hello writes is what the device says at each hello, and a
   * device whose hello a PostgreSQL crash forgot talks on while the database thinks it offline, which the gateway's
   * sweep answers by asking it for a hello again.
   */
  async hello(deviceId: number, m: HelloMsg): Promise<HelloRow | undefined> {
    const located = m.lat !== undefined && m.lng !== undefined;
    const province = located ? provinceAt(m.lat!, m.lng!) : null;
    const heartbeat = m.heartbeatS ?? this.opts.heartbeatS;
    const usedMb = n(m.usedMb);
    const { rows } = await sql<DeviceRow & { prev: string; prev_paper: string | null }>`${PREPARED}
      WITH o AS (SELECT id, status AS prev, paper AS prev_paper, firmware AS prev_fw FROM devices WHERE id = ${deviceId} FOR UPDATE),
      u AS (
        UPDATE devices d SET status = 'online', connected_at = now(), last_seen_at = now(), conn_id = ${m.conn},
          firmware = coalesce(nullif(${m.fw}::text, ''), d.firmware), imei = coalesce(${n(m.imei)}::text, d.imei),
          iccid = coalesce(${n(m.iccid)}::text, d.iccid), heartbeat_s = ${heartbeat}::int,
          time_zone = coalesce(${n(m.tz)}::text, d.time_zone),
          paper = coalesce(${n(m.paper)}::text, d.paper), battery = coalesce(${n(m.battery)}::smallint, d.battery),
          signal = coalesce(${n(m.signal)}::smallint, d.signal),
          lat = CASE WHEN ${located} THEN ${n(m.lat)}::float8 ELSE d.lat END,
          lng = CASE WHEN ${located} THEN ${n(m.lng)}::float8 ELSE d.lng END,
          located_at = CASE WHEN ${located} THEN now() ELSE d.located_at END,
          province = CASE WHEN ${located} THEN ${province}::text ELSE d.province END
        FROM o WHERE d.id = o.id
        RETURNING ${RETURNING}, d.iccid, o.prev, o.prev_paper
      ),
      logged AS (
        INSERT INTO device_status_log (device_id, tenant_id, status, reason)
        SELECT id, tenant_id, 'online', 'hello' FROM u WHERE prev <> 'online'
      ),
      -- issue 15: a firmware change goes to the device's history (from the release that sent that version, if one)
      fw AS (
        INSERT INTO device_firmware_history (tenant_id, device_id, from_version, to_version, source, release_id)
        SELECT u.tenant_id, u.id, o.prev_fw, u.firmware, CASE WHEN r.id IS NULL THEN 'hello' ELSE 'release' END, r.id
        FROM u JOIN o ON o.id = u.id
        LEFT JOIN LATERAL (
          SELECT ur.id FROM upgrade_devices ud JOIN upgrade_releases ur ON ur.id = ud.release_id
          JOIN packages p ON p.id = ur.package_id
          WHERE ud.device_id = u.id AND ud.task_id IS NOT NULL AND p.version_name = u.firmware
          ORDER BY ur.id DESC LIMIT 1
        ) r ON true
        WHERE u.tenant_id IS NOT NULL AND o.prev_fw <> '' AND u.firmware <> o.prev_fw
      ),
      sampled AS (
        INSERT INTO device_telemetry (device_id, tenant_id, battery, signal, paper, used_mb, lat, lng)
        SELECT u.id, u.tenant_id, u.battery, u.signal, u.paper, ${usedMb}::numeric, u.lat, u.lng FROM u
        ON CONFLICT DO NOTHING
      )
      SELECT u.* FROM u, ${NO_FLUSH_WAIT}`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    // the SIM's counters after the device row (its ICCID may have just changed): the usage roll-up, at once (the
    // answer to the hello and the device list read them), after the device's pending report when it is not
    // covered by these counters
    if (m.usedMb !== undefined) {
      const report: CounterReport = {
        deviceId,
        iccid: n(m.iccid),
        usedMb: m.usedMb,
        tx: n(m.txBytes),
        rx: n(m.rxBytes),
      };
      const pending = this.pendingTraffic.get(deviceId);
      this.pendingTraffic.delete(deviceId);
      await this.rollupNow(pending && !continues(pending, report) ? [pending, report] : [report]).catch((err) =>
        this.opts.onRollupError?.(err),
      );
    }
    this.lastSample.set(deviceId, Date.now());
    this.emit(row);
    await this.paperChanged(row, row.prev_paper);
    const { rows: next } = await sql<HelloNext>`${PREPARED}
      SELECT sim.plan_total_mb AS sim_plan_mb, sim.expires_at AS sim_expires_at, sim.iccid IS NOT NULL AS sim_known,
        -- in two, so the first can use the partial index of the resendable tasks (the second is the resend's own read)
        (EXISTS (SELECT 1 FROM device_tasks t WHERE t.device_id = ${deviceId} AND t.state IN ('queued', 'sent', 'timeout'))
          OR EXISTS (SELECT 1 FROM device_tasks t WHERE t.device_id = ${deviceId} AND t.state IN ('delivered', 'running')))
          AS tasks_open,
        EXISTS (SELECT 1 FROM print_jobs j WHERE j.device_id = ${deviceId} AND j.state IN ${OPEN_PRINTS}) AS prints_open
      FROM (SELECT 1) AS one LEFT JOIN sims sim ON sim.iccid = ${n(m.iccid)}::text`.execute(this.db);
    return { ...row, ...next[0] };
  }

  /**
   * Offline because of a last will, an explicit `offline`, or a disconnect — only when it names the current
   * connection (the id of its hello): a late will of an older connection, or a message of another client
   * that got hold of the device's topics, changes nothing. Without a connection id nothing is known, so nothing changes.
   */
  async offline(deviceId: number, conn: string | undefined, reason: string): Promise<boolean> {
    if (!conn) return false;
    this.touched.delete(deviceId);
    return this.offlines.add({ deviceId, conn, reason });
  }

  /**
   * A group of devices gone offline in one statement (a broker's restart takes thousands at once): each only if
   * still online on the connection it names; answers which were.
   */
  private async writeOfflines(gone: { deviceId: number; conn: string; reason: string }[]): Promise<boolean[]> {
    const data = JSON.stringify(gone.map((g, i) => ({ i, id: g.deviceId, conn: g.conn, reason: g.reason })));
    const { rows } = await sql<DeviceRow & { i: number }>`${PREPARED}
      WITH b AS (
        SELECT * FROM jsonb_to_recordset(${data}::jsonb) AS b(i int, id bigint, conn text, reason text)
      ), u AS (
        UPDATE devices d SET status = 'offline', connected_at = NULL
        FROM b WHERE d.id = b.id AND d.status = 'online' AND d.conn_id = b.conn
        RETURNING ${RETURNING}, b.i, b.reason
      ), logged AS (
        INSERT INTO device_status_log (device_id, tenant_id, status, reason) SELECT id, tenant_id, 'offline', reason FROM u
      )
      SELECT * FROM u`.execute(this.db);
    const out = gone.map(() => false);
    for (const { i, ...row } of rows.sort((a, b) => a.i - b.i)) {
      out[i] = true;
      this.emit(row);
    }
    return out;
  }

  /** A status report: written with those of other devices (`reports`), answered after its commit. */
  async status(deviceId: number, m: StatusMsg): Promise<void> {
    return this.reports.add({ deviceId, status: { paper: n(m.paper), battery: n(m.battery), signal: n(m.signal) } });
  }

  /** A location report: written with those of other devices (`reports`), answered after its commit. */
  async location(deviceId: number, m: LocationMsg): Promise<void> {
    return this.reports.add({ deviceId, location: { lat: m.lat, lng: m.lng, province: provinceAt(m.lat, m.lng) } });
  }

  /** A telemetry sample, when the device's last one is old enough (written with the group's reports). */
  private async sample(deviceId: number): Promise<void> {
    if ((this.lastSample.get(deviceId) ?? 0) > Date.now() - this.opts.telemetrySampleS * 1000) return;
    await this.reports.add({ deviceId });
  }

  /**
   * A group of status and location reports (and samples due) in one transaction: one UPDATE per round (a device's second report in
   * the group goes in the next round, after its first), then the telemetry samples they call for in one INSERT.
   * Console events and fault messages follow the commit, in the reports' order.
   */
  private async writeReports(reports: DeviceReport[]): Promise<void> {
    const rounds: DeviceReport[][] = [];
    const seen = new Map<number, number>();
    for (const r of reports) {
      const k = seen.get(r.deviceId) ?? 0;
      seen.set(r.deviceId, k + 1);
      (rounds[k] ??= []).push(r);
    }
    const changed: (DeviceRow & { prev_paper: string | null; st: boolean })[] = [];
    await this.db.transaction().execute(async (trx) => {
      for (const round of rounds) {
        const data = round.map((r) => ({
          id: r.deviceId,
          st: !!r.status,
          ...r.status,
          loc: !!r.location,
          ...r.location,
        }));
        // `o` is the row before the update: its paper tells whether a fault began now
        const { rows } = await sql<DeviceRow & { prev_paper: string | null; st: boolean }>`${PREPARED}
          UPDATE devices d SET
            paper = CASE WHEN b.st THEN coalesce(b.paper, d.paper) ELSE d.paper END,
            battery = CASE WHEN b.st THEN coalesce(b.battery, d.battery) ELSE d.battery END,
            signal = CASE WHEN b.st THEN coalesce(b.signal, d.signal) ELSE d.signal END,
            lat = CASE WHEN b.loc THEN b.lat ELSE d.lat END,
            lng = CASE WHEN b.loc THEN b.lng ELSE d.lng END,
            located_at = CASE WHEN b.loc THEN now() ELSE d.located_at END,
            province = CASE WHEN b.loc THEN b.province ELSE d.province END,
            last_seen_at = now()
          FROM jsonb_to_recordset(${JSON.stringify(data)}::jsonb) AS b(id bigint, st boolean, paper text, battery smallint,
            signal smallint, loc boolean, lat float8, lng float8, province text), devices o
          WHERE d.id = b.id AND o.id = d.id AND (
            (b.st AND (d.paper IS DISTINCT FROM coalesce(b.paper, d.paper) OR d.battery IS DISTINCT FROM coalesce(b.battery, d.battery)
              OR d.signal IS DISTINCT FROM coalesce(b.signal, d.signal)))
            OR (b.loc AND (d.lat IS DISTINCT FROM b.lat OR d.lng IS DISTINCT FROM b.lng)))
          RETURNING ${RETURNING}, o.paper AS prev_paper, b.st`.execute(trx);
        changed.push(...rows);
      }
      // a sample for every changed status, and for any report once the device's last sample is old enough
      const now = Date.now();
      const sampled = new Set(changed.filter((r) => r.st).map((r) => Number(r.id)));
      for (const r of reports) {
        if ((this.lastSample.get(r.deviceId) ?? 0) <= now - this.opts.telemetrySampleS * 1000) sampled.add(r.deviceId);
      }
      if (!sampled.size) return;
      for (const id of sampled) this.lastSample.set(id, now);
      await sql`${PREPARED}
        INSERT INTO device_telemetry (device_id, tenant_id, battery, signal, paper, used_mb, lat, lng)
        SELECT d.id, d.tenant_id, d.battery, d.signal, d.paper, s.used_mb, d.lat, d.lng
        FROM devices d LEFT JOIN sims s ON s.iccid = d.iccid WHERE d.id = ANY(${[...sampled]}::bigint[])
        ON CONFLICT DO NOTHING`.execute(trx);
    });
    for (const r of changed) {
      this.emit(r);
      if (r.st) await this.paperChanged(r, r.prev_paper);
    }
  }

  /**
   * A SIM's counters, rolled up at the next flush (LAST_SEEN_FLUSH_MS) with every other device's in one statement;
   * a SIM the platform does not know yet is then recorded on the device's account. The device's last-seen time
   * is the gateway's `touch`, as for any message: it never waits for the roll-up.
   */
  async traffic(deviceId: number, m: Pick<TrafficMsg, 'usedMb' | 'iccid' | 'txBytes' | 'rxBytes'>): Promise<void> {
    const report: CounterReport = { deviceId, iccid: n(m.iccid), usedMb: m.usedMb, tx: n(m.txBytes), rx: n(m.rxBytes) };
    const prev = this.pendingTraffic.get(deviceId);
    if (prev && !continues(prev, report)) {
      // a new period (or another card) since the pending report: that one is counted first, nothing is lost
      this.pendingTraffic.delete(deviceId);
      await this.rollupNow([prev]).catch((err) => this.opts.onRollupError?.(err));
    }
    this.pendingTraffic.set(deviceId, report);
    await this.sample(deviceId);
  }

  /**
   * The daily usage roll-up (issue 13), one statement per batch of reports: the growth of the modem's counters
   * since the SIM's last report is added to its row of today (local date) and to its month; a smaller counter is a
   * new plan period, counted from 0; a SIM's first report is only the baseline. Without byte counters the growth of
   * `usedMb` counts as received bytes. The series is keyed by the SIM, so it stays with the ICCID whatever device
   * the card is in. Unchanged counters write nothing. The SIM rows are locked in ICCID order (as every batch
   * does), so two batches never wait for each other in a circle. The commit does not wait for the disk (issue 17):
   * a roll-up a PostgreSQL crash forgot is one that failed, and the SIM's next report counts its growth.
   */
  private async rollup(batch: CounterReport[]): Promise<void> {
    const col = <T>(f: (r: CounterReport) => T) => batch.map(f);
    const { rows } = await sql<{ id: number; tenant_id: number | null; iccid: string }>`${PREPARED}
      WITH p AS (
        SELECT p.* FROM unnest(${col((r) => r.deviceId)}::bigint[], ${col((r) => r.iccid)}::text[],
          ${col((r) => r.usedMb)}::numeric[], ${col((r) => r.tx)}::bigint[], ${col((r) => r.rx)}::bigint[])
          AS p(device_id, iccid, used, tx, rx), ${NO_FLUSH_WAIT}
      ),
      -- one report per card (two devices naming one card in one batch: the higher device id's)
      r AS (
        SELECT DISTINCT ON (coalesce(p.iccid, d.iccid)) coalesce(p.iccid, d.iccid) AS iccid, d.tenant_id,
          d.id AS device_id, p.used, p.tx, p.rx, (now() AT TIME ZONE ${ROLLUP_ZONE})::date AS today
        FROM p JOIN devices d ON d.id = p.device_id WHERE coalesce(p.iccid, d.iccid) IS NOT NULL
        ORDER BY coalesce(p.iccid, d.iccid), d.id DESC
      ),
      delta AS (
        SELECT r.*,
          CASE WHEN c.counted_at IS NULL OR r.tx IS NULL OR c.tx_bytes IS NULL THEN 0
            WHEN r.tx >= c.tx_bytes THEN r.tx - c.tx_bytes ELSE r.tx END AS dtx,
          CASE WHEN c.counted_at IS NULL THEN 0
            WHEN r.rx IS NOT NULL THEN CASE WHEN c.rx_bytes IS NULL THEN 0 WHEN r.rx >= c.rx_bytes THEN r.rx - c.rx_bytes ELSE r.rx END
            WHEN r.tx IS NULL THEN round(CASE WHEN r.used >= c.used_mb THEN r.used - c.used_mb ELSE r.used END * 1048576)::bigint
            ELSE 0 END AS drx
        FROM r LEFT JOIN sims c ON c.iccid = r.iccid
      ),
      up AS (
        INSERT INTO sims AS s (iccid, tenant_id, device_id, used_mb, tx_bytes, rx_bytes, counted_at, month_start, month_bytes)
        SELECT iccid, tenant_id, device_id, used, tx, rx, now(), date_trunc('month', today)::date, dtx + drx FROM delta
        ORDER BY iccid
        ON CONFLICT (iccid) DO UPDATE SET used_mb = excluded.used_mb, device_id = excluded.device_id,
          tx_bytes = coalesce(excluded.tx_bytes, s.tx_bytes), rx_bytes = coalesce(excluded.rx_bytes, s.rx_bytes),
          counted_at = now(), month_start = excluded.month_start,
          month_bytes = CASE WHEN s.month_start = excluded.month_start THEN s.month_bytes ELSE 0 END + excluded.month_bytes
        WHERE s.counted_at IS NULL OR s.used_mb IS DISTINCT FROM excluded.used_mb OR s.device_id IS DISTINCT FROM excluded.device_id
          OR s.tx_bytes IS DISTINCT FROM coalesce(excluded.tx_bytes, s.tx_bytes) OR s.rx_bytes IS DISTINCT FROM coalesce(excluded.rx_bytes, s.rx_bytes)
          OR s.month_start IS DISTINCT FROM excluded.month_start
        RETURNING s.id, s.tenant_id, s.iccid
      ),
      daily AS (
        INSERT INTO sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
        SELECT up.id, delta.today, delta.dtx, delta.drx FROM up JOIN delta ON delta.iccid = up.iccid
        WHERE delta.dtx + delta.drx > 0 ORDER BY up.id
        ON CONFLICT (sim_id, day) DO UPDATE SET tx_bytes = sim_usage_daily.tx_bytes + excluded.tx_bytes,
          rx_bytes = sim_usage_daily.rx_bytes + excluded.rx_bytes
      )
      SELECT id, tenant_id, iccid FROM up`.execute(this.db);
    for (const r of rows) {
      if (r.tenant_id === null) continue;
      const set = this.simsChanged.get(r.tenant_id) ?? new Set<string>();
      set.add(r.iccid);
      this.simsChanged.set(r.tenant_id, set);
    }
  }

  /** Tells the consoles which SIMs changed since the last call: one event per account (coalesced). */
  publishSims(): void {
    for (const [tenantId, iccids] of this.simsChanged) {
      this.events.publish(tenantId, { type: 'sim', data: { iccids: [...iccids] } });
    }
    this.simsChanged.clear();
  }

  /** Online devices silent for 2.5 heartbeat intervals go offline; the UPDATE's guard makes it safe on N nodes. */
  async sweep(): Promise<number> {
    const { rows } = await sql<DeviceRow>`
      WITH gone AS (
        UPDATE devices d SET status = 'offline', connected_at = NULL
        WHERE d.status = 'online' AND d.last_seen_at < now() - interval '2.5 seconds'
          AND d.last_seen_at < now() - make_interval(secs => d.heartbeat_s * 2.5)
        RETURNING ${RETURNING}
      ), logged AS (
        INSERT INTO device_status_log (device_id, tenant_id, status, reason)
        SELECT id, tenant_id, 'offline', 'heartbeat timeout' FROM gone
      )
      SELECT * FROM gone`.execute(this.db);
    rows.forEach((r) => this.emit(r));
    return rows.length;
  }

  /**
   * The paper state of a device of an account changed: the modules hear it on the bus (the message centre opens
   * a fault episode on a change from ok, or unknown, to a fault). Only on a change: nothing on the hot path.
   */
  private async paperChanged(r: DeviceRow, prevPaper: string | null): Promise<void> {
    if (r.tenant_id === null || r.paper === prevPaper || !this.opts.bus) return;
    await this.opts.bus.emit('paper', Number(r.id), { paper: r.paper, previous: prevPaper });
  }

  private emit(r: DeviceRow): void {
    this.events.publish(r.tenant_id, {
      type: 'device',
      data: {
        id: Number(r.id),
        sn: r.sn,
        status: r.status,
        paper: r.paper,
        battery: r.battery,
        signal: r.signal,
        firmware: r.firmware,
        lastSeenAt: iso(r.last_seen_at),
        connectedAt: iso(r.connected_at),
        lat: r.lat,
        lng: r.lng,
        province: r.province,
      },
    });
  }
}
