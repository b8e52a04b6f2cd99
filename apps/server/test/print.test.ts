import path from 'node:path';
import readline from 'node:readline';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppKeyWithSecret } from '@cpc/contracts/integration';
import type { PrintJobState } from '@cpc/contracts/open-api';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs, type DeviceSpec } from '../../device-sim/src/specs.ts';
import type { VirtualDevice } from '../../device-sim/src/device.ts';
import { printMsg } from '../src/modules/print/service.ts';
import { createHarness, uploadImage, type Harness } from './harness.ts';
import { customer, deviceRow, devicesOf, waitUntil, type Customer } from './device-helpers.ts';
import { createKey, nextOrigin, openCall, printRow, startReceiver, type Receiver } from './open-helpers.ts';

/**
 * Printing end to end (DESIGN §6): the open API → the job row → `down/print` over the embedded broker → the
 * fleet simulator, which decodes the ESC/POS bytes into the lines it prints → ack, progress, result → the job's
 * states → the signed webhook at a local receiver. Offline printers, repeats, expiry, paper out and cancel races.
 */
let h: Harness;
let A: Customer;
let key: AppKeyWithSecret;
let receiver: Receiver;
let url: string;
const specs = makeSpecs(16, { seed: 61, prefix: 'PRT' });
let next = 0;
const fleets: Fleet[] = [];

beforeAll(async () => {
  // a non-zero back-off: a timed-out job waits in `timeout` for a while, where a cancel may meet it
  h = await createHarness({
    SWEEP_INTERVAL_MS: '200',
    LAST_SEEN_FLUSH_MS: '100',
    PRINT_ACK_TIMEOUT_S: '2',
    PRINT_RETRY_BACKOFF_S: '1',
    PRINT_MAX_ATTEMPTS: '3',
    OPEN_RATE_LIMIT: '100000',
    JOB_QUEUE_POLL_MS: '500',
  });
  A = await customer(h);
  await devicesOf(h, A.tenantId, specs);
  receiver = await startReceiver();
  key = await createKey(h, A.token, { callbackUrl: receiver.url });
  receiver.secret = key.secret;
  url = h.app.gateway.deviceUrl;
});
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(fleets.map((f) => f.stop()));
  await h?.close();
  await receiver?.close();
});

/** A printer of tenant A no other test has used, powered on unless told otherwise. */
async function printer(
  opts: { on?: boolean; printLineMs?: number } = {},
): Promise<{ d: VirtualDevice; spec: DeviceSpec }> {
  const spec = specs[next++];
  const f = await createFleet({
    url,
    specs: [spec],
    seed: 61,
    heartbeatS: 30,
    start: false,
    printLineMs: opts.printLineMs ?? 5,
    randomFaults: false,
  });
  fleets.push(f);
  const d = f.devices[0];
  if (opts.on !== false) {
    await d.powerOn();
    await online(spec.sn);
  }
  return { d, spec };
}
// online, and the hello handled to its end: its resend of pending jobs would otherwise also deliver a job submitted
// right after it (a second attempt: at least once, but not what a test counting attempts expects)
const online = async (sn: string) => {
  await waitUntil(`${sn} online`, async () => (await deviceRow(h, sn)).status === 'online');
  await h.app.gateway.settled(sn);
};
const offline = (sn: string) => waitUntil(`${sn} offline`, async () => (await deviceRow(h, sn)).status === 'offline');
const submit = async (deviceSn: string, body: Record<string, unknown> = {}) => {
  const res = await openCall(h, key, {
    url: '/print',
    body: { deviceSn, content: 'Hello', originId: nextOrigin(), ...body },
  });
  if (res.statusCode !== 200) throw new Error(`submit: ${res.body}`);
  return res.body_.data as { id: string; state: PrintJobState };
};
const stateOf = async (id: string) =>
  (await openCall(h, key, { url: `/print/${id}` })).body_.data.state as PrintJobState;
const until = (id: string, state: PrintJobState) =>
  waitUntil(`job ${id} ${state}`, async () => (await printRow(h, id)).state === state);
const printedIds = (d: VirtualDevice) => d.printed.map((p) => p.id);

describe('printing through the open API', () => {
  it('prints what the preview shows, and calls back with a valid signature', async () => {
    const { d, spec } = await printer();
    const logo = await uploadImage(h, A.token);
    const content = [
      '<C><L>Tea House</L></C>',
      '<C>茶馆 · 收据</C>',
      '<HR>',
      'Green tea x2',
      '<R>24.00</R>',
      '<B>Total</B>                 24.00',
      '中文长行会在三十二列处换行，中文字符每个占两列宽度。',
      `<IMG>${logo}</IMG>`,
      '<C><QR>https://example.com/r?id=7&amp;t=1</QR></C>',
      '<BAR>NO-12345</BAR>',
      '<CUT>',
    ].join('\n');
    const job = await submit(spec.sn, { content, copies: 2 });
    expect(job.state).toBe('sent');
    await until(job.id, 'printed');

    const out = d.printed.find((p) => p.id === job.id)!;
    expect(out.copies).toBe(2);
    const detail = (await h.call({ method: 'GET', url: `/apiAdmin/integration/job/${job.id}`, token: A.token })).body_
      .data;
    // the simulator reads the ESC/POS bytes back independently of the server's renderer
    expect(out.lines).toEqual(detail.preview);
    expect(out.lines).toContain('[QR https://example.com/r?id=7&t=1]');
    expect(out.lines).toContain('[BARCODE NO-12345]');
    expect(out.lines).toContain('[CUT]');
    expect(out.lines.some((l) => /^\[IMAGE \d+x\d+\]$/.test(l))).toBe(true);
    expect(out.lines.some((l) => l.includes('茶馆'))).toBe(true);
    expect(out.lines[0].trim()).toBe('Tea House');

    const row = await printRow(h, job.id);
    expect(row.sent_at && row.delivered_at && row.started_at && row.finished_at).toBeTruthy();
    const callbacks = await waitUntil('the printed callback', () => {
      const got = receiver.calls.filter((c) => c.json.job?.id === job.id);
      return got.some((c) => c.json.job.state === 'printed') ? got : null;
    });
    for (const c of callbacks) {
      expect(c.signatureValid).toBe(true);
      expect(c.headers['x-cpc-app-id']).toBe(key.appId);
      expect(c.headers['x-cpc-delivery']).toBe(c.json.id);
      expect(c.json).toMatchObject({
        event: 'print.job.state',
        appId: key.appId,
        job: { id: job.id, deviceSn: spec.sn, copies: 2 },
      });
    }
    expect(callbacks.map((c) => c.json.job.state)).toEqual(
      expect.arrayContaining(['sent', 'delivered', 'printing', 'printed']),
    );
  });

  it('prints a repeated message once; the repeat is answered, not printed', async () => {
    const { d, spec } = await printer();
    const job = await submit(spec.sn);
    await until(job.id, 'printed');
    const row = await h.db.selectFrom('print_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    await h.app.gateway.send(spec.sn, 'print', printMsg({ ...row, sn: spec.sn } as Parameters<typeof printMsg>[0]));
    await h.app.gateway.send(spec.sn, 'print', printMsg({ ...row, sn: spec.sn } as Parameters<typeof printMsg>[0]));
    await waitUntil('the repeats', () => d.printsReceived.filter((m) => m.id === job.id).length === 3);
    await d.printIdle();
    await h.app.gateway.settled(spec.sn);
    expect(printedIds(d).filter((id) => id === job.id)).toHaveLength(1);
    expect(await stateOf(job.id)).toBe('printed');
  });

  it('queues jobs for an offline printer and prints them once, in submission order, when it comes back', async () => {
    const { d, spec } = await printer({ printLineMs: 20 });
    const receipt = (n: number) => Array.from({ length: 8 }, (_, i) => `job ${n} line ${i}`).join('\n');
    const first: Array<{ id: string; state: PrintJobState }> = [];
    for (let n = 0; n < 4; n++) first.push(await submit(spec.sn, { content: receipt(n) }));
    // the connection dies while the printer works through its queue
    await waitUntil('the first job printed', () => d.printed.length >= 1);
    d.kill();
    await offline(spec.sn);
    const later: Array<{ id: string; state: PrintJobState }> = [];
    for (let n = 4; n < 8; n++) later.push(await submit(spec.sn, { content: receipt(n) }));
    expect(later.map((j) => j.state)).toEqual(['queued', 'queued', 'queued', 'queued']);
    const status = await openCall(h, key, { url: `/devices/${spec.sn}/status` });
    expect(status.body_.data).toMatchObject({ state: 'offline' });
    expect(status.body_.data.pendingJobs).toBeGreaterThanOrEqual(4);

    await d.powerOn();
    const all = [...first, ...later];
    await waitUntil(
      'every job printed',
      async () => (await Promise.all(all.map((j) => printRow(h, j.id)))).every((r) => r.state === 'printed'),
      30_000,
    );
    await d.printIdle();
    expect(printedIds(d)).toEqual(all.map((j) => j.id));
    expect(d.printed.map((p) => p.lines[0])).toEqual(all.map((_, n) => `job ${n} line 0`));
  });

  it('expires a job whose printer stays offline past its expiry; the printer never gets it', async () => {
    const { d, spec } = await printer({ on: false });
    const job = await submit(spec.sn, { expireInSec: 10 });
    expect(job.state).toBe('queued');
    // the clock moves on: the job's expiry is now
    await h.db
      .updateTable('print_jobs')
      .set({ expire_at: new Date(Date.now() - 1000) })
      .where('id', '=', job.id)
      .execute();
    await until(job.id, 'expired');
    expect((await printRow(h, job.id)).error).toContain('expired');
    await d.powerOn();
    const later = await submit(spec.sn);
    await until(later.id, 'printed');
    expect(d.printsReceived.map((m) => m.id)).not.toContain(job.id);
    expect(await stateOf(job.id)).toBe('expired');
  });

  it('records a job the printer printed after its expiry as printed: the record follows the paper', async () => {
    const { d, spec } = await printer({ printLineMs: 100 });
    const job = await submit(spec.sn, { content: Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') });
    await until(job.id, 'printing');
    await h.db
      .updateTable('print_jobs')
      .set({ expire_at: new Date(Date.now() - 1000) })
      .where('id', '=', job.id)
      .execute();
    await until(job.id, 'failed');
    expect((await printRow(h, job.id)).error).toBe('no result from the printer before the job expired');
    await until(job.id, 'printed');
    expect((await printRow(h, job.id)).error).toContain('printed after its expiry');
    expect(printedIds(d)).toEqual([job.id]);
  });

  it('fails the jobs a printer cannot print when its paper runs out mid-queue, with its reason, and prints again once refilled', async () => {
    const { d, spec } = await printer({ printLineMs: 10 });
    // enough paper for the first job and part of the second
    d.loadPaper(15);
    const jobs: Array<{ id: string; state: PrintJobState }> = [];
    for (let n = 0; n < 3; n++)
      jobs.push(await submit(spec.sn, { content: Array.from({ length: 10 }, (_, i) => `${n}:${i}`).join('\n') }));
    await until(jobs[0].id, 'printed');
    await until(jobs[1].id, 'failed');
    await until(jobs[2].id, 'failed');
    expect((await printRow(h, jobs[1].id)).error).toBe('paper out');
    const status = await waitUntil('the fault reported', async () => {
      const s = (await openCall(h, key, { url: `/devices/${spec.sn}/status` })).body_.data;
      return s.state === 'fault' ? s : null;
    });
    expect(status).toMatchObject({ fault: 'paper_out', paper: 'out' });
    d.refillPaper();
    await waitUntil('the paper back', async () => (await deviceRow(h, spec.sn)).paper === 'ok');
    const after = await submit(spec.sn);
    await until(after.id, 'printed');
    expect(printedIds(d)).toEqual([jobs[0].id, after.id]);
  });

  it('times out a job nobody acknowledges, sends it again, and prints it once', async () => {
    const { d, spec } = await printer();
    d.ignoreCommands = true;
    const job = await submit(spec.sn);
    // unanswered: timed out and sent again after the back-off
    await waitUntil(
      'a second delivery',
      async () =>
        (await printRow(h, job.id)).attempts >= 2 && d.printsReceived.filter((m) => m.id === job.id).length >= 2,
    );
    d.ignoreCommands = false;
    await until(job.id, 'printed');
    const row = await printRow(h, job.id);
    expect(row.attempts).toBeGreaterThanOrEqual(2);
    expect(printedIds(d)).toEqual([job.id]);
  });

  it('asks a printer again for a result lost on its way (with a node that died), and it is not printed twice', async () => {
    const { d, spec } = await printer();
    const job = await submit(spec.sn);
    await until(job.id, 'printed');
    // as if the result never arrived: the job where the printer's progress left it, and nothing heard since
    // for longer than PRINT_RESULT_TIMEOUT_S (60 s)
    await h.db
      .updateTable('print_jobs')
      .set({ state: 'printing', finished_at: null, updated_at: new Date(Date.now() - 3_600_000) })
      .where('id', '=', job.id)
      .execute();
    await until(job.id, 'printed');
    // sent once more, answered with the result the printer kept; on paper once
    expect(d.printsReceived.filter((m) => m.id === job.id)).toHaveLength(2);
    expect(printedIds(d)).toEqual([job.id]);
  });

  it('decides a cancel racing the delivery one way: canceled and never printed, or refused and printed once', async () => {
    const { d, spec } = await printer({ on: false });
    const jobs: Array<{ id: string; state: PrintJobState }> = [];
    for (let n = 0; n < 10; n++) jobs.push(await submit(spec.sn, { content: `race ${n}` }));
    const powered = d.powerOn();
    const cancels = await Promise.all(
      jobs.map(async (j, n) => {
        await new Promise((r) => setTimeout(r, n * 40));
        return (await openCall(h, key, { url: `/print/${j.id}/cancel`, method: 'POST' })).statusCode;
      }),
    );
    await powered;
    const final = await waitUntil('every job settled', async () => {
      const rows = await Promise.all(jobs.map((j) => printRow(h, j.id)));
      return rows.every((r) => r.state === 'canceled' || r.state === 'printed') ? rows : null;
    });
    await d.printIdle();
    await h.app.gateway.settled(spec.sn);
    jobs.forEach((j, n) => {
      const printed = printedIds(d).filter((id) => id === j.id).length;
      if (cancels[n] === 200) {
        expect(final[n].state, `job ${n}`).toBe('canceled');
        expect(printed, `job ${n}`).toBe(0);
      } else {
        expect(cancels[n], `job ${n}`).toBe(400);
        expect(final[n].state, `job ${n}`).toBe('printed');
        expect(printed, `job ${n}`).toBe(1);
      }
    });
  });

  it('refuses to cancel jobs whose ack was lost (timeout): a cancel answered 200 is never printed, a refused one prints once', async () => {
    // the printer takes every job and prints them one after the other, but its acks are lost on the way: the jobs
    // behind the first one time out while they wait in the printer's own queue
    const { d, spec } = await printer({ printLineMs: 60 });
    d.dropAcks = true;
    const jobs: Array<{ id: string; state: PrintJobState }> = [
      await submit(spec.sn, { content: Array.from({ length: 40 }, (_, i) => `long ${i}`).join('\n') }),
    ];
    for (let n = 1; n <= 6; n++) jobs.push(await submit(spec.sn, { content: `short ${n}\nline 2\nline 3` }));
    await waitUntil(
      'jobs in timeout',
      async () =>
        (await Promise.all(jobs.map((j) => printRow(h, j.id)))).filter((r) => r.state === 'timeout').length >= 3,
      10_000,
    );
    const cancels = await Promise.all(
      jobs.map((j) => openCall(h, key, { url: `/print/${j.id}/cancel`, method: 'POST' })),
    );
    const final = await waitUntil(
      'every job settled',
      async () => {
        const rows = await Promise.all(jobs.map((j) => printRow(h, j.id)));
        return rows.every((r) => r.state === 'canceled' || r.state === 'printed' || r.state === 'failed') ? rows : null;
      },
      30_000,
    );
    await d.printIdle();
    await h.app.gateway.settled(spec.sn);
    jobs.forEach((j, n) => {
      const printed = printedIds(d).filter((id) => id === j.id).length;
      if (cancels[n].statusCode === 200) {
        expect(final[n].state, `job ${n}`).toBe('canceled');
        expect(printed, `job ${n}`).toBe(0);
      } else {
        expect(cancels[n].statusCode, `job ${n}`).toBe(400);
        expect(cancels[n].body_.data.reason, `job ${n}`).toBe('not_cancelable');
        expect(final[n].state, `job ${n}`).toBe('printed');
        expect(printed, `job ${n}`).toBe(1);
      }
    });
    // the race was met: jobs the printer had were in timeout when their cancel came
    expect(cancels.filter((c) => c.body_.data?.state === 'timeout').length).toBeGreaterThanOrEqual(1);
  });

  it('does not charge a printer that drops off the line for its missing acks: the job waits in queued and prints once it stays', async () => {
    const { d, spec } = await printer();
    // the job reaches the printer, which loses the connection before it answers — more often than PRINT_MAX_ATTEMPTS (3)
    d.ignoreCommands = true;
    const job = await submit(spec.sn);
    expect(job.state).toBe('sent');
    for (let cycle = 1; cycle <= 4; cycle++) {
      await waitUntil(`delivery ${cycle}`, () => d.printsReceived.filter((m) => m.id === job.id).length >= cycle);
      d.kill();
      await offline(spec.sn);
      // past the ack time-out: not a time-out of an online printer, so not counted
      const row = await waitUntil(`cycle ${cycle}: back in queued`, async () => {
        const r = await printRow(h, job.id);
        return r.state !== 'sent' ? r : null;
      });
      expect(row, `cycle ${cycle}`).toMatchObject({ state: 'queued', ack_timeouts: 0, attempts: cycle, error: '' });
      // and its cancel is still refused: it may have reached the printer
      const cancel = await openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' });
      expect(cancel.body_.data, `cycle ${cycle}`).toMatchObject({ reason: 'not_cancelable', state: 'queued' });
      await d.powerOn();
    }
    d.ignoreCommands = false;
    // the hello's resend (or the next one after the ack time-out) delivers it to a printer that now answers
    await until(job.id, 'printed');
    await d.printIdle();
    expect(printedIds(d)).toEqual([job.id]);
    expect((await printRow(h, job.id)).attempts).toBeGreaterThanOrEqual(5);
  });

  it('sends a terminal the markup, which the simulator lays out exactly as the preview shows', async () => {
    await h.db
      .insertInto('device_models')
      .values({
        code: 'CPSIM-T58',
        name: 'Simulated Android terminal 58 mm',
        kind: 'android-terminal',
        paper_width_mm: 58,
        capabilities: ['print'],
      })
      .onConflict((oc) => oc.column('code').doNothing())
      .execute();
    const { d, spec } = await printer();
    await h.db
      .updateTable('devices')
      .set({ model_id: (eb) => eb.selectFrom('device_models').select('id').where('code', '=', 'CPSIM-T58') })
      .where('sn', '=', spec.sn)
      .execute();
    const content = [
      '<C><L>Terminal</L></C>',
      '<R>右对齐 12.00</R>',
      '<B>Bold</B> &lt;tag&gt; &amp; more',
      '<HR>',
      '<C><QR>https://example.com/t?a=1&amp;b=2</QR></C>',
      '<BAR>T-001</BAR>',
      '<CUT>',
    ].join('\n');
    const job = await submit(spec.sn, { content });
    await until(job.id, 'printed');
    const detail = (await h.call({ method: 'GET', url: `/apiAdmin/integration/job/${job.id}`, token: A.token })).body_
      .data;
    expect(detail.format).toBe('markup');
    const out = d.printed.find((p) => p.id === job.id)!;
    expect(out.lines).toEqual(detail.preview);
    // laid out, not the tags as sent: large text centred by its double width, right-aligned Chinese, entities decoded
    expect(out.lines).toEqual([
      `${' '.repeat(8)}Terminal`,
      `${' '.repeat(20)}右对齐 12.00`,
      'Bold <tag> & more',
      '-'.repeat(32),
      '[QR https://example.com/t?a=1&b=2]',
      '[BARCODE T-001]',
      '[CUT]',
    ]);
  });

  it("shows each receipt its devices print on the simulator's command line with --show-prints", async () => {
    const cliSpecs = makeSpecs(1, { seed: 62, prefix: 'PRTCLI' });
    await devicesOf(h, A.tenantId, cliSpecs);
    const root = path.resolve(import.meta.dirname, '../../..');
    const { NODE_OPTIONS: _, ...env } = process.env;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'apps/device-sim/src/cli.ts',
        '--devices',
        '1',
        '--seed',
        '62',
        '--prefix',
        'PRTCLI',
        '--url',
        url,
        '--show-prints',
      ],
      {
        cwd: root,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    const out: string[] = [];
    readline.createInterface({ input: child.stdout! }).on('line', (l) => out.push(l));
    await online(cliSpecs[0].sn);
    const job = await submit(cliSpecs[0].sn, { content: '<C><B>CLI receipt</B></C>\n中文 line\n<CUT>', copies: 2 });
    await until(job.id, 'printed');
    const at = await waitUntil('the receipt on stdout', () => {
      const i = out.findIndex((l) => l.includes(`${cliSpecs[0].sn} printed job ${job.id} (2 copies, delivery 1):`));
      return i >= 0 && out.length >= i + 6 ? i + 1 : null;
    });
    // one copy between the paper's edges; a Chinese character takes two columns
    expect(out.slice(at, at + 5)).toEqual([
      '+-----------------------+',
      '|           CLI receipt |',
      '| 中文 line             |',
      '| [CUT]                 |',
      '+-----------------------+',
    ]);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  });

  it('clears a queue: the queued jobs never reach the printer', async () => {
    const { d, spec } = await printer({ on: false });
    const jobs = [await submit(spec.sn), await submit(spec.sn)];
    const cleared = await openCall(h, key, { url: `/devices/${spec.sn}/clear`, method: 'POST' });
    expect(cleared.body_.data).toEqual({ canceled: 2, jobIds: jobs.map((j) => j.id) });
    await d.powerOn();
    await online(spec.sn);
    const after = await submit(spec.sn);
    await until(after.id, 'printed');
    // a job may arrive twice (at least once delivery); only the new one arrives at all
    expect(new Set(d.printsReceived.map((m) => m.id))).toEqual(new Set([after.id]));
    expect(printedIds(d)).toEqual([after.id]);
  });
});
