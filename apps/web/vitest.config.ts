import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

export default mergeConfig(
  viteConfig,
  defineConfig({
    // resolve from this app even when vitest is started from the repository root
    root: fileURLToPath(new URL('.', import.meta.url)),
    resolve: {
      // One format of antd in tests. Node loads 'antd' (no exports map) as its CommonJS build, whose icons
      // require() an ES module of @ant-design/colors; the console's few 'antd/es/…' imports pulled antd's ES build
      // in beside it, and when those were importing that same module at the moment, Node 20's require(esm) failed
      // ("reading 'getStatus'", nodejs/node#59366) and a page's code did not load: seen twice in CI. Here they load
      // the CommonJS twin of the same module; the console's bundle keeps the ES build throughout.
      alias: [{ find: /^antd\/es\/(.*)$/, replacement: 'antd/lib/$1' }],
    },
    test: {
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['./src/lib/testing/setup-dom.ts', './src/lib/testing/setup-i18n.ts'],
      // screens render antd in jsdom beside the server's tests (npm test runs both lanes at once): a page test
      // can take tens of seconds on a busy 2-core machine, which is slowness, not a failure
      testTimeout: 60_000,
    },
  }),
);
