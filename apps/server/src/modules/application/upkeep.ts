import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Periodic } from '../../lib/periodic.ts';
import type { ApplicationService } from './service.ts';

/** How often the required-apps policy is applied to every reporting device again (default 5 minutes). */
export const POLICY_RECONCILE_MS = 5 * 60_000;

/**
 * The required-apps policy runs on each inventory report; this applies it again now and then, so a device whose
 * report met a node that died before the policy ran, or whose policy install failed (fewer than
 * REQUIRED_APP_MAX_ATTEMPTS times), is not left waiting for its next report. Safe on N nodes at once: each run
 * takes the tenant's advisory lock and skips devices with an open install.
 */
export const applicationUpkeep = fp<{ apps: ApplicationService; everyMs?: number }>(
  async (app: FastifyInstance, { apps, everyMs = POLICY_RECONCILE_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `application: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'application',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'required apps', () => apps.reconcilePolicy(), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'application-upkeep' },
);
