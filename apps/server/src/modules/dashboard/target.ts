import { sql } from 'kysely';
import { PERMISSIONS } from '@cpc/contracts';
import { RANK_SIZE, type ProjectItem, type TargetWidget } from '@cpc/contracts/dashboard';
import type { Db } from '../../db/database.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { AppError } from '../../plugins/errors.ts';

/** Since the first of this month in `tz`, as SQL. */
const monthStart = (tz: string) => sql<Date>`date_trunc('month', now(), ${tz})`;

/** Only the account's main user sets its target (a figure for the whole account, not one department's). */
export const mayEditTarget = (user: AuthUser) => user.tenantKind !== 'platform' && user.isSuper === 1;

/**
 * The "target" widget (SPEC §2, issue 14): print jobs created this month on the devices of the caller's data
 * scope, against the account's monthly target. Null without print:view.
 */
export async function targetWidget(db: Db, user: AuthUser, a: DataAccess, tz: string): Promise<TargetWidget | null> {
  if (!hasPermission(user, PERMISSIONS.printView)) return null;
  const [jobs, target, month] = await Promise.all([
    user.scope
      .selectFrom('print_jobs')
      .where('print_jobs.created_at', '>=', monthStart(tz))
      .where(deviceInScope(a, 'print_jobs.device_id'))
      .select([
        sql<number>`count(*)::int`.as('n'),
        sql<number>`(count(*) filter (where print_jobs.state = 'printed'))::int`.as('printed'),
      ])
      .executeTakeFirstOrThrow(),
    user.scope.selectFrom('dashboard_targets').select('monthly_jobs').executeTakeFirst(),
    sql<{ m: string }>`select to_char(now() at time zone ${tz}, 'YYYY-MM') as m`.execute(db),
  ]);
  return {
    month: month.rows[0].m,
    jobs: jobs.n,
    printed: jobs.printed,
    target: target?.monthly_jobs ?? null,
    canEdit: mayEditTarget(user),
  };
}

/** Sets (or with null clears) the account's monthly target; written to the system log, before → after. */
export async function setTarget(db: Db, user: AuthUser, monthlyJobs: number | null, ip: string): Promise<void> {
  if (!mayEditTarget(user)) throw new AppError(403, 'dashboard.targetMainAccountOnly');
  await user.scope.transaction(async (tx) => {
    const before = await tx.selectFrom('dashboard_targets').select('monthly_jobs').forUpdate().executeTakeFirst();
    if (monthlyJobs === null) await tx.deleteFrom('dashboard_targets').execute();
    else
      await tx
        .insertInto('dashboard_targets', { monthly_jobs: monthlyJobs, updated_by: user.id })
        .onConflict((oc) =>
          oc
            .column('tenant_id')
            .doUpdateSet({ monthly_jobs: monthlyJobs, updated_by: user.id, updated_at: sql`now()` }),
        )
        .execute();
    await audit(tx.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'dashboard.target',
      resource: 'dashboard_target',
      resourceId: String(user.tenantId),
      result: 'ok',
      changes: changedFields({ monthlyJobs: before?.monthly_jobs ?? null }, { monthlyJobs }),
    });
  });
}

/**
 * The "my project" widget (SPEC §2, issue 14): the account's top-level groups, each with the devices of every
 * group below it (data scope), how many are online, and their print jobs this month; most jobs first.
 */
export async function projectWidget(user: AuthUser, a: DataAccess, tz: string): Promise<ProjectItem[]> {
  const t = user.tenantId;
  const [groups, devices, jobs] = await Promise.all([
    user.scope
      .selectFrom('device_groups')
      .select(['device_groups.id', 'device_groups.parent_id', 'device_groups.name'])
      .execute(),
    user.scope
      .selectFrom('devices')
      .where(inDataScope(a))
      .where('devices.group_id', 'is not', null)
      .select([
        'devices.group_id',
        sql<number>`count(*)::int`.as('n'),
        sql<number>`(count(*) filter (where devices.status = 'online'))::int`.as('online'),
      ])
      .groupBy('devices.group_id')
      .execute(),
    user.scope
      .selectFrom('print_jobs')
      .innerJoin('devices as d', (j) => j.onRef('d.id', '=', 'print_jobs.device_id').on('d.tenant_id', '=', t))
      .where('print_jobs.created_at', '>=', monthStart(tz))
      .where('d.group_id', 'is not', null)
      .where(inDataScope(a, 'd'))
      .select(['d.group_id', sql<number>`count(*)::int`.as('n')])
      .groupBy('d.group_id')
      .execute(),
  ]);
  const parent = new Map(groups.map((g) => [g.id, g.parent_id]));
  const rootOf = (id: number): number => {
    let r = id;
    // a guard against a cycle the tree should never have
    for (let i = 0, p = parent.get(r); p !== null && p !== undefined && i < 1000; p = parent.get(r), i++) r = p;
    return r;
  };
  const items = new Map<number, ProjectItem>(
    groups
      .filter((g) => g.parent_id === null)
      .map((g) => [g.id, { id: g.id, name: g.name, devices: 0, online: 0, jobsMonth: 0 }]),
  );
  for (const d of devices) {
    const item = items.get(rootOf(d.group_id!));
    if (!item) continue;
    item.devices += d.n;
    item.online += d.online;
  }
  for (const j of jobs) {
    const item = items.get(rootOf(j.group_id!));
    if (item) item.jobsMonth += j.n;
  }
  return [...items.values()]
    .filter((p) => p.devices > 0 || p.jobsMonth > 0)
    .sort((x, y) => y.jobsMonth - x.jobsMonth || y.devices - x.devices || x.name.localeCompare(y.name))
    .slice(0, RANK_SIZE);
}
