import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createDb } from '../apps/server/src/db/database.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import type { DeviceSpec } from '../apps/device-sim/src/specs.ts';
import { query, type server } from './browser.ts';

type Server = ReturnType<typeof server>;

/**
 * What the fleet-section browser flows set up before they open a page: the account's devices, a group tree and an
 * application package, written to the database the way the factory registration, a bind and the package upload
 * leave them (those are tested through their own screens in devices.e2e.ts and application-packages.e2e.ts).
 */

/** The account (tenant) of a user. */
export async function tenantOf(s: Server, username: string): Promise<number> {
  const [{ id }] = await query<{ id: number }>(s.databaseUrl, 'SELECT tenant_id AS id FROM users WHERE username = $1', [
    username,
  ]);
  return Number(id);
}

/** Registers the simulated devices at the factory and binds them to the account. */
export async function bindDevices(s: Server, tenantId: number, specs: DeviceSpec[]): Promise<void> {
  const db = createDb(s.databaseUrl, 2);
  try {
    await registerInDb(db, specs);
    await bindInDb(
      db,
      tenantId,
      specs.map((x) => x.sn),
    );
  } finally {
    await db.destroy();
  }
}

/** A group with one sub-group: `inGroup` devices go into the group, `inSubgroup` into the sub-group. */
export async function groupWithSubgroup(
  s: Server,
  tenantId: number,
  names: { group: string; subgroup: string },
  devices: { inGroup: string[]; inSubgroup: string[] },
): Promise<{ group: number; subgroup: number }> {
  const [{ id: group }] = await query<{ id: number }>(
    s.databaseUrl,
    `INSERT INTO device_groups (tenant_id, name) VALUES ($1, $2) RETURNING id`,
    [tenantId, names.group],
  );
  const [{ id: subgroup }] = await query<{ id: number }>(
    s.databaseUrl,
    `INSERT INTO device_groups (tenant_id, name, parent_id) VALUES ($1, $2, $3) RETURNING id`,
    [tenantId, names.subgroup, group],
  );
  await query(s.databaseUrl, 'UPDATE devices SET group_id = $1 WHERE sn = ANY($2)', [group, devices.inGroup]);
  await query(s.databaseUrl, 'UPDATE devices SET group_id = $1 WHERE sn = ANY($2)', [subgroup, devices.inSubgroup]);
  return { group, subgroup };
}

/** An application version of the account, its bytes random (the simulator checks the SHA-256, not the APK). */
export async function storedApp(
  s: Server,
  tenantId: number,
  username: string,
  app: { name: string; identifier: string; versionName: string; versionCode: number; size: number; file: string },
): Promise<void> {
  const bytes = randomBytes(app.size);
  const key = `e2e/${randomBytes(6).toString('hex')}/${app.file}`;
  const file = path.join(s.dataDir, 'objects', key);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  const [{ id: userId }] = await query<{ id: number }>(s.databaseUrl, 'SELECT id FROM users WHERE username = $1', [
    username,
  ]);
  await query(
    s.databaseUrl,
    `INSERT INTO objects (key, tenant_id, user_id, bucket, size, mime, original_name)
     VALUES ($1, $2, $3, 'package', $4, 'application/vnd.android.package-archive', $5)`,
    [key, tenantId, userId, bytes.length, app.file],
  );
  await query(
    s.databaseUrl,
    `INSERT INTO packages (tenant_id, kind, name, identifier, version_name, version_code, object_key, size, sha256)
     VALUES ($1, 'app', $2, $3, $4, $5, $6, $7, $8)`,
    [
      tenantId,
      app.name,
      app.identifier,
      app.versionName,
      app.versionCode,
      key,
      bytes.length,
      createHash('sha256').update(bytes).digest('hex'),
    ],
  );
}
