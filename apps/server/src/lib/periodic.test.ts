import { describe, expect, it } from 'vitest';
import { Periodic } from './periodic.ts';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Periodic', () => {
  it('runs a job again and again, never two runs of it at once, and stop() waits for the run under way', async () => {
    const errors: string[] = [];
    const p = new Periodic((_err, job) => errors.push(job));
    let runs = 0;
    let active = 0;
    let most = 0;
    let finished = 0;
    p.every(
      5,
      'slow',
      async () => {
        runs++;
        most = Math.max(most, ++active);
        await tick(40);
        active--;
        finished++;
      },
      'node',
    );
    await tick(100);
    await p.stop();
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
    // the run that stop() found going has ended too, and nothing starts after it
    expect(finished).toBe(runs);
    await tick(30);
    expect(runs).toBe(finished);
    expect(errors).toEqual([]);
  });

  it('hands a failure to onError with the job name and goes on with the next tick', async () => {
    const errors: Array<[string, string]> = [];
    const p = new Periodic((err, job) => errors.push([job, (err as Error).message]));
    let runs = 0;
    p.every(
      5,
      'flaky',
      async () => {
        runs++;
        throw new Error(`run ${runs}`);
      },
      'node',
    );
    await tick(60);
    await p.stop();
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toEqual(['flaky', 'run 1']);
    expect(errors).toHaveLength(runs);
  });
});
