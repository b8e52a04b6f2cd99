import { defineConfig } from 'vitest/config';

/**
 * Browser flows run two files side by side by default (E2E_WORKERS=n for n, 1 for one after another), each worker
 * with a set of servers of its own (global-setup.ts), as flows read the newest captcha and SMS code of their
 * server. On the project's 2-core machine two workers take the browser stage from ~26 to ~17 minutes (1,015 s
 * against 1,588 s for the same 41 files); each file takes 1.2–1.8 times as long, within every flow's waits.
 */
const workers = Math.max(1, Number(process.env.E2E_WORKERS) || 2);
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
