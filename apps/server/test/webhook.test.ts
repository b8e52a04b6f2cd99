import { createHmac } from 'node:crypto';
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppKeyWithSecret, WebhookDeliveryDetail, WebhookDeliveryItem } from '@cpc/contracts/integration';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, waitUntil, type Customer } from './device-helpers.ts';
import { createKey, nextOrigin, openCall, startReceiver, type Receiver } from './open-helpers.ts';

/**
 * Webhooks (DESIGN §6): every state a job enters is POSTed to the key's callback URL, signed with the key's
 * secret, through the pg-boss queue, retried with back-off (1 s here instead of minutes), logged attempt by
 * attempt, and resent by hand from the console.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let receiver: Receiver;
const specs = makeSpecs(3, { seed: 71, prefix: 'WHK' });
const sn = specs[0].sn;

beforeAll(async () => {
  h = await createHarness({
    WEBHOOK_BACKOFF_S: '1,1,1',
    WEBHOOK_TIMEOUT_MS: '2000',
    JOB_QUEUE_POLL_MS: '500',
    OPEN_RATE_LIMIT: '100000',
  });
  [A, B] = [await customer(h), await customer(h)];
  await devicesOf(h, A.tenantId, specs);
  receiver = await startReceiver();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

/** A key calling back to the receiver, and a job submitted with it (queued: the printer is offline). */
async function jobWithCallback(callbackUrl = receiver.url) {
  const key = await createKey(h, A.token, { callbackUrl });
  receiver.secret = key.secret;
  const res = await openCall(h, key, {
    url: '/print',
    body: { deviceSn: sn, content: 'Hello', originId: nextOrigin() },
  });
  expect(res.statusCode).toBe(200);
  return { key, job: res.body_.data as { id: string } };
}
const deliveries = async (token: string, query: string) =>
  (await h.call({ method: 'GET', url: `/apiAdmin/integration/webhook/list?${query}`, token })).body_.data as {
    list: WebhookDeliveryItem[];
    total: number;
  };
const detail = async (id: string, token = A.token) =>
  (await h.call({ method: 'GET', url: `/apiAdmin/integration/webhook/${id}`, token })).body_
    .data as WebhookDeliveryDetail;
const deliveryOf = (key: AppKeyWithSecret) =>
  waitUntil('the delivery', async () => (await deliveries(A.token, `keyId=${key.id}`)).list[0]);

describe('webhook callbacks', () => {
  it('posts the job state signed with the key secret, and logs the attempt', async () => {
    const { key, job } = await jobWithCallback();
    const call = await waitUntil('the callback', () => receiver.calls.find((c) => c.json.job?.id === job.id));
    expect(call.signatureValid).toBe(true);
    expect(call.headers['content-type']).toContain('application/json');
    expect(call.headers['x-cpc-event']).toBe('print.job.state');
    expect(call.headers['x-cpc-attempt']).toBe('1');
    expect(call.json).toMatchObject({
      event: 'print.job.state',
      appId: key.appId,
      job: { id: job.id, state: 'queued', deviceSn: sn, copies: 1, error: '' },
    });
    // an integrator checks the signature over the raw body with the secret
    expect(call.headers['x-cpc-signature']).toBe(createHmac('sha256', key.secret).update(call.body).digest('hex'));

    const item = await waitUntil('the delivery logged as succeeded', async () => {
      const d = await deliveryOf(key);
      return d.state === 'succeeded' ? d : null;
    });
    expect(item).toMatchObject({
      keyId: key.id,
      appId: key.appId,
      jobId: job.id,
      jobState: 'queued',
      attempts: 1,
      lastStatus: 200,
      lastError: '',
    });
    const d = await detail(item.id);
    expect(d.payload).toBe(call.body);
    expect(d.callbackUrl).toBe(receiver.url);
    expect(d.attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, manual: false, status: 200, error: '', response: 'ok' }),
    ]);
  });

  it('reports every state change of a job, each its own delivery', async () => {
    const { key, job } = await jobWithCallback();
    await openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' });
    const states = await waitUntil('both callbacks', () => {
      const s = receiver.calls.filter((c) => c.json.job?.id === job.id).map((c) => c.json.job.state);
      return s.length >= 2 ? s : null;
    });
    expect(states.sort()).toEqual(['canceled', 'queued']);
    const canceled = receiver.calls.find((c) => c.json.job?.id === job.id && c.json.job.state === 'canceled')!;
    expect(canceled.json.job.error).toBe('canceled by the caller');
    expect((await deliveries(A.token, `jobId=${job.id}`)).total).toBe(2);
  });

  it('retries a failing receiver with back-off: three failures, then the fourth try gets through', async () => {
    const origin = nextOrigin();
    const seen = new Map<string, number>();
    receiver.answer = (c) => {
      const n = (seen.get(c.json.id) ?? 0) + 1;
      seen.set(c.json.id, n);
      return c.json.job?.originId === origin && n <= 3 ? 503 : 200;
    };
    const key = await createKey(h, A.token, { callbackUrl: receiver.url });
    receiver.secret = key.secret;
    const res = await openCall(h, key, {
      url: '/print',
      body: { deviceSn: sn, content: 'retry me', originId: origin },
    });
    const jobId: string = res.body_.data.id;
    const done = await waitUntil(
      'the delivery to succeed',
      async () => {
        const d = (await deliveries(A.token, `jobId=${jobId}`)).list[0];
        return d?.state === 'succeeded' ? d : null;
      },
      30_000,
    );
    const d = await detail(done.id);
    expect(d.attemptLog.map((a) => a.status)).toEqual([503, 503, 503, 200]);
    expect(d.attempts).toBe(4);
    expect(d.attemptLog.every((a) => !a.manual)).toBe(true);
    const calls = receiver.calls.filter((c) => c.json.id === done.id);
    expect(calls.map((c) => c.headers['x-cpc-attempt'])).toEqual(calls.map((_, i) => String(i + 1)));
    expect(calls.every((c) => c.signatureValid && c.body === calls[0].body)).toBe(true);
    receiver.answer = () => 200;
  });

  it('delivers a retry whose queued try was lost (a crash between the attempt and the queue insert)', async () => {
    const origin = nextOrigin();
    let calls = 0;
    receiver.answer = (c) => (c.json.job?.originId === origin && ++calls === 1 ? 503 : 200);
    // the queue insert of the second try never happens, as when the server dies right after the attempt's commit
    const queue = h.app.jobQueue;
    const insert = queue.insert;
    let lost = 0;
    queue.insert = async (name, jobs, opts) => {
      const kept = jobs.filter((j) => !((j.data as { try?: number }).try === 2 && lost++ === 0));
      return insert.call(queue, name, kept, opts);
    };
    try {
      const key = await createKey(h, A.token, { callbackUrl: receiver.url });
      receiver.secret = key.secret;
      const res = await openCall(h, key, {
        url: '/print',
        body: { deviceSn: sn, content: 'lost retry', originId: origin },
      });
      const jobId: string = res.body_.data.id;
      const retrying = await waitUntil('the first try failed', async () => {
        const d = (await deliveries(A.token, `jobId=${jobId}`)).list[0];
        return d?.state === 'retrying' && lost === 1 ? d : null;
      });
      expect(retrying.attempts).toBe(1);
      // nothing is queued for it; the row says when the next try was due, and time passes
      const { rows: queued } = await sql<{
        id: string;
      }>`SELECT id FROM pgboss.job WHERE data->>'deliveryId' = ${retrying.id} AND state IN ('created', 'retry')`.execute(
        h.db,
      );
      expect(queued).toEqual([]);
      await h.db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date(Date.now() - 60_000) })
        .where('id', '=', retrying.id)
        .execute();
      const done = await waitUntil(
        'the delivery to succeed',
        async () => {
          const d = (await deliveries(A.token, `jobId=${jobId}`)).list[0];
          return d?.state === 'succeeded' ? d : null;
        },
        20_000,
      );
      const d = await detail(done.id);
      expect(d.attemptLog.map((a) => [a.attempt, a.status, a.manual])).toEqual([
        [1, 503, false],
        [2, 200, false],
      ]);
      // once: the sweep's re-queued try is not made again
      await new Promise((r) => setTimeout(r, 6000));
      expect(receiver.calls.filter((c) => c.json.id === done.id).map((c) => c.headers['x-cpc-attempt'])).toEqual([
        '1',
        '2',
      ]);
    } finally {
      queue.insert = insert;
      receiver.answer = () => 200;
    }
  });

  it('gives up after the last try, and a manual resend from the console delivers it', async () => {
    receiver.answer = () => 500;
    const { job } = await jobWithCallback();
    const failed = await waitUntil(
      'the delivery to fail for good',
      async () => {
        const d = (await deliveries(A.token, `jobId=${job.id}`)).list[0];
        return d?.state === 'failed' ? d : null;
      },
      30_000,
    );
    // the first try and one retry per back-off entry (1,1,1)
    expect(failed).toMatchObject({ attempts: 4, lastStatus: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    expect((await deliveries(A.token, 'state=failed')).list.map((x) => x.id)).toContain(failed.id);

    receiver.answer = () => 200;
    const res = await h.call({
      method: 'POST',
      url: `/apiAdmin/integration/webhook/${failed.id}/resend`,
      token: A.token,
    });
    expect(res.statusCode).toBe(200);
    const after = res.body_.data as WebhookDeliveryDetail;
    expect(after).toMatchObject({ state: 'succeeded', attempts: 5, lastStatus: 200 });
    expect(after.attemptLog.at(-1)).toMatchObject({ attempt: 5, manual: true, status: 200 });
    expect(after.deliveredAt).not.toBeNull();
  });

  it('logs a receiver that cannot be reached, with no status and the error', async () => {
    // a port nobody listens on
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const { job } = await jobWithCallback(`http://127.0.0.1:${port}/unreachable`);
    const d = await waitUntil('the first failed try', async () => {
      const x = (await deliveries(A.token, `jobId=${job.id}`)).list[0];
      return x && x.attempts >= 1 ? x : null;
    });
    expect(d.state).toMatch(/retrying|failed/);
    expect(d.lastStatus).toBeNull();
    expect(d.lastError).toContain('ECONNREFUSED');
  });

  it('signs with the new secret after a rotation', async () => {
    const { key } = await jobWithCallback();
    const rotated = (
      await h.call({ method: 'POST', url: '/apiAdmin/integration/key/rotate', token: A.token, payload: { id: key.id } })
    ).body_.data as AppKeyWithSecret;
    receiver.secret = rotated.secret;
    const res = await openCall(h, rotated, {
      url: '/print',
      body: { deviceSn: sn, content: 'after rotation', originId: nextOrigin() },
    });
    const call = await waitUntil('the callback', () =>
      receiver.calls.find((c) => c.json.job?.id === res.body_.data.id),
    );
    expect(call.signatureValid).toBe(true);
  });

  it('sends nothing for a key without a callback URL', async () => {
    const key = await createKey(h, A.token);
    await openCall(h, key, { url: '/print', body: { deviceSn: sn, content: 'quiet', originId: nextOrigin() } });
    expect((await deliveries(A.token, `keyId=${key.id}`)).total).toBe(0);
  });

  it('sends nothing for a disabled key', async () => {
    const key = await createKey(h, A.token, { callbackUrl: receiver.url });
    const job = (
      await openCall(h, key, { url: '/print', body: { deviceSn: sn, content: 'x', originId: nextOrigin() } })
    ).body_.data;
    await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/state',
      token: A.token,
      payload: { id: key.id, state: 'disabled' },
    });
    await h.call({ method: 'POST', url: `/apiAdmin/integration/job/${job.id}/cancel`, token: A.token });
    expect((await deliveries(A.token, `jobId=${job.id}`)).list.map((d) => d.jobState)).toEqual(['queued']);
  });

  it("keeps deliveries inside their account: another account's are not found", async () => {
    const { key } = await jobWithCallback();
    const d = await deliveryOf(key);
    expect(
      (await h.call({ method: 'GET', url: `/apiAdmin/integration/webhook/${d.id}`, token: B.token })).statusCode,
    ).toBe(404);
    expect(
      (await h.call({ method: 'POST', url: `/apiAdmin/integration/webhook/${d.id}/resend`, token: B.token }))
        .statusCode,
    ).toBe(404);
    expect((await deliveries(B.token, '')).total).toBe(0);
    expect(
      (await h.call({ method: 'GET', url: `/apiAdmin/integration/webhook/list?keyId=${key.id}`, token: B.token }))
        .statusCode,
    ).toBe(404);
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/integration/webhook/not-a-uuid', token: A.token })).statusCode,
    ).toBe(400);
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/integration/webhook/list?state=lost', token: A.token }))
        .statusCode,
    ).toBe(400);
  });
});
