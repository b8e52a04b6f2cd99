import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.e2e.ts'],
    globalSetup: ['./global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // One browser flow at a time: the flows share servers and read the newest captcha and SMS.
    fileParallelism: false,
    pool: 'forks',
  },
});
