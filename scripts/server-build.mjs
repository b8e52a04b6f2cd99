import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { newest } from './web-build.mjs';

const root = path.resolve(import.meta.dirname, '..');
const outdir = path.join(root, 'apps/server/dist');
const entries = ['main', 'supervised'];
const sources = ['apps/server/src', 'packages/contracts/src', 'package-lock.json', 'scripts/server-build.mjs'];

/**
 * The Node flags `npm start` runs the compiled server with (the benchmarks and the fault test too): a V8 heap held
 * closer to what is live — 8 MB semi-spaces instead of 16, and an old generation let grow by half its live size
 * between full collections instead of up to four times. With 10,000 devices connected they gave 261 and 285 MB
 * of RSS where the defaults gave 266–379 MB, at the same CPU and the same accepted submits per second
 * (bench/README.md).
 *
 * Not `--enable-source-maps`: Node then decodes the bundle's whole source map at start and keeps it, 30 MB of
 * the idle server's 99 MB heap, which every full collection marks again. Stack traces name the bundle's
 * functions as written (nothing is minified) with the bundle's lines; for the TypeScript lines, start the server
 * with `NODE_OPTIONS=--enable-source-maps` (the `.map` files sit beside the bundle).
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/** The files `npm start` and the benchmarks run: `node apps/server/dist/<entry>.mjs`. */
export const serverEntry = (name = 'main') => path.join(outdir, `${name}.mjs`);

/**
 * Compiles the server to plain JavaScript: one ES module per entry (and chunks for what they share or load
 * lazily), the project's own TypeScript (the server
 * and @cpc/contracts) bundled in, every package from node_modules left to Node to load. Running compiled code
 * rather than through tsx's loader saves the loader's thread and its transpile cache: about 50 MB of RSS on an
 * idle server (issue 4's memory aim), and a faster start. Built when missing or older than its sources.
 */
export async function ensureServerBuilt({ force = false, quiet = false } = {}) {
  const built = Math.min(
    ...entries.map((e) => (fs.existsSync(serverEntry(e)) ? fs.statSync(serverEntry(e)).mtimeMs : 0)),
  );
  const src = Math.max(...sources.map((s) => newest(path.join(root, s))));
  if (!force && built > src) return;
  if (!quiet) console.log(built ? 'The server is older than its sources: compiling it…' : 'Compiling the server…');
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries.map((e) => [e, `apps/server/src/${e}.ts`])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // a dynamic import stays lazy with the packages it imports (the S3 driver and its AWS SDK, tesseract.js):
    // without splitting, esbuild hoists every package import of the bundle to its top and loads them all at start
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'packages-stay-external',
        setup(b) {
          // a bare import is a package Node loads from node_modules, except the workspace's TypeScript ones
          b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith('@cpc/') ? undefined : { external: true }));
        },
      },
    ],
  });
}

if (import.meta.filename === process.argv[1]) await ensureServerBuilt({ force: process.argv.includes('--force') });
