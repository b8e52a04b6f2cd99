import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { createDb } from '../src/db/database.ts';
import { caller, type Harness } from './harness.ts';

export interface Node {
  app: FastifyInstance;
  call: Harness['call'];
  close(): Promise<void>;
}

/** Another server node on the harness's database, with its own connection pool (what a second process has). */
export async function secondNode(h: Harness): Promise<Node> {
  const db = createDb(h.config.DATABASE_URL!, 5);
  const app = await buildApp(h.config, db);
  await app.ready();
  return {
    app,
    call: caller(app),
    async close() {
      await app.close();
      await db.destroy();
    },
  };
}
