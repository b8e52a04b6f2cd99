import { sql } from 'kysely';
import { registerDevices, type Db } from '../../server/src/public.ts';
import { SIM_MODEL, type DeviceSpec } from './specs.ts';

/**
 * In-process registration for tests, the demo and the benchmark: the platform's own factory registration
 * (modules/device-registry/service.ts) on a database handle, skipping devices an earlier run registered.
 * Answers sn → device id.
 */
export async function registerInDb(db: Db, specs: DeviceSpec[]): Promise<Map<string, number>> {
  await db
    .insertInto('device_models')
    .values({
      code: SIM_MODEL.code,
      name: SIM_MODEL.name,
      kind: SIM_MODEL.kind,
      paper_width_mm: SIM_MODEL.paperWidthMm,
      capabilities: [...SIM_MODEL.capabilities],
    })
    .onConflict((oc) => oc.column('code').doNothing())
    .execute();
  const sns = specs.map((s) => s.sn);
  const existing = new Set(
    (await db.selectFrom('devices').select('sn').where('sn', 'in', sns).execute()).map((r) => r.sn),
  );
  const todo = specs.filter((s) => !existing.has(s.sn));
  for (let i = 0; i < todo.length; i += 5000) {
    await registerDevices(
      db,
      todo
        .slice(i, i + 5000)
        .map((s) => ({ sn: s.sn, model: s.model, bindKey: s.bindKey, secret: s.secret, iccid: s.iccid, imei: s.imei })),
    );
  }
  const rows = await db.selectFrom('devices').select(['id', 'sn']).where('sn', 'in', sns).execute();
  return new Map(rows.map((r) => [r.sn, r.id]));
}

/**
 * Binds devices to a tenant straight in the database (the demo and the benchmark set up thousands at once;
 * the console binds one by one with the key on the label). Their SIMs follow.
 */
export async function bindInDb(
  db: Db,
  tenantId: number,
  sns: string[],
  opts: { groupId?: number | null; name?: (sn: string) => string } = {},
): Promise<void> {
  for (let i = 0; i < sns.length; i += 5000) {
    const part = sns.slice(i, i + 5000);
    const names = part.map((sn) => opts.name?.(sn) ?? '');
    await sql`
      UPDATE devices d SET tenant_id = ${tenantId}, bound_at = now(), group_id = ${opts.groupId ?? null}::bigint,
        name = CASE WHEN n.name = '' THEN d.name ELSE n.name END
      FROM unnest(${part}::text[], ${names}::text[]) AS n(sn, name)
      WHERE d.sn = n.sn`.execute(db);
    await sql`UPDATE sims s SET tenant_id = ${tenantId} FROM devices d WHERE d.sn = ANY(${part}::text[]) AND s.iccid = d.iccid`.execute(
      db,
    );
  }
}
