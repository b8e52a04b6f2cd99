import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'apps/web/dist/index.html');
const sources = [
  'apps/web/src',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'apps/web/public',
  'packages/contracts/src',
  'package-lock.json',
];

export function newest(p) {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return fs.readdirSync(p).reduce((m, f) => Math.max(m, newest(path.join(p, f))), st.mtimeMs);
}

/** Builds apps/web when dist is missing or older than any of its sources. */
export function ensureWebBuilt({ force = false } = {}) {
  const built = fs.existsSync(dist) ? fs.statSync(dist).mtimeMs : 0;
  const src = Math.max(...sources.map((s) => newest(path.join(root, s))));
  if (!force && built > src) return;
  console.log(built ? 'The console is older than its sources: building it…' : 'Building the console…');
  const r = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
