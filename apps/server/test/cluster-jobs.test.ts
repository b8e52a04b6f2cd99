import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterLocks } from '../src/lib/cluster-locks.ts';
import { Periodic } from '../src/lib/periodic.ts';
import { createTestDatabase } from './harness.ts';

const TICK_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { warn: () => {} };
const CHILD = path.join(import.meta.dirname, 'fixtures/cluster-job-node.ts');

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error('condition not met in time');
    await sleep(TICK_MS / 2);
  }
}

/**
 * Cluster-once periodic jobs (docs/cluster-state.md): two nodes, each with its own lock session and its own
 * Periodic, run the same job; every run is counted in a table by the node that ran it.
 */
describe('cluster-once periodic jobs', () => {
  let url: string;
  let admin: pg.Pool;

  beforeAll(async () => {
    url = await createTestDatabase();
    admin = new pg.Pool({ connectionString: url, max: 4 });
    await admin.query('CREATE TABLE job_runs (id serial PRIMARY KEY, node text NOT NULL, job text NOT NULL)');
  });
  afterAll(async () => {
    await admin.end();
  });

  const runs = async (job: string) => {
    const { rows } = await admin.query<{ node: string; n: number }>(
      'SELECT node, count(*)::int AS n FROM job_runs WHERE job = $1 GROUP BY node',
      [job],
    );
    return Object.fromEntries(rows.map((r) => [r.node, r.n])) as Record<string, number>;
  };

  /** A node: its own lock session and a Periodic running `job` once per cluster (and `local` on every node). */
  const node = (name: string, job: string) => {
    const locks = new ClusterLocks(url, quiet);
    const errors: unknown[] = [];
    const periodic = new Periodic((err) => errors.push(err), { locks, scope: 'test' });
    const record = (j: string) => async () => {
      await admin.query('INSERT INTO job_runs (node, job) VALUES ($1, $2)', [name, j]);
    };
    periodic.every(TICK_MS, job, record(job), 'cluster');
    periodic.every(TICK_MS, `${job} local`, record(`${job} local`), 'node');
    return {
      locks,
      errors,
      async stop() {
        await periodic.stop();
        await locks.close();
      },
    };
  };

  it('runs on exactly one node per tick while every node runs its node jobs; a clean stop hands it over', async () => {
    const a = node('a', 'handover');
    await sleep(TICK_MS * 3); // a takes the lock at its first tick
    const b = node('b', 'handover');
    await sleep(TICK_MS * 10);
    const before = await runs('handover');
    expect(before.a).toBeGreaterThanOrEqual(5);
    expect(before.b).toBeUndefined();
    // the node jobs run on both
    const local = await runs('handover local');
    expect(local.a).toBeGreaterThanOrEqual(5);
    expect(local.b).toBeGreaterThanOrEqual(5);
    expect(a.locks.holding()).toEqual(['test: handover']);
    expect(b.locks.holding()).toEqual([]);

    await a.stop();
    const aRuns = (await runs('handover')).a;
    await sleep(TICK_MS * 6);
    const after = await runs('handover');
    expect(after.a).toBe(aRuns);
    expect(after.b).toBeGreaterThanOrEqual(3);
    expect(b.locks.holding()).toEqual(['test: handover']);
    await b.stop();
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('is taken over when the holding node is killed with SIGKILL', async () => {
    const a = spawn(process.execPath, ['--import', 'tsx', CHILD, url, 'a', 'crash', String(TICK_MS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await once(a.stdout!, 'data');
      await until(async () => ((await runs('crash')).a ?? 0) >= 2);
      const b = node('b', 'crash');
      await sleep(TICK_MS * 5);
      expect((await runs('crash')).b).toBeUndefined();

      // PostgreSQL sees the killed process's connection close, and its session lock goes with it
      a.kill('SIGKILL');
      await once(a, 'exit');
      const aRuns = (await runs('crash')).a;
      // taken over within until's bound (10 s; a few ticks on a quiet machine), never at a restart of its own
      await until(async () => ((await runs('crash')).b ?? 0) >= 3);
      expect((await runs('crash')).a).toBe(aRuns);
      expect(b.locks.holding()).toEqual(['test: crash']);
      await b.stop();
      expect(b.errors).toEqual([]);
    } finally {
      a.kill('SIGKILL');
    }
  });
});
