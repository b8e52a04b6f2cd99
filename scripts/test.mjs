// `npm test`: type-check, unit and API tests against real PostgreSQL, then browser tests against the built console.
import { spawnSync } from 'node:child_process';
import { ensureWebBuilt } from './web-build.mjs';

const steps = [
  ['type-check', 'npx', ['tsc', '-p', 'packages/contracts']],
  ['type-check', 'npx', ['tsc', '-p', 'apps/server']],
  ['type-check', 'npx', ['tsc', '-p', 'apps/web']],
  ['type-check', 'npx', ['tsc', '-p', 'apps/device-sim']],
  ['type-check', 'npx', ['tsc', '-p', 'e2e']],
  ['type-check', 'npx', ['tsc', '-p', 'bench']],
  ['contracts unit tests', 'npx', ['vitest', 'run', '--root', 'packages/contracts']],
  ['web unit tests', 'npx', ['vitest', 'run', '--root', 'apps/web']],
  ['server unit and API tests (real PostgreSQL)', 'npx', ['vitest', 'run', '--root', 'apps/server']],
  ['build the console', null, null],
  ['browser tests (Chromium)', 'npx', ['vitest', 'run', '--root', 'e2e']],
];

for (const [name, cmd, args] of steps) {
  console.log(`\n▶ ${name}`);
  if (!cmd) {
    ensureWebBuilt({ force: true });
    continue;
  }
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    console.error(`\n✖ ${name} failed`);
    process.exit(r.status ?? 1);
  }
}
console.log('\n✔ all tests passed');
