import { createHash, createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { WEBHOOK_EVENT, WEBHOOK_HEADERS, type WebhookPayload } from '@cpc/contracts/open-api';
import type { Db } from '../../db/database.ts';
import { OutboundError, outboundRequest } from '../../lib/outbound-http.ts';
import type { JobQueue, QueueJob } from '../../plugins/job-queue.ts';
import type { PrintJobState } from '../../db/schema.ts';
import { WebhookDeliveryRepository, type DeliveryRow } from './repository/index.ts';

export const WEBHOOK_QUEUE = 'webhook';

export interface WebhookOptions {
  /** Seconds before each retry: the n-th retry waits backoffS[n-1]; after the last one the delivery fails. */
  backoffS: number[];
  timeoutMs: number;
  /** Whether callback URLs may point at loopback, private or link-local addresses (OUTBOUND_PRIVATE). */
  allowPrivate: boolean;
}

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string;
}

/** The pg-boss job of the n-th scheduled try of a delivery: its id is derived, so queuing it twice is harmless. */
const tryJobId = (deliveryId: string, n: number) => {
  const h = createHash('md5').update(`${deliveryId}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** The exact body of a print job's delivery: built from what the row holds, so every try sends the same bytes. */
export function webhookBody(r: {
  id: string;
  app_id: string;
  occurred_at: Date;
  job_id: string;
  origin_id: string;
  sn: string;
  job_state: PrintJobState;
  job_error: string;
  copies: number;
}): string {
  const payload: WebhookPayload = {
    id: r.id,
    event: WEBHOOK_EVENT,
    appId: r.app_id,
    occurredAt: new Date(r.occurred_at).toISOString(),
    job: {
      id: r.job_id,
      originId: r.origin_id,
      deviceSn: r.sn,
      state: r.job_state,
      error: r.job_error,
      copies: r.copies,
    },
  };
  return JSON.stringify(payload);
}

/**
 * The body of another event's delivery (issue 16: `fence.enter` / `fence.leave`): the same envelope as a print
 * job's — `id`, `event`, `appId`, `occurredAt` — and the event's own fields from the row's `payload`.
 */
export function eventWebhookBody(r: {
  id: string;
  app_id: string;
  occurred_at: Date;
  event: string;
  payload: Record<string, unknown>;
}): string {
  const { event: _e, ...fields } = r.payload;
  void _e;
  return JSON.stringify({
    id: r.id,
    event: r.event,
    appId: r.app_id,
    occurredAt: new Date(r.occurred_at).toISOString(),
    ...fields,
  });
}

const deliveryBody = (r: DeliveryRow): string =>
  r.job_id === null || r.payload !== null
    ? eventWebhookBody({ ...r, payload: r.payload ?? {} })
    : webhookBody({
        ...r,
        job_id: r.job_id,
        job_state: r.job_state!,
        origin_id: r.origin_id ?? '',
        sn: r.sn ?? '',
        copies: r.copies ?? 0,
      });

/**
 * Deliveries of an event other than a print job's state to every active app key of the tenant with a callback
 * URL, written with `db` (which may be the caller's transaction); hand the ids to `WebhookSender.enqueue` after
 * it commits. Signed, logged and retried exactly like a print job's.
 */
export async function insertEventDeliveries(
  db: Db,
  tenantId: number,
  event: string,
  payload: Record<string, unknown>,
): Promise<string[]> {
  return new WebhookDeliveryRepository(db).insertForEvent(tenantId, event, payload);
}

export const webhookSignature = (secret: string, body: string) =>
  createHmac('sha256', secret).update(body).digest('hex');

/**
 * Webhook callbacks (DESIGN §6): every delivery row (written with the job's state change) becomes a pg-boss
 * job; a worker POSTs the signed body, logs the attempt with the time of the next try (`next_attempt_at`), and
 * on failure queues that try after the back-off (7 tries over about an hour by default). The row is the record:
 * a try that never reached the queue — the first one (a crash right after the state change) or a retry (a crash
 * between the attempt's commit and the queue insert) — is queued again by the sweep from the row. Each try has
 * a derived pg-boss id and runs once: a try already made is skipped. At least once: a receiver deduplicates by
 * the delivery id.
 */
export class WebhookSender {
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  private repo: WebhookDeliveryRepository;

  constructor(
    db: Db,
    private queue: JobQueue,
    private opts: WebhookOptions,
    private log: FastifyBaseLogger,
  ) {
    this.repo = new WebhookDeliveryRepository(db);
    queue.work<{ deliveryId: string; try: number }>(WEBHOOK_QUEUE, 20, (jobs) => this.work(jobs));
  }

  /** New deliveries: queued in one insert a few milliseconds later (a burst of state changes is one statement). */
  enqueue(deliveryIds: string[]): void {
    this.pending.push(...deliveryIds);
    this.timer ??= setTimeout(() => void this.flush(), 10);
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      const ids = this.pending.splice(0);
      if (!ids.length) return;
      try {
        await this.queue.insert(
          WEBHOOK_QUEUE,
          ids.map((id) => ({ id: tryJobId(id, 1), data: { deliveryId: id, try: 1 } })),
        );
        this.queue.wake(WEBHOOK_QUEUE);
      } catch (err) {
        // the sweep queues them again from their rows
        this.log.warn({ err }, 'webhooks: queuing failed');
      }
    });
    return this.flushing;
  }

  /**
   * Queues the tries the queue may have lost: first tries of deliveries never tried (older than 10 s), and the
   * next try of deliveries retrying whose time came more than 10 s ago. A try still in the queue has the same
   * id, so queuing it again does nothing.
   */
  async sweep(): Promise<void> {
    if (!this.queue.enabled) return;
    const rows = await this.repo.listLostTries();
    if (!rows.length) return;
    await this.queue.insert(
      WEBHOOK_QUEUE,
      rows.map((r) => ({ id: tryJobId(r.id, r.try), data: { deliveryId: r.id, try: r.try } })),
    );
    this.queue.wake(WEBHOOK_QUEUE);
  }

  private async work(jobs: QueueJob<{ deliveryId: string; try: number }>[]): Promise<void> {
    await Promise.all(
      jobs.map((j) =>
        this.attempt(j.data.deliveryId, { try: j.data.try }).catch((err) =>
          this.log.error({ err, delivery: j.data.deliveryId }, 'webhooks: attempt failed'),
        ),
      ),
    );
  }

  /**
   * One POST of a delivery and its log entry. A scheduled try (`try` n) is skipped when the delivery already
   * succeeded or failed for good, or when try n was made already (queued twice by the sweep); a manual one (from
   * the console) is always made and never schedules more.
   */
  async attempt(deliveryId: string, how: { try: number } | { manual: true }): Promise<AttemptOutcome | null> {
    const r = await this.repo.findDelivery(deliveryId);
    if (!r) return null;
    const manual = 'manual' in how;
    if (!manual && (r.state === 'succeeded' || r.state === 'failed' || r.scheduled >= how.try)) return null;
    if (!r.callback_url || r.key_state !== 'active') {
      const why = !r.callback_url ? 'the key has no callback URL' : 'the key is disabled';
      await this.record(r, { ok: false, status: null, error: why }, 0, '', manual, false);
      return { ok: false, status: null, error: why };
    }
    const body = deliveryBody(r);
    const started = performance.now();
    let outcome: AttemptOutcome;
    let response = '';
    try {
      // redirects are not followed: a callback URL names its receiver
      const res = await outboundRequest(r.callback_url, {
        method: 'POST',
        body,
        timeoutMs: this.opts.timeoutMs,
        maxBytes: 500,
        overflow: 'truncate',
        allowPrivate: this.opts.allowPrivate,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'cpc-webhook/1',
          [WEBHOOK_HEADERS.signature]: webhookSignature(r.secret, body),
          [WEBHOOK_HEADERS.appId]: r.app_id,
          [WEBHOOK_HEADERS.delivery]: r.id,
          [WEBHOOK_HEADERS.attempt]: String(r.attempts + 1),
          [WEBHOOK_HEADERS.event]: r.event,
        },
      });
      response = res.body.toString('utf8').replace(/\uFFFD+$/, '');
      const ok = res.status >= 200 && res.status < 300;
      outcome = { ok, status: res.status, error: ok ? '' : `HTTP ${res.status}` };
    } catch (e) {
      if (!(e instanceof OutboundError)) throw e;
      // the code says what went wrong (ECONNREFUSED, ENOTFOUND, ETIMEDOUT); an internal address is named
      outcome = {
        ok: false,
        status: null,
        error: (e.code === 'ETIMEDOUT' || e.code === 'EPRIVATE' ? e.message : e.code).slice(0, 200),
      };
    }
    const durationMs = Math.round(performance.now() - started);
    const tryNo = manual ? 0 : (how as { try: number }).try;
    const retryIn = !outcome.ok && !manual ? this.opts.backoffS[tryNo - 1] : undefined;
    // the row says when the next try is due before the queue hears of it: a crash in between leaves it to the sweep
    await this.record(r, outcome, durationMs, response, manual, retryIn !== undefined, retryIn);
    if (retryIn !== undefined) {
      await this.queue.insert(WEBHOOK_QUEUE, [
        {
          id: tryJobId(r.id, tryNo + 1),
          data: { deliveryId: r.id, try: tryNo + 1 },
          startAfter: new Date(Date.now() + retryIn * 1000),
        },
      ]);
    }
    return outcome;
  }

  /** The attempt's log entry and the delivery's new state, in one statement. */
  private async record(
    r: DeliveryRow,
    o: AttemptOutcome,
    durationMs: number,
    response: string,
    manual: boolean,
    retrying: boolean,
    retryInS?: number,
  ): Promise<void> {
    // a failed manual try leaves a scheduled retry (or a final failure) as it was
    const next = o.ok ? 'succeeded' : retrying ? 'retrying' : manual ? null : 'failed';
    await this.repo.recordAttempt({
      deliveryId: r.id,
      tenantId: r.tenant_id,
      status: o.status,
      error: o.error,
      ok: o.ok,
      durationMs,
      response,
      manual,
      next,
      retrying,
      retryInS,
    });
  }
}
