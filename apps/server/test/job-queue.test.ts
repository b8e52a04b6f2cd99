import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../src/plugins/job-queue.ts';
import { createTestDatabase } from './harness.ts';

/**
 * Nodes started together on a fresh database (docs/deploy.md; e2e/cluster.e2e.ts starts three at once) each
 * install pg-boss and create the queues they work on. pg-boss's own install is guarded; two of its
 * `create_queue` calls on the same fresh schema deadlock about one start in three, and the node chosen as the
 * victim used to exit with "deadlock detected".
 */
const QUEUES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
const started: JobQueue[] = [];
afterAll(async () => {
  await Promise.all(started.map((q) => q.stop()));
});

describe('the job queue', () => {
  it('starts on three nodes at once on an empty database, every time', async () => {
    const log = pino({ level: 'silent' });
    for (let round = 0; round < 4; round++) {
      const databaseUrl = await createTestDatabase();
      const nodes = [0, 1, 2].map(() => {
        const q = new JobQueue({ databaseUrl, pollMs: 500, log });
        for (const name of QUEUES) q.queue(name);
        started.push(q);
        return q;
      });
      const results = await Promise.allSettled(nodes.map((q) => q.start()));
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'started'))).toEqual([
        'started',
        'started',
        'started',
      ]);
      // pg-boss keeps queues of its own beside ours
      const made = (await nodes[0].boss!.getQueues()).map((q) => q.name).filter((n) => !n.startsWith('__pgboss'));
      expect(made.sort()).toEqual(QUEUES);
    }
  });
});
