import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Periodic } from '../../lib/periodic.ts';
import type { ChunkedUploads } from './uploads.ts';

/** Unfinished package uploads older than 24 hours are removed, every 10 minutes (any node may: files only). */
export const packageUpkeep = fp<{ uploads: ChunkedUploads; everyMs?: number }>(
  async (app: FastifyInstance, { uploads, everyMs = 10 * 60_000 }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `packages: ${job} failed`));
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'sweep-uploads', () => uploads.sweep(), 'node'); // this node's upload directory
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'package-upkeep' },
);
