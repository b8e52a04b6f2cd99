import { PERMISSIONS } from '@cpc/contracts';
import { RANK_SIZE, type ProjectItem, type TargetWidget } from '@cpc/contracts/dashboard';
import { changedFields } from '../../lib/audit.ts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { AppError } from '../../plugins/errors.ts';
import type { DashboardWidgetRepository } from './repository/widgets.ts';

/** Only the account's main user sets its target (a figure for the whole account, not one department's). */
export const mayEditTarget = (user: AuthUser) => user.tenantKind !== 'platform' && user.isSuper === 1;

/**
 * The "target" widget (SPEC §2, issue 14): print jobs created this month on the devices of the caller's data
 * scope, against the account's monthly target. Null without print:view.
 */
export async function targetWidget(
  repo: DashboardWidgetRepository,
  user: AuthUser,
  a: DataAccess,
  tz: string,
): Promise<TargetWidget | null> {
  if (!hasPermission(user, PERMISSIONS.printView)) return null;
  const [jobs, target, month] = await Promise.all([
    repo.jobsThisMonth(user.tenantId, a, tz),
    repo.target(user.tenantId),
    repo.month(tz),
  ]);
  return {
    month,
    jobs: jobs.n,
    printed: jobs.printed,
    target: target?.monthly_jobs ?? null,
    canEdit: mayEditTarget(user),
  };
}

/** Sets (or with null clears) the account's monthly target; written to the system log, before → after. */
export async function setTarget(
  repo: DashboardWidgetRepository,
  user: AuthUser,
  monthlyJobs: number | null,
  ip: string,
): Promise<void> {
  if (!mayEditTarget(user)) throw new AppError(403, 'dashboard.targetMainAccountOnly');
  await repo.transaction(async (tx) => {
    const before = await tx.lockTarget(user.tenantId);
    if (monthlyJobs === null) await tx.clearTarget(user.tenantId);
    else await tx.setTarget(user.tenantId, monthlyJobs, user.id);
    await tx.audit({
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
export async function projectWidget(
  repo: DashboardWidgetRepository,
  user: AuthUser,
  a: DataAccess,
  tz: string,
): Promise<ProjectItem[]> {
  const { groups, devices, jobs } = await repo.projects(user.tenantId, a, tz);
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
