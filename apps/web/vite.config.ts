import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const API_PROXY = { '/apiAdmin': { target: 'http://localhost:8080', changeOrigin: true } };

/** Third-party code the first screen needs, split so each piece caches on its own across releases. */
const vendorGroups = [
  { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/, priority: 30 },
  // only the part of antd the first screen uses; components of lazy pages travel with those pages
  { name: 'antd', test: /node_modules[\\/](antd|@ant-design|@rc-component|rc-[^\\/]+)[\\/]/, priority: 20, tags: ['$initial' as const] },
  { name: 'vendor', test: /node_modules[\\/]/, priority: 10, tags: ['$initial' as const] },
];

export default defineConfig({
  // relative asset URLs so the built console can be served from any sub-path
  base: './',
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: { proxy: API_PROXY },
  preview: { proxy: API_PROXY },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        codeSplitting: { groups: vendorGroups },
      },
    },
  },
});
