import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const API_PROXY = { '/apiAdmin': { target: 'http://localhost:8080', changeOrigin: true } };

/**
 * Third-party code the first screen (the sign-in page) needs, split so each piece caches on its own across
 * releases. `$initial` modules only, and without pulling their dependencies in after them. antd is not among
 * them: the sign-in page is drawn without it (issue 3's first-load budget), and its modules travel with the
 * screens that use them, as the automatic splitting groups them.
 */
const vendorGroups = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 30 },
  { name: 'vendor', test: /node_modules[\\/]/, priority: 10, tags: ['$initial' as const], includeDependenciesRecursively: false },
  // antd's Table on its own: the automatic split put modules other pages share into its chunk, so pages that
  // show no table (the device detail above the fold) downloaded it anyway
  {
    name: 'antd-table',
    // the Tooltip every page has imports one tiny context from Table's folder: it stays with the Tooltip
    test: (id: string) => /node_modules[\\/](antd[\\/]es[\\/]table|@rc-component[\\/]table)[\\/]/.test(id) && !id.includes('TableMeasureRowContext'),
    priority: 20,
    includeDependenciesRecursively: false,
  },
];

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Writes `.gz` and `.br` beside every script and style sheet worth compressing, at the highest levels, so the
 * server sends them as they are (its static files are served with `preCompressed`) without compressing per
 * request. index.html stays plain: it is small and must never be cached under another encoding.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'cpc:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((name) => /\.(js|css|svg|json)$/.test(name));
      await Promise.all(
        files.map(async (name) => {
          const file = path.join(outDir, name);
          const source = await fs.readFile(file);
          if (source.length < 1024) return;
          const [gz, br] = await Promise.all([
            gzip(source, { level: zlib.constants.Z_BEST_COMPRESSION }),
            brotli(source, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length } }),
          ]);
          await Promise.all([fs.writeFile(`${file}.gz`, gz), fs.writeFile(`${file}.br`, br)]);
        }),
      );
    },
  };
}

export default defineConfig({
  // relative asset URLs so the built console can be served from any sub-path
  base: './',
  plugins: [react(), precompress()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: { proxy: API_PROXY },
  preview: { proxy: API_PROXY },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: which chunks each page pulls in, for bench/shell.ts (not served: a dot folder)
    manifest: true,
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        codeSplitting: { groups: vendorGroups },
      },
    },
  },
});
