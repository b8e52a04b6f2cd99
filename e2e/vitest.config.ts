import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Browser flows run side by side, one per worker, each worker with a set of servers of its own (global-setup.ts):
 * two on a machine of two or more cores (a flow waits on the browser and the server much of the time), or what
 * E2E_WORKERS says. Within a worker, files run one after the other, as they read the newest captcha and SMS code.
 */
const workers = Math.max(1, Number(process.env.E2E_WORKERS) || Math.min(2, os.availableParallelism()));
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
