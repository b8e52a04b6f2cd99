import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { defineQueries, skip } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { audit, type AuditEntry } from '../../../lib/audit.ts';
import type { VersionRow } from '../types.ts';
import { countDevicesOf, countGroupsOf } from '../../device/index.ts';

/** The devices condition of a caller's data scope (absent: every device of the tenant). */
export type DevicesInScope = RawBuilder<boolean> | undefined;
export const inScope = (devices: DevicesInScope) => devices ?? sql<boolean>`true`;

/** The columns of a version a create, an edit or a copy of the draft writes. */
export interface VersionValues {
  settings: string;
  kiosk_password: string | null;
  applock_password: string | null;
  hash: string;
  part_hashes: string;
  updated_at?: Date;
}

/**
 * The statements on profiles, their versions and assignments, and the rows of other modules they check (uploaded
 * objects, the customer's applications, devices and groups), with the system log of their changes.
 */
export class CustomProfileRepository {
  constructor(private readonly db: Db) {}

  private scope(tenantId: number) {
    return new TenantScope(this.db, tenantId);
  }

  /** A line of the system log, in this repository's transaction. */
  audit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }

  async findProfile(tenantId: number, id: number, lock = false) {
    let q = this.scope(tenantId).selectFrom('custom_profiles').selectAll().where('custom_profiles.id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** The versions of these profiles, the highest version first (the draft, version null, last). */
  async versionsOf(tenantId: number, profileIds: number[]): Promise<VersionRow[]> {
    if (!profileIds.length) return [];
    return (await this.scope(tenantId)
      .selectFrom('custom_profile_versions')
      .selectAll()
      .where('custom_profile_versions.profile_id', 'in', profileIds)
      .orderBy('custom_profile_versions.version', 'desc')
      .execute()) as VersionRow[];
  }

  async versionById(tenantId: number, id: number) {
    return this.scope(tenantId)
      .selectFrom('custom_profile_versions')
      .selectAll()
      .where('custom_profile_versions.id', '=', id)
      .executeTakeFirst();
  }

  /** Which of these package names are the tenant's applications (a `packages` row of kind app, not deleted). */
  async ownAppIdentifiers(tenantId: number, pkgs: string[]): Promise<string[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('packages')
      .select('packages.identifier')
      .where('packages.kind', '=', 'app')
      .where('packages.deleted_at', 'is', null)
      .where('packages.identifier', 'in', pkgs)
      .execute();
    return rows.map((r) => r.identifier);
  }

  /** An uploaded object of the tenant. */
  async uploadedObject(tenantId: number, key: string) {
    return this.scope(tenantId)
      .selectFrom('objects')
      .select(['objects.key', 'objects.mime', 'objects.size', 'objects.bucket', 'objects.original_name'])
      .where('objects.key', '=', key)
      .executeTakeFirst();
  }

  async insertProfile(tenantId: number, p: { name: string; description: string; createdBy: number }): Promise<number> {
    const row = await this.scope(tenantId)
      .insertInto('custom_profiles', { name: p.name, description: p.description, created_by: p.createdBy })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** A new draft (version null) of the profile. */
  async insertDraft(tenantId: number, profileId: number, values: VersionValues): Promise<void> {
    await this.scope(tenantId)
      .insertInto('custom_profile_versions', { profile_id: profileId, version: null, ...values })
      .execute();
  }

  async updateVersion(tenantId: number, versionId: number, values: VersionValues): Promise<void> {
    await this.scope(tenantId)
      .updateTable('custom_profile_versions')
      .set(values)
      .where('custom_profile_versions.id', '=', versionId)
      .execute();
  }

  /** Sets the name and description given (none: only `updated_at`). */
  async touchProfile(tenantId: number, id: number, meta: { name?: string; description?: string } = {}) {
    await this.scope(tenantId)
      .updateTable('custom_profiles')
      .set({ ...meta, updated_at: new Date() })
      .where('custom_profiles.id', '=', id)
      .execute();
  }

  /** Freezes the draft as version `version`. */
  async publishDraft(tenantId: number, draftId: number, version: number, by: number): Promise<void> {
    await this.scope(tenantId)
      .updateTable('custom_profile_versions')
      .set({ version, published_at: new Date(), published_by: by, updated_at: new Date() })
      .where('custom_profile_versions.id', '=', draftId)
      .execute();
  }

  async deleteProfile(tenantId: number, id: number): Promise<void> {
    await this.scope(tenantId).deleteFrom('custom_profiles').where('custom_profiles.id', '=', id).execute();
  }

  /** How many of these devices of the tenant the caller's data scope reaches. */
  countDevicesInScope(tenantId: number, ids: number[], devices: DevicesInScope): Promise<number> {
    return countDevicesOf(this.db, tenantId, ids, inScope(devices));
  }

  countGroups(tenantId: number, ids: number[]): Promise<number> {
    return countGroupsOf(this.db, tenantId, ids);
  }

  /** Deletes the assignments of these devices and groups (of one profile, or whichever profile they have). */
  async deleteAssignments(
    tenantId: number,
    t: { profileId?: number; deviceIds: number[]; groupIds: number[] },
  ): Promise<void> {
    const ors = [];
    if (t.deviceIds.length) ors.push(sql<boolean>`device_id = ANY(${t.deviceIds}::bigint[])`);
    if (t.groupIds.length) ors.push(sql<boolean>`group_id = ANY(${t.groupIds}::bigint[])`);
    let q = this.scope(tenantId).deleteFrom('custom_profile_assignments');
    if (t.profileId !== undefined) q = q.where('custom_profile_assignments.profile_id', '=', t.profileId);
    await q.where(sql<boolean>`(${sql.join(ors, sql` OR `)})`).execute();
  }

  async insertAssignments(
    tenantId: number,
    rows: Array<{ profile_id: number; device_id?: number; group_id?: number; created_by: number }>,
  ): Promise<void> {
    await this.scope(tenantId).insertInto('custom_profile_assignments', rows).execute();
  }
}

const VERSION_VALUES: VersionValues = {
  settings: JSON.stringify({ defaultStartApp: { pkg: 'com.shop.kiosk', delaySec: 5 } }),
  kiosk_password: null,
  applock_password: null,
  hash: 'a3f1c2',
  part_hashes: JSON.stringify({ defaultStartApp: 'b7e4d9' }),
};

export const profileQueries = defineQueries(CustomProfileRepository, {
  findProfile: [
    [3, 12],
    [3, 12, true],
  ],
  versionsOf: [[3, [12, 13]]],
  versionById: [[3, 40]],
  ownAppIdentifiers: [[3, ['com.shop.kiosk', 'com.shop.pos']]],
  uploadedObject: [[3, 'custom/3/lobby-wallpaper.png']],
  insertProfile: [
    { args: [3, { name: 'Front desk', description: 'Lobby tablets', createdBy: 7 }], results: [[{ id: 12 }]] },
  ],
  insertDraft: [[3, 12, VERSION_VALUES]],
  updateVersion: [[3, 40, { ...VERSION_VALUES, updated_at: new Date('2026-01-01T00:00:00Z') }]],
  touchProfile: [
    [3, 12],
    [3, 12, { name: 'Front desk', description: 'Lobby tablets' }],
  ],
  publishDraft: [[3, 40, 2, 7]],
  deleteProfile: [[3, 12]],
  countDevicesInScope: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  countGroups: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  deleteAssignments: [
    [3, { profileId: 12, deviceIds: [101], groupIds: [21] }],
    [3, { deviceIds: [101, 102], groupIds: [] }],
  ],
  insertAssignments: [
    [
      3,
      [
        { profile_id: 12, device_id: 101, created_by: 7 },
        { profile_id: 12, group_id: 21, created_by: 7 },
      ],
    ],
  ],
});
