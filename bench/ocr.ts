/**
 * Cloud OCR throughput (issue 15): --jobs text-recognition jobs of a photo-like 600×300 Chinese + English
 * document image go through the real queue (ocr_jobs rows taken with SKIP LOCKED by the app's loop, recognised in
 * its tesseract.js pool of --workers worker threads, results written back) — jobs per minute from the first
 * insert until the last job is done, and each job's time from queued to done. Beside it, measured in the same
 * run: the same image recognised --reference times one after another on a single worker called directly (no
 * queue, no database), after one warm-up recognition.
 *
 *   node --import tsx bench/ocr.ts [--jobs 20] [--workers 2] [--reference 10]
 */
import path from 'node:path';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../apps/server/src/config.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { OcrPool } from '../apps/server/src/modules/ai-library/index.ts';
import { photoImage } from '../apps/server/test/ocr-images.ts';
import { loadAverage, log, pct, secs, startScaleDatabase } from './scale.ts';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20' },
    workers: { type: 'string', default: '2' },
    reference: { type: 'string', default: '10' },
  },
});
const JOBS = Number(args.jobs);
const WORKERS = Number(args.workers);
const REFERENCE = Number(args.reference);

const image = await photoImage();
const perMinute = (n: number, ms: number) => (n / ms) * 60_000;

// the reference: one worker, called directly
log(`reference: ${REFERENCE} recognitions on one worker, directly…`);
const direct = new OcrPool(1);
let t0 = performance.now();
await direct.recognize(image);
log(`  worker started and warmed up: ${secs(t0)}`);
const refTimes: number[] = [];
t0 = performance.now();
for (let i = 0; i < REFERENCE; i++) {
  const s = performance.now();
  await direct.recognize(image);
  refTimes.push(performance.now() - s);
}
const refMs = performance.now() - t0;
await direct.close();

const scale = await startScaleDatabase('ocr');
try {
  const config = loadConfig({
    DATA_DIR: path.join(scale.dir, 'data'),
    DATABASE_URL: scale.url,
    LOG_LEVEL: 'silent',
    CAPTCHA_PROVIDER: 'off',
    NODE_ENV: 'test',
    MQTT_PORT: '0',
    OCR_WORKERS: String(WORKERS),
    OCR_TENANT_LIMIT: String(JOBS),
    OCR_POLL_MS: '100',
  });
  const app = await buildApp(config, scale.db);
  await app.ready();
  try {
    const key = app.storage.newKey('bench.jpg');
    const { temp } = await app.storage.receive(Readable.from([image]));
    await app.storage.commit(temp, key);
    const tenant = await scale.db.selectFrom('tenants').select('id').orderBy('id').executeTakeFirstOrThrow();
    // the pool starts on the first job: one job first, so the figure below is the steady state
    log(`queue: warming the pool of ${WORKERS} worker(s)…`);
    t0 = performance.now();
    await insertJobs(1);
    await waitDone(1);
    log(`  pool started and first job done: ${secs(t0)}`);
    t0 = performance.now();
    await insertJobs(JOBS);
    await waitDone(JOBS + 1);
    const queueMs = performance.now() - t0;
    const { rows } = await sql<{ ms: number; run: number }>`
      SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms, duration_ms AS run
      FROM ocr_jobs WHERE state = 'done' ORDER BY id OFFSET 1`.execute(scale.db);
    const waits = rows.map((r) => Number(r.ms));
    const runs = rows.map((r) => Number(r.run));

    log('');
    log(`| figure | this run | reference (same run) |`);
    log(`| --- | --- | --- |`);
    const queueRate = `${perMinute(JOBS, queueMs).toFixed(1)} (${JOBS} jobs in ${(queueMs / 1000).toFixed(1)} s)`;
    const refRate = `${perMinute(REFERENCE, refMs).toFixed(1)} on one worker called directly (${REFERENCE} in ${(refMs / 1000).toFixed(1)} s)`;
    log(`| OCR jobs per minute, ${WORKERS} worker(s), through the queue | ${queueRate} | ${refRate} |`);
    log(
      `| recognition time per image p50 / p95 | ${pct(runs, 0.5).toFixed(0)} / ${pct(runs, 0.95).toFixed(0)} ms | ${pct(refTimes, 0.5).toFixed(0)} / ${pct(refTimes, 0.95).toFixed(0)} ms |`,
    );
    log(`| queued → done per job p50 / p95 | ${pct(waits, 0.5).toFixed(0)} / ${pct(waits, 0.95).toFixed(0)} ms | — |`);
    log(`\nload average ${loadAverage()}; jobs not done: ${JOBS - rows.length}`);

    async function insertJobs(n: number) {
      await scale.db
        .insertInto('ocr_jobs')
        .values(
          Array.from({ length: n }, () => ({
            tenant_id: tenant.id,
            source: 'console' as const,
            image_key: key,
            mime: 'image/jpeg',
            size: image.length,
          })),
        )
        .execute();
      app.ocr.kick();
    }
    async function waitDone(n: number) {
      for (;;) {
        const { rows: r } = await sql<{ n: string }>`
          SELECT count(*) AS n FROM ocr_jobs WHERE state IN ('done', 'failed')`.execute(scale.db);
        if (Number(r[0].n) >= n) return;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
  } finally {
    await app.close();
  }
} finally {
  await scale.close();
}
