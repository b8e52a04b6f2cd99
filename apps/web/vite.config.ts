import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const API_PROXY = {
  '/apiAdmin': { target: 'http://localhost:8080', changeOrigin: true },
  // social login's return (a real path, answered by the server with a redirect to /#/callback); with
  // PUBLIC_URL=http://localhost:5173 on the server the identity provider comes back through the dev server
  '/callback': { target: 'http://localhost:8080' },
};

/**
 * The modules on the way from the sign-in page to the first signed-in page, by static imports, read from the
 * finished module graph (`firstScreens()`, at the end of the build's graph phase) for the chunk groups below:
 * - `entry`: what index.html's entry needs (the sign-in page's first load);
 * - `login`: the sign-in screen beyond that;
 * - `shell`: the signed-in area every page is drawn in (providers, layout, menu, tabs, feedback holders);
 * - `firstPage`: my devices, where every sign-in lands (the menu's `/` leads to `/device/index`).
 */
const graph = {
  entry: new Set<string>(),
  login: new Set<string>(),
  shell: new Set<string>(),
  firstPage: new Set<string>(),
};

const FIRST_SCREEN_ROOTS = {
  login: /src\/features\/auth\/routes\/login\.tsx$/,
  shell: /src\/app\/(console-layout|authenticated-area|app-feedback|feedback-holders)\.tsx$/,
  firstPage: /src\/features\/device\/routes\/device-list\.tsx$/,
};

/**
 * Barrels the console imports named parts of (`import { Button } from 'antd'`): a walk through the barrel itself
 * would reach every component, where the build keeps only those named. `part` finds a name's own module.
 */
const BARRELS = [
  {
    barrel: /node_modules[\\/]antd[\\/]es[\\/]index\.js$/,
    from: 'antd',
    // `export { default as TreeSelect } from './tree-select';`
    part: (name: string, barrelSource: string) => {
      const dir = new RegExp(`default as ${name} \\} from '\\./([\\w-]+)'`).exec(barrelSource)?.[1];
      return dir && `/antd/es/${dir}/index.js`;
    },
  },
  {
    barrel: /node_modules[\\/]@ant-design[\\/]icons[\\/]es[\\/]index\.js$/,
    from: '@ant-design/icons',
    part: (name: string) => `/@ant-design/icons/es/icons/${name}.js`,
  },
];

/** The names a source file imports from `from` as values, or null when it takes more than named parts. */
function importedNames(file: string, from: string): string[] | null {
  let source: string;
  try {
    source = readFileSync(file.split('?')[0], 'utf8');
  } catch {
    return null;
  }
  const quoted = from.replace(/[/.]/g, (c) => `\\${c}`);
  const names: string[] = [];
  for (const statement of source.matchAll(
    new RegExp(`import\\s+(type\\s+)?([^;]*?)\\s+from\\s+['"]${quoted}['"]`, 'g'),
  )) {
    if (statement[1]) continue;
    const clause = /^\{([^}]*)\}$/.exec(statement[2].trim());
    if (!clause) return null;
    for (const item of clause[1].split(',')) {
      const name = item.trim().split(/\s+as\s+/)[0];
      if (name && !name.startsWith('type ')) names.push(name);
    }
  }
  return names;
}

function firstScreens(): Plugin {
  return {
    name: 'cpc:first-screens',
    apply: 'build',
    buildEnd() {
      const ids = [...this.getModuleIds()];
      const barrelSources = new Map<string, string>();
      const barrelSource = (id: string) => {
        if (!barrelSources.has(id)) barrelSources.set(id, readFileSync(id, 'utf8'));
        return barrelSources.get(id)!;
      };
      /** Where an import of `next` by `id` leads: the named parts of a barrel, or the module itself. */
      const targets = (id: string, next: string): string[] => {
        const barrel = BARRELS.find((b) => b.barrel.test(next));
        if (!barrel || NODE_MODULES.test(id)) return [next];
        const names = importedNames(id, barrel.from);
        if (!names) return [next];
        const found: string[] = [];
        for (const name of names) {
          const suffix = barrel.part(name, barrelSource(next));
          const part = suffix && ids.find((candidate) => candidate.replace(/\\/g, '/').endsWith(suffix));
          if (!part) return [next];
          found.push(part);
        }
        return found;
      };
      const reach = (roots: string[], known: Set<string>[]) => {
        const found = new Set<string>();
        const walk = (id: string) => {
          if (found.has(id) || known.some((set) => set.has(id))) return;
          found.add(id);
          for (const next of this.getModuleInfo(id)?.importedIds ?? [])
            for (const target of targets(id, next)) walk(target);
        };
        for (const id of roots) walk(id);
        return found;
      };
      const roots = (pattern: RegExp) => ids.filter((id) => pattern.test(id));
      graph.entry = reach(
        ids.filter((id) => this.getModuleInfo(id)?.isEntry),
        [],
      );
      graph.login = reach(roots(FIRST_SCREEN_ROOTS.login), [graph.entry]);
      graph.shell = reach(roots(FIRST_SCREEN_ROOTS.shell), [graph.entry, graph.login]);
      graph.firstPage = reach(roots(FIRST_SCREEN_ROOTS.firstPage), [graph.entry, graph.login, graph.shell]);
    },
  };
}

const NODE_MODULES = /node_modules[\\/]/;
const runtime = (id: string) => /^\0(rolldown\/runtime|vite\/preload-helper)/.test(id);
const signedIn = (id: string) => graph.shell.has(id) || graph.firstPage.has(id);

/**
 * Fewer, larger chunks for the first screens, each caching on its own across releases:
 * - `react`: React, ReactDOM and the router; `vendor`: the other libraries of the sign-in page (its first
 *   load is drawn without antd, issue 3's budget), with the bundler's small runtime helpers;
 * - `login`: the sign-in screen in one file;
 * - `antd` and `query`: the libraries of the signed-in shell and the first page (antd with its icons and
 *   rc-components, dayjs; TanStack Query), which every signed-in page then finds there;
 * - `shell`: the console's own layout and providers; `device-list`: the first page with its components;
 * - `locales`: the strings of every feature and the server's message catalogue, loaded together when the
 *   signed-in area opens (the sign-in page fetches them while the user types).
 * What only other pages use is split automatically and travels with them.
 */
const vendorGroups = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 30 },
  {
    name: 'vendor',
    test: (id: string) => runtime(id) || (graph.entry.has(id) && NODE_MODULES.test(id)),
    priority: 28,
    includeDependenciesRecursively: false,
  },
  { name: 'login', test: (id: string) => graph.login.has(id), priority: 26, includeDependenciesRecursively: false },
  {
    name: 'query',
    test: (id: string) => signedIn(id) && /node_modules[\\/]@tanstack[\\/]/.test(id),
    priority: 24,
    includeDependenciesRecursively: false,
  },
  {
    name: 'antd',
    test: (id: string) => signedIn(id) && NODE_MODULES.test(id),
    priority: 22,
    includeDependenciesRecursively: false,
  },
  { name: 'shell', test: (id: string) => graph.shell.has(id), priority: 20, includeDependenciesRecursively: false },
  {
    name: 'device-list',
    test: (id: string) => graph.firstPage.has(id),
    priority: 18,
    includeDependenciesRecursively: false,
  },
  // the signed-in area's strings beyond the sign-in page's, which it loads all at once (lib/i18n.ts `loadDictionaries`)
  {
    name: 'locales',
    test: (id: string) =>
      (!graph.entry.has(id) && /src[\\/](features|layout)[\\/][^\\/]+[\\/]locales\.ts$/.test(id)) ||
      // the server's message catalogue, with the constants its texts name
      /packages[\\/]contracts[\\/]src[\\/](messages|integration-constants)\.ts$/.test(id),
    priority: 16,
    includeDependenciesRecursively: false,
  },
  {
    name: 'vendor',
    test: NODE_MODULES,
    priority: 10,
    tags: ['$initial' as const],
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
            brotli(source, {
              params: {
                [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: source.length,
              },
            }),
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
  plugins: [react(), firstScreens(), precompress()],
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
