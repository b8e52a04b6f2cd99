import { DEPLOYMENT_EXPIRE_DEFAULT_S, type RequiredApp, type requiredAppsBody } from '@cpc/contracts';
import type { z } from 'zod';
import type { ScopedCaller } from '../../lib/data-scope.ts';
import { changedFields } from '../../lib/audit.ts';
import { badRequest } from '../../plugins/errors.ts';
import type { Deployments } from './deployments.ts';
import type { ApplicationRepository, DevicesInScope } from './repository/index.ts';

/** "identifier>=min" of each required app, sorted: how the system log shows the list. */
const listed = (rows: Array<{ identifier: string; min_version_code: unknown }>) =>
  rows.map((r) => `${r.identifier}${r.min_version_code == null ? '' : `>=${String(r.min_version_code)}`}`).sort();

/** Apps every reporting device of an account must have, and the policy that installs them where missing. */
export class RequiredApps {
  constructor(
    private repo: ApplicationRepository,
    private deployments: Deployments,
  ) {}

  async requiredApps(u: { tenantId: number; devices?: DevicesInScope }): Promise<RequiredApp[]> {
    const req = await this.repo.listRequired(u.tenantId);
    const out: RequiredApp[] = [];
    for (const r of req) {
      const latest = await this.repo.findLatestApp(u.tenantId, r.identifier);
      const min = r.min_version_code != null ? Number(r.min_version_code) : Number(latest?.version_code ?? 0);
      const missing = await this.repo.countMissing(u.tenantId, r.identifier, min, u.devices);
      out.push({
        identifier: r.identifier,
        name: latest?.name ?? r.identifier,
        minVersionCode: r.min_version_code == null ? null : Number(r.min_version_code),
        latestVersionName: latest?.version_name ?? null,
        missing,
      });
    }
    return out;
  }

  /** Replaces the tenant's required apps, then sends them to the reporting devices that lack one. */
  async setRequired(
    u: ScopedCaller,
    body: z.output<typeof requiredAppsBody>,
  ): Promise<{ apps: RequiredApp[]; tasks: number }> {
    const seen = new Set<string>();
    for (const [i, a] of body.apps.entries()) {
      if (seen.has(a.identifier))
        throw badRequest(`apps.${i}.identifier`, 'application.duplicateApp', { identifier: a.identifier });
      seen.add(a.identifier);
      if (!(await this.repo.findLatestApp(u.tenantId, a.identifier)))
        throw badRequest(`apps.${i}.identifier`, 'application.unknownApp', { identifier: a.identifier });
    }
    await this.repo.transaction(async (tx) => {
      const before = await tx.replaceRequired(u.tenantId, body.apps, u.id);
      await tx.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'application.requiredApps',
        resource: 'required_apps',
        result: 'ok',
        changes: changedFields(
          { apps: listed(before) },
          { apps: listed(body.apps.map((a) => ({ identifier: a.identifier, min_version_code: a.minVersionCode }))) },
        ),
      });
    });
    const tasks = await this.applyPolicy(u.tenantId);
    return { apps: await this.requiredApps(u), tasks };
  }

  /** Applies the policy of every tenant that has one (the periodic reconcile); answers the tasks sent. */
  async reconcilePolicy(): Promise<number> {
    const tenants = await this.repo.listTenantsWithRequired();
    let sent = 0;
    for (const t of tenants) sent += await this.applyPolicy(t);
    return sent;
  }

  /**
   * The required-apps policy: each reporting device (of `deviceIds`, or all) that lacks a required app (or has it
   * below the minimum) gets an install of the newest uploaded version, unless an install of that app is still
   * open for it, or the policy's installs of it already failed REQUIRED_APP_MAX_ATTEMPTS times there. One
   * deployment (source 'policy') per app and run; an advisory lock per tenant keeps two runs from doubling up.
   */
  async applyPolicy(tenantId: number, deviceIds?: number[]): Promise<number> {
    const required = await this.repo.listRequiredForPolicy(tenantId);
    let sent = 0;
    for (const r of required) {
      const latest = await this.repo.findLatestApp(tenantId, r.identifier);
      if (!latest) continue;
      const min = r.min_version_code != null ? Number(r.min_version_code) : Number(latest.version_code);
      const picked = await this.repo.transaction(async (tx) => {
        await tx.lockPolicy(tenantId);
        const ids = await tx.listDevicesLacking(tenantId, r.identifier, min, deviceIds);
        if (!ids.length) return [];
        const made = await this.deployments.record(
          tx,
          { id: null, tenantId, ip: '' },
          {
            kind: 'app',
            action: 'install',
            pkg: latest,
            identifier: r.identifier,
            deviceIds: ids,
            targets: { deviceIds: ids, groupIds: [] },
            allowDowngrade: false,
            expireInSec: DEPLOYMENT_EXPIRE_DEFAULT_S,
            source: 'policy',
          },
        );
        return made.rows;
      });
      await this.deployments.afterCommit(tenantId, picked);
      sent += picked.length;
    }
    return sent;
  }
}
