import { defineConfig } from 'vitest/config';

/**
 * Browser flows run one file after another by default. With E2E_WORKERS=n they run n side by side, each worker
 * with a set of servers of its own (global-setup.ts), as flows read the newest captcha and SMS code of their server.
 * On the project's 2-core machine two workers cut the run from ~25 to ~17 minutes, but the timing waits of a few
 * flows (a reboot's round trip, a release's live state) then need more room than they have: not the default yet.
 */
const workers = Math.max(1, Number(process.env.E2E_WORKERS) || 1);
process.env.E2E_WORKERS = String(workers);

export default defineConfig({
  test: {
    include: ['**/*.e2e.ts'],
    globalSetup: ['./global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    fileParallelism: workers > 1,
    maxWorkers: workers,
    pool: 'forks',
  },
});
