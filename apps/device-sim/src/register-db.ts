import { sql } from 'kysely';
import { registerDevices, type Db } from '../../server/src/public.ts';
import { SIM_MODEL, type DeviceSpec } from './specs.ts';

/** A SIM's data plan as the carrier sold it: what `registerInDb` writes on the sims row. */
export interface SimPlanSetup {
  /** cmcc, cucc or ctcc (the console names them); default: what the ICCID says. */
  carrier?: string;
  planMb?: number;
  /** What the SIM has used of the plan (default: unchanged). */
  usedMb?: number;
  /** null: no expiry. */
  expiresAt?: Date | null;
}

/**
 * In-process registration for tests, the demo and the benchmark: the platform's own factory registration
 * (modules/device-registry/service.ts) on a database handle, skipping devices an earlier run registered.
 * With `plan`, each device's SIM gets the plan it answers (registered now or earlier; undefined: left as is).
 * Answers sn → device id.
 */
export async function registerInDb(
  db: Db,
  specs: DeviceSpec[],
  opts: { plan?: (spec: DeviceSpec, index: number) => SimPlanSetup | undefined } = {},
): Promise<Map<string, number>> {
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
  if (opts.plan) await setSimPlans(db, specs, opts.plan);
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

/** Writes SIM plans (carrier, plan, used, expiry) in one statement per 5000 SIMs; the SIM's state follows by trigger. */
export async function setSimPlans(
  db: Db,
  specs: DeviceSpec[],
  plan: (spec: DeviceSpec, index: number) => SimPlanSetup | undefined,
): Promise<void> {
  const rows = specs.flatMap((s, i) => {
    const p = plan(s, i);
    return p ? [{ iccid: s.iccid, ...p }] : [];
  });
  for (let i = 0; i < rows.length; i += 5000) {
    const part = rows.slice(i, i + 5000);
    const col = <T>(f: (r: (typeof part)[number]) => T) => part.map(f);
    await sql`
      UPDATE sims s SET carrier = coalesce(p.carrier, s.carrier), plan_total_mb = coalesce(p.plan_mb, s.plan_total_mb),
        used_mb = coalesce(p.used_mb, s.used_mb),
        expires_at = CASE WHEN p.set_expiry THEN p.expires_at ELSE s.expires_at END
      FROM unnest(${col((r) => r.iccid)}::text[], ${col((r) => r.carrier ?? null)}::text[],
        ${col((r) => r.planMb ?? null)}::numeric[], ${col((r) => r.usedMb ?? null)}::numeric[],
        ${col((r) => r.expiresAt !== undefined)}::boolean[], ${col((r) => r.expiresAt?.toISOString() ?? null)}::timestamptz[])
        AS p(iccid, carrier, plan_mb, used_mb, set_expiry, expires_at)
      WHERE s.iccid = p.iccid`.execute(db);
  }
}
