import { sql, type RawBuilder } from 'kysely';
import {
  FENCE_DWELL_MAX_S,
  FENCE_MAX_PER_TENANT,
  FENCE_MAX_VERTICES,
  FENCE_RADIUS_MAX_M,
  FENCE_RADIUS_MIN_M,
  GCJ02_TILE_HOSTS,
  PERMISSIONS,
  POSITION_KEEP_DAYS,
  POSITION_MIN_INTERVAL_S,
  POSITION_MIN_MOVE_M,
  type DeviceFences,
  type FenceAlertOn,
  type FenceCounts,
  type FenceCreateParams,
  type FenceDetail,
  type FenceDeviceRow,
  type FenceEventItem,
  type FenceEventKind,
  type FenceItem,
  type FenceMapSettings,
  type FenceSchedule,
  type FenceShape,
  type FenceSide,
  type FenceTrack,
  type FenceUpdateParams,
  type FenceWebhookPayload,
  type MapTileCrs,
  type Paged,
} from '@cpc/contracts';
import { MESSAGES } from '@cpc/contracts/messages';
import type { LocationMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { deviceInScope, inDataScope, readersOf, type DataAccess } from '../../lib/data-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../task/index.ts';
import { insertEventDeliveries } from '../integration/index.ts';
import { bboxOf, contains, normalizeShape, scheduleActive } from './geometry.ts';

/** Who asks: the tenant's scope, the user, the client address and the user's data scope. */
export interface FenceCaller {
  tenantId: number;
  userId: number;
  ip: string;
  scope: TenantScope;
  access: DataAccess;
}

/** Hands webhook deliveries to the sender once their rows are committed. */
export interface WebhookQueue {
  enqueue(deliveryIds: string[]): void;
}

export interface MapConfig {
  MAP_TILE_URL?: string;
  MAP_TILE_CRS?: MapTileCrs;
  MAP_TILE_ATTRIBUTION?: string;
  MAP_TILE_SUBDOMAINS?: string;
}

interface FenceRow {
  id: number;
  tenant_id: number;
  name: string;
  shape: FenceShape;
  min_lng: number;
  min_lat: number;
  max_lng: number;
  max_lat: number;
  schedule: FenceSchedule;
  alert_on: FenceAlertOn;
  dwell_s: number;
  enabled: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** A fence that applies to a device, with the device's state in it (the evaluation's input). */
interface DeviceFenceRow {
  id: number;
  tenant_id: number;
  name: string;
  shape: FenceShape;
  schedule: FenceSchedule;
  alert_on: FenceAlertOn;
  dwell_s: number;
  enabled: boolean;
  in_box: boolean;
  side: 'inside' | 'outside' | null;
  since: Date | null;
  pending_side: 'inside' | 'outside' | null;
  pending_since: Date | null;
  pending_lat: number | null;
  pending_lng: number | null;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null | undefined) => (d == null ? null : iso(d));
const alerts = (rule: FenceAlertOn, kind: FenceEventKind) =>
  rule === 'both' || (rule === 'leave') === (kind === 'leave');

/** Default `tileCrs` of a tile URL: GCJ-02 for the Chinese providers' hosts, WGS-84 otherwise. */
export function defaultTileCrs(url: string | undefined): MapTileCrs {
  if (!url) return 'wgs84';
  let host: string;
  try {
    host = new URL(url.replace(/\{[a-z]+\}/gi, 'x')).hostname.toLowerCase();
  } catch {
    return 'wgs84';
  }
  return GCJ02_TILE_HOSTS.some((h) => host === h || host.endsWith(`.${h}`)) ? 'gcj02' : 'wgs84';
}

/**
 * Geofencing (issue 16). Fences are the tenant's (data scope applies to the devices shown in and through them);
 * each location report of a device is evaluated against the fences that target it (directly or through its group
 * and the groups above it) and apply now (enabled, schedule active): a side change counts once the device stayed
 * on the new side for the fence's dwell time — the state row keeps the pending side and since when, a later
 * report or the periodic check (`confirmDue`) confirms it. A confirmed change is a `fence_events` row; when the
 * fence's rule asks for it, also a message to the tenant's readers, a live `fence` event and a signed webhook.
 */
export class FenceService {
  constructor(
    private db: Db,
    private events: EventSink | undefined,
    private webhooks: WebhookQueue | undefined,
    private map: MapConfig = {},
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // Map settings

  mapSettings(): FenceMapSettings {
    const url = this.map.MAP_TILE_URL || null;
    const subdomains = this.map.MAP_TILE_SUBDOMAINS
      ? this.map.MAP_TILE_SUBDOMAINS.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : url?.includes('{s}')
        ? ['a', 'b', 'c']
        : [];
    return {
      tileUrl: url,
      tileCrs: this.map.MAP_TILE_CRS ?? defaultTileCrs(url ?? undefined),
      attribution: this.map.MAP_TILE_ATTRIBUTION ?? '',
      subdomains,
      limits: {
        maxVertices: FENCE_MAX_VERTICES,
        radiusMinM: FENCE_RADIUS_MIN_M,
        radiusMaxM: FENCE_RADIUS_MAX_M,
        dwellMaxS: FENCE_DWELL_MAX_S,
        maxFences: FENCE_MAX_PER_TENANT,
      },
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading

  private fenceRow(scope: TenantScope, id: number) {
    return scope
      .selectFrom('fences')
      .selectAll('fences')
      .where('fences.id', '=', id)
      .where('fences.deleted_at', 'is', null)
      .executeTakeFirst() as unknown as Promise<FenceRow | undefined>;
  }

  /** The target devices of fences (direct, and through their groups and sub-groups) in the caller's data scope. */
  private targetDevices(u: FenceCaller, fenceIds: number[]): RawBuilder<{ fence_id: number; device_id: number }> {
    return sql<{ fence_id: number; device_id: number }>`(
      WITH RECURSIVE g AS (
        SELECT t.fence_id, t.group_id AS id FROM fence_targets t
        WHERE t.tenant_id = ${u.tenantId} AND t.fence_id = ANY(${fenceIds}::bigint[]) AND t.group_id IS NOT NULL
        UNION
        SELECT g.fence_id, c.id FROM device_groups c JOIN g ON c.parent_id = g.id WHERE c.tenant_id = ${u.tenantId}
      ),
      td AS (
        SELECT t.fence_id, t.device_id FROM fence_targets t
        WHERE t.tenant_id = ${u.tenantId} AND t.fence_id = ANY(${fenceIds}::bigint[]) AND t.device_id IS NOT NULL
        UNION
        SELECT g.fence_id, dv.id FROM g JOIN devices dv ON dv.group_id = g.id AND dv.tenant_id = ${u.tenantId}
      )
      SELECT td.fence_id, td.device_id FROM td JOIN devices devices ON devices.id = td.device_id
      WHERE devices.tenant_id = ${u.tenantId} AND ${inDataScope(u.access, 'devices')})`;
  }

  private async counts(u: FenceCaller, fenceIds: number[]): Promise<Map<number, FenceCounts>> {
    const out = new Map<number, FenceCounts>(
      fenceIds.map((id) => [id, { devices: 0, inside: 0, outside: 0, unknown: 0 }]),
    );
    if (!fenceIds.length) return out;
    const { rows } = await sql<{ fence_id: number; devices: number; inside: number; outside: number }>`
      SELECT x.fence_id, count(*)::int AS devices,
        count(*) FILTER (WHERE s.side = 'inside')::int AS inside,
        count(*) FILTER (WHERE s.side = 'outside')::int AS outside
      FROM ${this.targetDevices(u, fenceIds)} x
      LEFT JOIN fence_device_state s ON s.fence_id = x.fence_id AND s.device_id = x.device_id
      GROUP BY x.fence_id`.execute(this.db);
    for (const r of rows) {
      out.set(Number(r.fence_id), {
        devices: r.devices,
        inside: r.inside,
        outside: r.outside,
        unknown: r.devices - r.inside - r.outside,
      });
    }
    return out;
  }

  /** The explicit targets of fences: groups, and the devices in the caller's data scope (the others stay hidden). */
  private async targetsOf(u: FenceCaller, fenceIds: number[]) {
    const out = new Map<number, { deviceIds: number[]; groupIds: number[] }>(
      fenceIds.map((id) => [id, { deviceIds: [], groupIds: [] }]),
    );
    if (!fenceIds.length) return out;
    const rows = await u.scope
      .selectFrom('fence_targets')
      .select(['fence_targets.fence_id', 'fence_targets.device_id', 'fence_targets.group_id'])
      .where('fence_targets.fence_id', 'in', fenceIds)
      .where(sql<boolean>`(fence_targets.device_id IS NULL OR ${deviceInScope(u.access, 'fence_targets.device_id')})`)
      .orderBy('fence_targets.id')
      .execute();
    for (const r of rows) {
      const t = out.get(Number(r.fence_id))!;
      if (r.device_id != null) t.deviceIds.push(Number(r.device_id));
      if (r.group_id != null) t.groupIds.push(Number(r.group_id));
    }
    return out;
  }

  private item(
    r: FenceRow,
    targets: { deviceIds: number[]; groupIds: number[] },
    counts: FenceCounts,
    now: Date,
  ): FenceItem {
    return {
      id: Number(r.id),
      name: r.name,
      shape: r.shape,
      bbox: [r.min_lng, r.min_lat, r.max_lng, r.max_lat],
      schedule: r.schedule,
      alertOn: r.alert_on,
      dwellS: r.dwell_s,
      enabled: r.enabled,
      activeNow: r.enabled && scheduleActive(r.schedule, now),
      deviceIds: targets.deviceIds,
      groupIds: targets.groupIds,
      counts,
      version: r.version,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    };
  }

  async list(
    u: FenceCaller,
    q: { pageNo: number; pageSize: number; keyword?: string; enabled?: boolean },
  ): Promise<Paged<FenceItem>> {
    let base = u.scope.selectFrom('fences').where('fences.deleted_at', 'is', null);
    if (q.keyword) base = base.where('fences.name', 'ilike', `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`);
    if (q.enabled !== undefined) base = base.where('fences.enabled', '=', q.enabled);
    const [rows, total] = await Promise.all([
      base
        .selectAll('fences')
        .orderBy('fences.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute() as unknown as Promise<FenceRow[]>,
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    const ids = rows.map((r) => Number(r.id));
    const [targets, counts] = await Promise.all([this.targetsOf(u, ids), this.counts(u, ids)]);
    const now = new Date();
    return {
      list: rows.map((r) => this.item(r, targets.get(Number(r.id))!, counts.get(Number(r.id))!, now)),
      total: total.n,
    };
  }

  async detail(u: FenceCaller, id: number): Promise<FenceDetail> {
    const r = await this.fenceRow(u.scope, id);
    if (!r) throw notFound('fence');
    const [targets, counts] = await Promise.all([this.targetsOf(u, [id]), this.counts(u, [id])]);
    const t = targets.get(id)!;
    const [devices, groups] = await Promise.all([
      t.deviceIds.length
        ? u.scope
            .selectFrom('devices')
            .select(['devices.id', 'devices.sn', 'devices.name'])
            .where('devices.id', 'in', t.deviceIds)
            .where(inDataScope(u.access))
            .orderBy('devices.id')
            .execute()
        : [],
      t.groupIds.length
        ? u.scope
            .selectFrom('device_groups')
            .select(['device_groups.id', 'device_groups.name'])
            .where('device_groups.id', 'in', t.groupIds)
            .orderBy('device_groups.id')
            .execute()
        : [],
    ]);
    return {
      ...this.item(r, t, counts.get(id)!, new Date()),
      devices: devices.map((d) => ({ id: Number(d.id), sn: d.sn, name: d.name })),
      groups: groups.map((g) => ({ id: Number(g.id), name: g.name })),
    };
  }

  async devices(
    u: FenceCaller,
    q: { id: number; pageNo: number; pageSize: number; side?: FenceSide; keyword?: string },
  ): Promise<Paged<FenceDeviceRow>> {
    if (!(await this.fenceRow(u.scope, q.id))) throw notFound('fence');
    const sideFilter =
      q.side === undefined ? sql`true` : q.side === 'unknown' ? sql`s.side IS NULL` : sql`s.side = ${q.side}`;
    const kw = q.keyword ? `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%` : null;
    const { rows } = await sql<{
      id: number;
      sn: string;
      name: string;
      status: string;
      lat: number | null;
      lng: number | null;
      located_at: Date | null;
      side: 'inside' | 'outside' | null;
      since: Date | null;
      pending_side: 'inside' | 'outside' | null;
      pending_since: Date | null;
      total: number;
    }>`
      SELECT d.id, d.sn, d.name, d.status, d.lat, d.lng, d.located_at, s.side, s.since, s.pending_side, s.pending_since,
        count(*) OVER ()::int AS total
      FROM ${this.targetDevices(u, [q.id])} x
      JOIN devices d ON d.id = x.device_id
      LEFT JOIN fence_device_state s ON s.fence_id = x.fence_id AND s.device_id = x.device_id
      WHERE ${sideFilter} AND (${kw}::text IS NULL OR d.sn ILIKE ${kw} OR d.name ILIKE ${kw})
      ORDER BY d.id
      LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db);
    let total = rows[0]?.total ?? 0;
    if (!rows.length && q.pageNo > 1) {
      const { rows: c } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM ${this.targetDevices(u, [q.id])} x
        JOIN devices d ON d.id = x.device_id
        LEFT JOIN fence_device_state s ON s.fence_id = x.fence_id AND s.device_id = x.device_id
        WHERE ${sideFilter} AND (${kw}::text IS NULL OR d.sn ILIKE ${kw} OR d.name ILIKE ${kw})`.execute(this.db);
      total = c[0]?.n ?? 0;
    }
    return {
      list: rows.map((r) => ({
        deviceId: Number(r.id),
        sn: r.sn,
        name: r.name,
        online: r.status === 'online',
        side: r.side ?? 'unknown',
        since: isoOrNull(r.since),
        pending: r.pending_side && r.pending_since ? { side: r.pending_side, since: iso(r.pending_since) } : null,
        lastPosition:
          r.lat != null && r.lng != null && r.located_at
            ? { lat: r.lat, lng: r.lng, accuracyM: null, at: iso(r.located_at) }
            : null,
      })),
      total,
    };
  }

  async eventList(
    u: FenceCaller,
    q: {
      pageNo: number;
      pageSize: number;
      fenceId?: number;
      deviceId?: number;
      kind?: FenceEventKind;
      from?: string;
      to?: string;
    },
  ): Promise<Paged<FenceEventItem>> {
    let base = u.scope
      .selectFrom('fence_events')
      .innerJoin('fences', 'fences.id', 'fence_events.fence_id')
      .innerJoin('devices', 'devices.id', 'fence_events.device_id')
      .where(deviceInScope(u.access, 'fence_events.device_id'));
    if (q.fenceId) base = base.where('fence_events.fence_id', '=', q.fenceId);
    if (q.deviceId) base = base.where('fence_events.device_id', '=', q.deviceId);
    if (q.kind) base = base.where('fence_events.kind', '=', q.kind);
    if (q.from) base = base.where('fence_events.at', '>=', new Date(q.from));
    if (q.to) base = base.where('fence_events.at', '<', new Date(q.to));
    const [rows, total] = await Promise.all([
      base
        .select([
          'fence_events.id',
          'fence_events.fence_id',
          'fences.name as fence_name',
          'fence_events.device_id',
          'devices.sn',
          'devices.name as device_name',
          'fence_events.kind',
          'fence_events.at',
          'fence_events.lat',
          'fence_events.lng',
        ])
        .orderBy('fence_events.at', 'desc')
        .orderBy('fence_events.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      list: rows.map((r) => ({
        id: Number(r.id),
        fenceId: Number(r.fence_id),
        fenceName: r.fence_name,
        deviceId: Number(r.device_id),
        deviceSn: r.sn,
        deviceName: r.device_name,
        kind: r.kind,
        at: iso(r.at),
        lat: r.lat,
        lng: r.lng,
      })),
      total: total.n,
    };
  }

  /** The device (in the caller's reach, else 404) with its last position. */
  private async device(u: FenceCaller, deviceId: number) {
    const d = await u.scope
      .selectFrom('devices')
      .select(['devices.id', 'devices.lat', 'devices.lng', 'devices.located_at'])
      .where('devices.id', '=', deviceId)
      .where(inDataScope(u.access))
      .executeTakeFirst();
    if (!d) throw notFound('device');
    return d;
  }

  async deviceFences(u: FenceCaller, deviceId: number): Promise<DeviceFences> {
    await this.device(u, deviceId);
    const rows = await this.fencesOfDevice(deviceId, u.tenantId);
    const now = new Date();
    return {
      list: rows.map((r) => ({
        fenceId: Number(r.id),
        name: r.name,
        shape: r.shape,
        alertOn: r.alert_on,
        enabled: r.enabled,
        activeNow: r.enabled && scheduleActive(r.schedule, now),
        side: r.side ?? 'unknown',
        since: isoOrNull(r.since),
      })),
    };
  }

  async track(u: FenceCaller, deviceId: number, hours: number): Promise<FenceTrack> {
    const d = await this.device(u, deviceId);
    const rows = await this.db
      .selectFrom('device_positions')
      .select(['at', 'lat', 'lng', 'accuracy_m'])
      .where('device_id', '=', deviceId)
      .where('at', '>', sql<Date>`now() - make_interval(hours => ${hours})`)
      .orderBy('at')
      .limit(20_000)
      .execute();
    return {
      deviceId,
      hours,
      positions: rows.map((r) => ({ lat: r.lat, lng: r.lng, accuracyM: r.accuracy_m, at: iso(r.at) })),
      last:
        d.lat != null && d.lng != null && d.located_at
          ? { lat: d.lat, lng: d.lng, accuracyM: null, at: iso(d.located_at) }
          : null,
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Changes

  /** The explicit devices (each in the caller's reach, else 404 naming `deviceIds`) and groups (else 404). */
  private async checkTargets(u: FenceCaller, deviceIds: number[], groupIds: number[]): Promise<void> {
    if (deviceIds.length) {
      const found = await u.scope
        .selectFrom('devices')
        .select('devices.id')
        .where('devices.id', 'in', deviceIds)
        .where(inDataScope(u.access))
        .execute();
      if (found.length !== deviceIds.length)
        throw new AppError(404, 'http.notFound', { what: 'device' }, { field: 'deviceIds' });
    }
    if (groupIds.length) {
      const found = await u.scope
        .selectFrom('device_groups')
        .select('device_groups.id')
        .where('device_groups.id', 'in', groupIds)
        .execute();
      if (found.length !== groupIds.length)
        throw new AppError(404, 'http.notFound', { what: 'group' }, { field: 'groupIds' });
    }
  }

  private async writeTargets(
    tx: TenantScope,
    u: FenceCaller,
    fenceId: number,
    deviceIds: number[] | undefined,
    groupIds: number[] | undefined,
  ): Promise<void> {
    if (deviceIds) {
      // a device target outside the caller's data scope (set by someone who sees it) is kept
      await tx
        .deleteFrom('fence_targets')
        .where('fence_targets.fence_id', '=', fenceId)
        .where('fence_targets.device_id', 'is not', null)
        .where(
          sql<boolean>`fence_targets.device_id IN (SELECT devices.id FROM devices WHERE devices.tenant_id = ${u.tenantId} AND ${inDataScope(u.access)})`,
        )
        .execute();
      const kept = await tx
        .selectFrom('fence_targets')
        .select('fence_targets.device_id')
        .where('fence_targets.fence_id', '=', fenceId)
        .where('fence_targets.device_id', 'is not', null)
        .execute();
      const have = new Set(kept.map((k) => Number(k.device_id)));
      const add = deviceIds.filter((d) => !have.has(d));
      if (add.length)
        await tx
          .insertInto(
            'fence_targets',
            add.map((device_id) => ({ fence_id: fenceId, device_id })),
          )
          .execute();
    }
    if (groupIds) {
      await tx
        .deleteFrom('fence_targets')
        .where('fence_targets.fence_id', '=', fenceId)
        .where('fence_targets.group_id', 'is not', null)
        .execute();
      if (groupIds.length)
        await tx
          .insertInto(
            'fence_targets',
            groupIds.map((group_id) => ({ fence_id: fenceId, group_id })),
          )
          .execute();
    }
  }

  async create(u: FenceCaller, body: FenceCreateParams): Promise<{ id: number }> {
    const shape = normalizeShape(body.shape);
    const [minLng, minLat, maxLng, maxLat] = bboxOf(shape);
    await this.checkTargets(u, body.deviceIds, body.groupIds);
    const id = await u.scope
      .transaction(async (tx) => {
        // one creation at a time per tenant: the count below stays true until the insert commits
        await sql`SELECT pg_advisory_xact_lock(16030, ${u.tenantId}::int)`.execute(tx.db);
        const { n } = await tx
          .selectFrom('fences')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('fences.deleted_at', 'is', null)
          .executeTakeFirstOrThrow();
        if (n >= FENCE_MAX_PER_TENANT) throw new AppError(409, 'fence.tooMany', { max: FENCE_MAX_PER_TENANT });
        const row = await tx
          .insertInto('fences', {
            name: body.name,
            shape: JSON.stringify(shape),
            min_lng: minLng,
            min_lat: minLat,
            max_lng: maxLng,
            max_lat: maxLat,
            schedule: JSON.stringify(body.schedule),
            alert_on: body.alertOn,
            dwell_s: body.dwellS,
            enabled: body.enabled,
            created_by: u.userId,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const fenceId = Number(row.id);
        await this.writeTargets(tx, u, fenceId, body.deviceIds, body.groupIds);
        await audit(tx.db, {
          tenantId: u.tenantId,
          userId: u.userId,
          ip: u.ip,
          action: 'fence.create',
          resource: 'fence',
          resourceId: fenceId,
          result: 'ok',
          subject: body.name,
          changes: changedFields(
            {},
            {
              name: body.name,
              shape,
              schedule: body.schedule,
              alertOn: body.alertOn,
              dwellS: body.dwellS,
              enabled: body.enabled,
              deviceIds: body.deviceIds,
              groupIds: body.groupIds,
            },
          ),
        });
        return fenceId;
      })
      .catch(nameTaken(body.name));
    // the targets' last known positions give each device its side at once (a baseline: no event)
    await this.reevaluate(id, false);
    this.events?.publish(u.tenantId, { type: 'fence', data: { id } });
    return { id };
  }

  async update(u: FenceCaller, body: FenceUpdateParams): Promise<{ id: number; version: number }> {
    const before = await this.fenceRow(u.scope, body.id);
    if (!before) throw notFound('fence');
    if (body.version !== undefined && body.version !== before.version) throw new AppError(409, 'fence.stale');
    const shape = body.shape ? normalizeShape(body.shape) : undefined;
    await this.checkTargets(u, body.deviceIds ?? [], body.groupIds ?? []);
    const beforeTargets = (await this.targetsOf(u, [body.id])).get(body.id)!;
    const after: Record<string, unknown> = {};
    if (body.name !== undefined) after.name = body.name;
    if (shape) after.shape = shape;
    if (body.schedule) after.schedule = body.schedule;
    if (body.alertOn) after.alertOn = body.alertOn;
    if (body.dwellS !== undefined) after.dwellS = body.dwellS;
    if (body.enabled !== undefined) after.enabled = body.enabled;
    if (body.deviceIds) after.deviceIds = body.deviceIds;
    if (body.groupIds) after.groupIds = body.groupIds;
    const beforeView: Record<string, unknown> = {
      name: before.name,
      shape: before.shape,
      schedule: before.schedule,
      alertOn: before.alert_on,
      dwellS: before.dwell_s,
      enabled: before.enabled,
      deviceIds: beforeTargets.deviceIds,
      groupIds: beforeTargets.groupIds,
    };
    const version = await u.scope
      .transaction(async (tx) => {
        const box = shape ? bboxOf(shape) : undefined;
        const row = await tx
          .updateTable('fences')
          .set({
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(shape && box
              ? {
                  shape: JSON.stringify(shape),
                  min_lng: box[0],
                  min_lat: box[1],
                  max_lng: box[2],
                  max_lat: box[3],
                }
              : {}),
            ...(body.schedule ? { schedule: JSON.stringify(body.schedule) } : {}),
            ...(body.alertOn ? { alert_on: body.alertOn } : {}),
            ...(body.dwellS !== undefined ? { dwell_s: body.dwellS } : {}),
            ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
            version: sql<number>`version + 1`,
            updated_at: sql<Date>`now()`,
          })
          .where('fences.id', '=', body.id)
          .where('fences.deleted_at', 'is', null)
          .where('fences.version', '=', before.version)
          .returning('version')
          .executeTakeFirst();
        if (!row) throw new AppError(409, 'fence.stale');
        await this.writeTargets(tx, u, body.id, body.deviceIds, body.groupIds);
        // devices no longer targeted lose their state in the fence
        await sql`
          DELETE FROM fence_device_state s WHERE s.fence_id = ${body.id}
          AND s.device_id NOT IN (SELECT x.device_id FROM ${this.targetDevices({ ...u, access: { ...u.access, scope: 'all' } }, [body.id])} x)`.execute(
          tx.db,
        );
        // pending changes of a new shape or dwell are judged again from the next report
        if (shape || body.dwellS !== undefined)
          await sql`UPDATE fence_device_state SET pending_side = NULL, pending_since = NULL, pending_lat = NULL, pending_lng = NULL
            WHERE fence_id = ${body.id} AND pending_side IS NOT NULL`.execute(tx.db);
        await audit(tx.db, {
          tenantId: u.tenantId,
          userId: u.userId,
          ip: u.ip,
          action: 'fence.update',
          resource: 'fence',
          resourceId: body.id,
          result: 'ok',
          subject: body.name ?? before.name,
          changes: changedFields(beforeView, after),
        });
        return row.version;
      })
      .catch(nameTaken(body.name ?? before.name));
    // the targets' current positions against the fence as it is now: a device on the other side of the new edge
    // is confirmed there at once (an edit is deliberate; the dwell time is for GPS jitter)
    await this.reevaluate(body.id, true);
    this.events?.publish(u.tenantId, { type: 'fence', data: { id: body.id } });
    return { id: body.id, version };
  }

  async remove(u: FenceCaller, ids: number[]): Promise<{ deleted: number }> {
    const rows = await u.scope
      .selectFrom('fences')
      .select(['fences.id', 'fences.name'])
      .where('fences.id', 'in', ids)
      .where('fences.deleted_at', 'is', null)
      .execute();
    if (rows.length !== new Set(ids).size) throw notFound('fence');
    await u.scope.transaction(async (tx) => {
      await tx
        .updateTable('fences')
        .set({ deleted_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
        .where('fences.id', 'in', ids)
        .execute();
      await tx.db.deleteFrom('fence_device_state').where('fence_id', 'in', ids).execute();
      for (const r of rows)
        await audit(tx.db, {
          tenantId: u.tenantId,
          userId: u.userId,
          ip: u.ip,
          action: 'fence.delete',
          resource: 'fence',
          resourceId: Number(r.id),
          result: 'ok',
          subject: r.name,
          changes: { deleted: { before: false, after: true } },
        });
    });
    for (const r of rows) this.events?.publish(u.tenantId, { type: 'fence', data: { id: Number(r.id) } });
    return { deleted: rows.length };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Evaluation

  /** The fences of the device's tenant that target it (directly, through its group or a group above it). */
  private async fencesOfDevice(deviceId: number, tenantId?: number, lng = 0, lat = 0): Promise<DeviceFenceRow[]> {
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
   * A location report (after `Presence.location` stored it on the device): the track, then each fence of the
   * device that applies now. Cost per report: one statement for the track, one for the device's fences (the bbox
   * decides most of them in SQL), a Turf test per fence whose box holds the point, and a write only when
   * something changed.
   */
  async onLocation(deviceId: number, m: Pick<LocationMsg, 'lat' | 'lng' | 'accuracyM'>): Promise<void> {
    await this.storePosition(deviceId, m.lat, m.lng, m.accuracyM ?? null);
    await this.evaluate(deviceId, m.lng, m.lat, { immediate: false });
  }

  /**
   * A position is stored when the device moved at least POSITION_MIN_MOVE_M from its last stored one
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

  /**
   * The device's side of each of its fences that applies now. `immediate` (an edited fence): a change is
   * confirmed at once; otherwise after the fence's dwell time. A device's first side in a fence is a baseline,
   * no event. `onlyFence` limits it to one fence.
   */
  async evaluate(
    deviceId: number,
    lng: number,
    lat: number,
    opts: { immediate: boolean; onlyFence?: number },
  ): Promise<void> {
    const now = new Date();
    const fences = await this.fencesOfDevice(deviceId, undefined, lng, lat);
    // the writes of one report, batched: first sides (baselines), forgotten flaps, new pending sides
    const baselines: Array<{ fence: number; tenant: number; side: string }> = [];
    const forgotten: number[] = [];
    const pending: Array<{ fence: number; side: string }> = [];
    const confirmed: Array<() => Promise<void>> = [];
    for (const f of fences) {
      if (opts.onlyFence !== undefined && Number(f.id) !== opts.onlyFence) continue;
      if (!f.enabled || !scheduleActive(f.schedule, now)) continue;
      const side: 'inside' | 'outside' = f.in_box && contains(f.shape, lng, lat) ? 'inside' : 'outside';
      const fenceId = Number(f.id);
      if (f.side === null) {
        baselines.push({ fence: fenceId, tenant: Number(f.tenant_id), side });
        continue;
      }
      if (f.side === side) {
        // back on its side before the dwell passed: the flap is forgotten
        if (f.pending_side !== null) forgotten.push(fenceId);
        continue;
      }
      const waiting = f.pending_side === side && f.pending_since !== null;
      const crossedAt = waiting ? new Date(f.pending_since!) : now;
      const dueAt = crossedAt.getTime() + f.dwell_s * 1000;
      if (opts.immediate || f.dwell_s === 0 || dueAt <= now.getTime()) {
        const at = opts.immediate ? now : crossedAt;
        const pos =
          waiting && !opts.immediate ? { lat: f.pending_lat ?? lat, lng: f.pending_lng ?? lng } : { lat, lng };
        confirmed.push(() => this.confirm(f, deviceId, side, at, pos));
      } else if (!waiting) {
        pending.push({ fence: fenceId, side });
      }
    }
    if (baselines.length)
      await sql`
        INSERT INTO fence_device_state (fence_id, device_id, tenant_id, side)
        SELECT f, ${deviceId}, t, s FROM unnest(${baselines.map((b) => b.fence)}::bigint[], ${baselines.map((b) => b.tenant)}::bigint[],
          ${baselines.map((b) => b.side)}::text[]) AS x(f, t, s)
        ON CONFLICT DO NOTHING`.execute(this.db);
    if (forgotten.length)
      await sql`UPDATE fence_device_state SET pending_side = NULL, pending_since = NULL, pending_lat = NULL, pending_lng = NULL
        WHERE device_id = ${deviceId} AND fence_id = ANY(${forgotten}::bigint[]) AND pending_side IS NOT NULL`.execute(
        this.db,
      );
    if (pending.length)
      await sql`UPDATE fence_device_state s SET pending_side = x.side, pending_since = ${now}, pending_lat = ${lat}, pending_lng = ${lng}
        FROM unnest(${pending.map((p) => p.fence)}::bigint[], ${pending.map((p) => p.side)}::text[]) AS x(fence, side)
        WHERE s.fence_id = x.fence AND s.device_id = ${deviceId} AND s.side <> x.side`.execute(this.db);
    for (const c of confirmed) await c();
  }

  /**
   * A confirmed side change: the state and the event in one statement that only one node can win (the state must
   * still be on the other side), then the alerts the fence's rule asks for.
   */
  private async confirm(
    f: Pick<DeviceFenceRow, 'id' | 'tenant_id' | 'name' | 'alert_on'>,
    deviceId: number,
    side: 'inside' | 'outside',
    at: Date,
    pos: { lat: number; lng: number },
  ): Promise<void> {
    const fenceId = Number(f.id);
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
    if (!rows.length) return;
    const tenantId = Number(f.tenant_id);
    if (!alerts(f.alert_on, kind)) {
      this.events?.publish(tenantId, { type: 'fence', data: { id: fenceId, deviceId } });
      return;
    }
    await this.alert(tenantId, { id: fenceId, name: f.name }, deviceId, kind, at, pos);
  }

  /** The message to the readers, the live event and the webhook of a confirmed change. */
  private async alert(
    tenantId: number,
    fence: { id: number; name: string },
    deviceId: number,
    kind: FenceEventKind,
    at: Date,
    pos: { lat: number; lng: number },
  ): Promise<void> {
    const device = await this.db
      .selectFrom('devices')
      .select(['id', 'sn', 'name'])
      .where('id', '=', deviceId)
      .executeTakeFirst();
    if (!device) return;
    const title = MESSAGES[kind === 'enter' ? 'fence.enteredTitle' : 'fence.leftTitle'].en;
    const body = `${fence.name} · ${device.sn}${device.name ? ` · ${device.name}` : ''} · ${pos.lng.toFixed(6)}, ${pos.lat.toFixed(6)} · ${at.toISOString()}`;
    const readers = await fenceReaderMessages(this.db, deviceId, title, body, `/fence/index?id=${fence.id}`);
    for (const r of readers) this.events?.publish(r.tenant_id, { type: 'message', data: { userId: r.user_id } });
    this.events?.publish(tenantId, { type: 'fence', data: { id: fence.id, deviceId, event: kind } });
    if (this.webhooks) {
      const payload: FenceWebhookPayload = {
        event: kind === 'enter' ? 'fence.enter' : 'fence.leave',
        fence,
        device: { id: deviceId, sn: device.sn, name: device.name },
        position: pos,
        at: at.toISOString(),
      };
      const ids = await insertEventDeliveries(this.db, tenantId, payload.event, { ...payload });
      if (ids.length) this.webhooks.enqueue(ids);
    }
  }

  /**
   * Every target device of a fence with a known position, evaluated against the fence as it is now (after a
   * create: baselines; after an edit: `immediate`).
   */
  async reevaluate(fenceId: number, immediate: boolean): Promise<void> {
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
    for (const d of rows) await this.evaluate(Number(d.id), d.lng, d.lat, { immediate, onlyFence: fenceId });
  }

  /**
   * Pending changes whose dwell time passed without a new report: confirmed with the position where the device
   * crossed (the periodic check; safe on several nodes: the confirming statement has one winner).
   */
  async confirmDue(): Promise<number> {
    const { rows } = await sql<
      DeviceFenceRow & { device_id: number; pending_side: 'inside' | 'outside'; pending_since: Date }
    >`
      SELECT f.id, f.tenant_id, f.name, f.shape, f.schedule, f.alert_on, f.dwell_s, f.enabled, s.device_id,
        s.side, s.pending_side, s.pending_since, s.pending_lat, s.pending_lng
      FROM fence_device_state s JOIN fences f ON f.id = s.fence_id
      WHERE s.pending_side IS NOT NULL AND f.deleted_at IS NULL AND f.enabled
        AND s.pending_since <= now() - make_interval(secs => f.dwell_s)
      ORDER BY s.pending_since
      LIMIT 1000`.execute(this.db);
    let n = 0;
    const now = new Date();
    for (const r of rows) {
      if (!scheduleActive(r.schedule, now)) continue;
      await this.confirm(r, Number(r.device_id), r.pending_side, new Date(r.pending_since), {
        lat: r.pending_lat ?? 0,
        lng: r.pending_lng ?? 0,
      });
      n++;
    }
    return n;
  }

  /** Positions older than POSITION_KEEP_DAYS, in batches, by one node at a time (advisory lock). */
  async prunePositions(): Promise<number> {
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

/** A unique-name violation as a 400 naming the name. */
const nameTaken =
  (name: string) =>
  (e: unknown): never => {
    if ((e as { code?: string }).code === '23505') throw badRequest('name', 'fence.nameTaken', { name });
    throw e;
  };

/**
 * The alert's message to each active user of the device's tenant who reads fences — the main account, and those
 * holding fence:view whose data scope reaches the device (the rule of the device-fault messages) — in one statement.
 */
async function fenceReaderMessages(
  db: Db,
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
    returning tenant_id, user_id`.execute(db);
  return rows;
}
