// `npm test`: type-check, format check, lint, unit and API tests against real PostgreSQL, then browser tests
// against the built console.
//
// The stages before the browser tests do not depend on each other, and the API tests spend most of their time
// waiting (on PostgreSQL, the brokers, timers): they run in two lanes side by side, each lane's output printed
// whole when it ends. The browser tests run last and alone, as they measure nothing but must not starve.
import { spawn } from 'node:child_process';

const npx = (...args) => ['npx', args];
const lanes = [
  {
    name: 'checks and unit tests',
    steps: [
      ['type-check contracts', ...npx('tsc', '-p', 'packages/contracts')],
      ['type-check server', ...npx('tsc', '-p', 'apps/server')],
      ['type-check web', ...npx('tsc', '-p', 'apps/web')],
      ['type-check device-sim', ...npx('tsc', '-p', 'apps/device-sim')],
      ['type-check e2e', ...npx('tsc', '-p', 'e2e')],
      ['type-check bench', ...npx('tsc', '-p', 'bench')],
      ['format check (Prettier)', ...npx('prettier', '--check', '--log-level', 'warn', '.')],
      ['lint (ESLint)', ...npx('eslint', '--max-warnings', '0', '.')],
      ['server import rules (dependency-cruiser)', 'npm', ['run', '--silent', 'lint:imports', '-w', 'apps/server']],
      ['contracts unit tests', ...npx('vitest', 'run', '--root', 'packages/contracts')],
      ['device simulator unit tests', ...npx('vitest', 'run', '--root', 'apps/device-sim')],
      ['web unit tests', ...npx('vitest', 'run', '--root', 'apps/web')],
      ['build the console', 'npm', ['run', 'build', '-w', 'apps/web']],
    ],
  },
  {
    name: 'server unit and API tests (real PostgreSQL, embedded Aedes and Mosquitto)',
    steps: [['server unit and API tests', ...npx('vitest', 'run', '--root', 'apps/server')]],
  },
];
const last = ['browser tests (Chromium)', ...npx('vitest', 'run', '--root', 'e2e')];

/** Runs one command; its output goes to `out` (a lane's buffer) or straight through. */
function run(cmd, args, out) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: process.env, stdio: out ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (out) {
      child.stdout.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => out.push(d));
    }
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', (err) => {
      out?.push(Buffer.from(String(err)));
      resolve(1);
    });
  });
}

async function runLane(lane) {
  const out = [];
  const started = Date.now();
  for (const [name, cmd, args] of lane.steps) {
    out.push(Buffer.from(`\n▶ ${name}\n`));
    const code = await run(cmd, args, out);
    if (code !== 0) {
      out.push(Buffer.from(`\n✖ ${name} failed\n`));
      return { lane, out, ok: false, failed: name, seconds: (Date.now() - started) / 1000 };
    }
  }
  return { lane, out, ok: true, seconds: (Date.now() - started) / 1000 };
}

console.log(`▶ in parallel: ${lanes.map((l) => l.name).join(' | ')}`);
const results = await Promise.all(lanes.map(runLane));
for (const r of results) {
  console.log(`\n━━━━ ${r.lane.name} (${r.seconds.toFixed(0)} s) ━━━━`);
  process.stdout.write(Buffer.concat(r.out));
}
const failed = results.filter((r) => !r.ok);
if (failed.length) {
  for (const r of failed) console.error(`\n✖ ${r.failed} failed`);
  process.exit(1);
}

console.log(`\n▶ ${last[0]}`);
const code = await run(last[1], last[2]);
if (code !== 0) {
  console.error(`\n✖ ${last[0]} failed`);
  process.exit(code);
}
console.log('\n✔ all tests passed');
