import { sql } from 'kysely';
import {
  PERMISSIONS,
  POSITION_KEEP_DAYS,
  POSITION_MIN_INTERVAL_S,
  POSITION_MIN_MOVE_M,
  type FenceAlertOn,
  type FenceEventKind,
  type FenceSchedule,
  type FenceShape,
} from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { defineQueries, skip } from '../../../db/query-spec.ts';
import { readersOf } from '../../../lib/data-scope.ts';
import { insertEventDeliveries } from '../../integration/index.ts';

type Side = 'inside' | 'outside';

/** A fence that applies to a device, with the device's state in it (the evaluation's input). */
export interface DeviceFenceRow {
  id: number;
  tenant_id: number;
  name: string;
  shape: FenceShape;
  schedule: FenceSchedule;
  alert_on: FenceAlertOn;
  dwell_s: number;
  enabled: boolean;
  in_box: boolean;
  side: Side | null;
  since: Date | null;
  pending_side: Side | null;
  pending_since: Date | null;
  pending_lat: number | null;
  pending_lng: number | null;
}

/** A pending side change whose dwell time passed, with its fence. */
export type DueChangeRow = Omit<DeviceFenceRow, 'in_box' | 'since'> & {
  device_id: number;
  pending_side: Side;
  pending_since: Date;
};

/**
 * Every statement of the evaluation of location reports: the devices' positions (`device_positions`), their
 * state in each fence (`fence_device_state`), the confirmed changes (`fence_events`), the alert's inbox messages
 * and webhook deliveries, and what it reads of devices and device groups to find the fences of a device.
 */
export class FenceStateRepository {
  constructor(private db: Db) {}

  /**
   * The fences of the device's tenant (`tenantId` when given) that target it (directly, through its group or a
   * group above it), with whether (lng, lat) is in each one's bounding box and the device's state in it; by id.
   */
  async fencesOfDevice(deviceId: number, tenantId?: number, lng = 0, lat = 0): Promise<DeviceFenceRow[]> {
    const { rows } = await sql<DeviceFenceRow>`
      WITH RECURSIVE dv AS (
        SELECT id, tenant_id, group_id FROM devices WHERE id = ${deviceId} AND tenant_id IS NOT NULL
          AND (${tenantId ?? null}::bigint IS NULL OR tenant_id = ${tenantId ?? null}::bigint)
      ),
      anc AS (
        SELECT g.id, g.parent_id FROM device_groups g JOIN dv ON g.id = dv.group_id AND g.tenant_id = dv.tenant_id
        UNION
        SELECT p.id, p.parent_id FROM device_groups p JOIN anc ON p.id = anc.parent_id
      )
      SELECT f.id, f.tenant_id, f.name, f.shape, f.schedule, f.alert_on, f.dwell_s, f.enabled,
        (${lng}::float8 BETWEEN f.min_lng AND f.max_lng AND ${lat}::float8 BETWEEN f.min_lat AND f.max_lat) AS in_box,
        s.side, s.since, s.pending_side, s.pending_since, s.pending_lat, s.pending_lng
      FROM fences f
      JOIN dv ON f.tenant_id = dv.tenant_id
      LEFT JOIN fence_device_state s ON s.fence_id = f.id AND s.device_id = dv.id
      WHERE f.deleted_at IS NULL AND EXISTS (
        SELECT 1 FROM fence_targets t WHERE t.fence_id = f.id
          AND (t.device_id = dv.id OR t.group_id IN (SELECT id FROM anc)))
      ORDER BY f.id`.execute(this.db);
    return rows;
  }

  /**
   * Stores a position when the device moved at least POSITION_MIN_MOVE_M from its last stored one
   * (equirectangular distance, exact enough at 10 m) or POSITION_MIN_INTERVAL_S passed since it.
   */
  async storePosition(deviceId: number, lat: number, lng: number, accuracyM: number | null): Promise<void> {
    await sql`
      INSERT INTO device_positions (device_id, at, lat, lng, accuracy_m)
      SELECT ${deviceId}, clock_timestamp(), ${lat}::float8, ${lng}::float8, ${accuracyM}::real
      WHERE NOT EXISTS (
        SELECT 1 FROM (SELECT at, lat, lng FROM device_positions WHERE device_id = ${deviceId} ORDER BY at DESC LIMIT 1) l
        WHERE l.at > now() - make_interval(secs => ${POSITION_MIN_INTERVAL_S})
          AND sqrt(power((l.lat - ${lat}::float8) * 111320, 2)
            + power((l.lng - ${lng}::float8) * 111320 * cos(radians(${lat}::float8)), 2)) < ${POSITION_MIN_MOVE_M})
      ON CONFLICT DO NOTHING`.execute(this.db);
  }

  /** The device's first side in each of these fences (a baseline; a state row already there stays). */
  async insertBaselines(deviceId: number, baselines: Array<{ fence: number; tenant: number; side: string }>) {
    await sql`
        INSERT INTO fence_device_state (fence_id, device_id, tenant_id, side)
        SELECT f, ${deviceId}, t, s FROM unnest(${baselines.map((b) => b.fence)}::bigint[], ${baselines.map((b) => b.tenant)}::bigint[],
          ${baselines.map((b) => b.side)}::text[]) AS x(f, t, s)
        ON CONFLICT DO NOTHING`.execute(this.db);
  }

  /** Forgets the device's pending changes in these fences (it came back before the dwell time passed). */
  async forgetPending(deviceId: number, fenceIds: number[]): Promise<void> {
    await sql`UPDATE fence_device_state SET pending_side = NULL, pending_since = NULL, pending_lat = NULL, pending_lng = NULL
        WHERE device_id = ${deviceId} AND fence_id = ANY(${fenceIds}::bigint[]) AND pending_side IS NOT NULL`.execute(
      this.db,
    );
  }

  /** Notes the device's new pending side in each fence (where it still is on the other side), since `now`. */
  async setPending(
    deviceId: number,
    pending: Array<{ fence: number; side: string }>,
    now: Date,
    pos: { lat: number; lng: number },
  ): Promise<void> {
    await sql`UPDATE fence_device_state s SET pending_side = x.side, pending_since = ${now}, pending_lat = ${pos.lat}, pending_lng = ${pos.lng}
        FROM unnest(${pending.map((p) => p.fence)}::bigint[], ${pending.map((p) => p.side)}::text[]) AS x(fence, side)
        WHERE s.fence_id = x.fence AND s.device_id = ${deviceId} AND s.side <> x.side`.execute(this.db);
  }

  /**
   * A confirmed side change: the state and the event in one statement that only one node can win (the state must
   * still be on the other side). Whether this call won.
   */
  async confirmChange(
    fenceId: number,
    deviceId: number,
    side: Side,
    at: Date,
    pos: { lat: number; lng: number },
  ): Promise<boolean> {
    const kind: FenceEventKind = side === 'inside' ? 'enter' : 'leave';
    const { rows } = await sql<{ id: number }>`
      WITH u AS (
        UPDATE fence_device_state SET side = ${side}, since = ${at}, pending_side = NULL, pending_since = NULL,
          pending_lat = NULL, pending_lng = NULL, changed_at = now()
        WHERE fence_id = ${fenceId} AND device_id = ${deviceId} AND side <> ${side}
        RETURNING fence_id, device_id, tenant_id
      )
      INSERT INTO fence_events (tenant_id, fence_id, device_id, kind, at, lat, lng)
      SELECT tenant_id, fence_id, device_id, ${kind}, ${at}, ${pos.lat}::float8, ${pos.lng}::float8 FROM u
      RETURNING id`.execute(this.db);
    return rows.length > 0;
  }

  /** The device's id, serial number and name, or undefined. */
  deviceLabel(deviceId: number) {
    return this.db.selectFrom('devices').select(['id', 'sn', 'name']).where('id', '=', deviceId).executeTakeFirst();
  }

  /**
   * The alert's message to each active user of the device's tenant who reads fences — the main account, and
   * those holding fence:view whose data scope reaches the device (the rule of the device-fault messages) — in one
   * statement; the tenant and user of each.
   */
  async insertReaderMessages(
    deviceId: number,
    title: string,
    body: string,
    link: string,
  ): Promise<Array<{ tenant_id: number; user_id: number }>> {
    const { rows } = await sql<{ tenant_id: number; user_id: number }>`
    with d as (
      select id, tenant_id, department_id, owner_id from devices where id = ${deviceId} and tenant_id is not null
    )
    insert into messages (tenant_id, user_id, kind, title, body, link)
    select d.tenant_id, u.id, 'fence.alert', ${title}, ${body}, ${link}
    from d join lateral (${readersOf({
      tenantId: sql.ref('d.tenant_id'),
      departmentId: sql.ref('d.department_id'),
      ownerId: sql.ref('d.owner_id'),
      permission: PERMISSIONS.fenceView,
    })}) u on true
    returning tenant_id, user_id`.execute(this.db);
    return rows;
  }

  /** The webhook deliveries of the event to the tenant's subscribed endpoints; their ids. */
  webhookDeliveries(tenantId: number, event: string, payload: Record<string, unknown>): Promise<string[]> {
    return insertEventDeliveries(this.db, tenantId, event, payload);
  }

  /** The target devices of a fence (not deleted) that have a known position. */
  async targetsWithPosition(fenceId: number): Promise<Array<{ id: number; lat: number; lng: number }>> {
    const { rows } = await sql<{ id: number; lat: number; lng: number }>`
      WITH RECURSIVE f AS (SELECT id, tenant_id FROM fences WHERE id = ${fenceId} AND deleted_at IS NULL),
      g AS (
        SELECT t.group_id AS id FROM fence_targets t WHERE t.fence_id = ${fenceId} AND t.group_id IS NOT NULL
        UNION
        SELECT c.id FROM device_groups c JOIN g ON c.parent_id = g.id
      )
      SELECT d.id, d.lat, d.lng FROM devices d JOIN f ON d.tenant_id = f.tenant_id
      WHERE d.lat IS NOT NULL AND d.lng IS NOT NULL AND (
        d.id IN (SELECT device_id FROM fence_targets WHERE fence_id = ${fenceId} AND device_id IS NOT NULL)
        OR d.group_id IN (SELECT id FROM g))`.execute(this.db);
    return rows;
  }

  /** Pending changes of enabled fences whose dwell time passed, oldest first (at most 1,000). */
  async dueChanges(): Promise<DueChangeRow[]> {
    const { rows } = await sql<DueChangeRow>`
      SELECT f.id, f.tenant_id, f.name, f.shape, f.schedule, f.alert_on, f.dwell_s, f.enabled, s.device_id,
        s.side, s.pending_side, s.pending_since, s.pending_lat, s.pending_lng
      FROM fence_device_state s JOIN fences f ON f.id = s.fence_id
      WHERE s.pending_side IS NOT NULL AND f.deleted_at IS NULL AND f.enabled
        AND s.pending_since <= now() - make_interval(secs => f.dwell_s)
      ORDER BY s.pending_since
      LIMIT 1000`.execute(this.db);
    return rows;
  }

  /** Deletes positions older than POSITION_KEEP_DAYS in batches, by one node at a time (advisory lock); how many. */
  prunePositions(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(16031) AS ok`.execute(trx);
      if (!rows[0]?.ok) return 0;
      let total = 0;
      for (let i = 0; i < 100; i++) {
        const r = await sql`
          DELETE FROM device_positions WHERE ctid IN (
            SELECT ctid FROM device_positions WHERE at < now() - make_interval(days => ${POSITION_KEEP_DAYS}) LIMIT 10000)`.execute(
          trx,
        );
        const n = Number(r.numAffectedRows ?? 0);
        total += n;
        if (n < 10000) break;
      }
      return total;
    });
  }
}

const at = new Date('2026-01-01T08:30:00Z');

export const stateQueries = defineQueries(FenceStateRepository, {
  fencesOfDevice: [
    [41, undefined, 121.4737, 31.2304],
    [41, 3],
  ],
  storePosition: [
    [41, 31.2304, 121.4737, 8.5],
    [41, 31.2304, 121.4737, null],
  ],
  insertBaselines: [
    [
      41,
      [
        { fence: 12, tenant: 3, side: 'inside' },
        { fence: 13, tenant: 3, side: 'outside' },
      ],
    ],
  ],
  forgetPending: [[41, [12, 13]]],
  setPending: [[41, [{ fence: 12, side: 'outside' }], at, { lat: 31.2304, lng: 121.4737 }]],
  confirmChange: [
    [12, 41, 'outside', at, { lat: 31.2304, lng: 121.4737 }],
    [12, 41, 'inside', at, { lat: 31.2304, lng: 121.4737 }],
  ],
  deviceLabel: [[41]],
  insertReaderMessages: [
    [41, 'Device left a fence', 'Warehouse 2 · PR-0041 · 121.473700, 31.230400', '/fence/index?id=12'],
  ],
  webhookDeliveries: skip('inserts through the integration module’s insertEventDeliveries: those statements are its'),
  targetsWithPosition: [[12]],
  dueChanges: [[]],
  prunePositions: [{ args: [], results: [[{ ok: true }], []] }],
});
