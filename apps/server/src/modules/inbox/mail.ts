import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import nodemailer, { type Transporter } from 'nodemailer';
import { sql } from 'kysely';
import { renderMessage } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import { sayTitle } from './titles.ts';

/** The advisory lock of the mail job (a constant of its own): one node mails at a time. */
const MAIL_LOCK = 0x4d41_494c; // "MAIL"
/** A message whose mail failed this many times is given up (`failed`). */
export const MAIL_MAX_ATTEMPTS = 5;
/** Messages read per statement, and at most this many batches per run (the next run goes on). */
const BATCH = 50;
const MAX_BATCHES = 20;

/** One mail as the outbox holds it (SMTP_URL unset): a JSON line in DATA_DIR/outbox/mail.jsonl. */
export interface OutboxMail {
  at: string;
  /** The message's id. */
  messageId: number;
  from: string;
  to: string;
  subject: string;
  text: string;
}

export const mailOutboxFile = (dataDir: string) => path.join(dataDir, 'outbox', 'mail.jsonl');

/** The outbox's mails, oldest first (what a developer or a test reads); none when it does not exist. */
export function readMailOutbox(dataDir: string): OutboxMail[] {
  let text: string;
  try {
    text = readFileSync(mailOutboxFile(dataDir), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OutboxMail);
}

export interface MailerOptions {
  /** smtp(s)://user:pass@host:port — unset: the outbox file. */
  smtpUrl?: string;
  from: string;
  dataDir: string;
  /**
   * The console's public origin (PUBLIC_URL, or the address the server listens on; never a request's): a
   * message's link is mailed as a full URL under it (without it, as the console path).
   */
  publicUrl?: string | (() => string);
}

export interface MailRunResult {
  sent: number;
  skipped: number;
  failed: number;
}

/** Where the mail goes, for the log: the SMTP server without its credentials, or the outbox file. */
export function describeMailTarget(o: Pick<MailerOptions, 'smtpUrl' | 'dataDir'>): string {
  if (!o.smtpUrl) return mailOutboxFile(o.dataDir);
  const u = new URL(o.smtpUrl);
  return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}`;
}

/**
 * Mails the messages of the message centre (issue 14). Senders never wait: `sendMessages` (and any bulk SQL)
 * inserts rows whose `mail_state` is `pending`; `run()` — every MAIL_INTERVAL_MS on every node, once across the
 * cluster under a session advisory lock — mails them in batches, oldest first, each in its user's language (zh:
 * users have no language setting yet), and marks each `sent` in its own statement right after it went, so a
 * restart or another node never mails it again (a crash between the send and that UPDATE is the one window in
 * which a message could go twice). Users without an address, or disabled, are `skipped`. A failed send counts an
 * attempt and ends the run (the server is likely down); after MAIL_MAX_ATTEMPTS the message is `failed`.
 */
export class InboxMailer {
  private transport: Transporter;

  constructor(
    private db: Db,
    private opts: MailerOptions,
    private log: FastifyBaseLogger,
  ) {
    this.transport = opts.smtpUrl
      ? nodemailer.createTransport(opts.smtpUrl)
      : nodemailer.createTransport({ jsonTransport: true });
  }

  async run(): Promise<MailRunResult> {
    const result: MailRunResult = { sent: 0, skipped: 0, failed: 0 };
    await this.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${MAIL_LOCK}) as ok`.execute(conn);
      if (!rows[0]?.ok) return;
      try {
        const skipped = await sql`
          update messages m set mail_state = 'skipped'
          from users u
          where m.mail_state = 'pending' and u.id = m.user_id and (u.email = '' or u.state <> 'active')`.execute(conn);
        result.skipped = Number(skipped.numAffectedRows ?? 0);
        for (let b = 0; b < MAX_BATCHES; b++) {
          const { rows: batch } = await sql<{
            id: number;
            title: string;
            body: string;
            link: string;
            email: string;
            mail_attempts: number;
          }>`
            select m.id, m.title, m.body, m.link, u.email, m.mail_attempts
            from messages m join users u on u.id = m.user_id
            where m.mail_state = 'pending' and u.email <> '' and u.state = 'active'
            order by m.id limit ${BATCH}`.execute(conn);
          for (const m of batch) {
            try {
              await this.send(m);
            } catch (err) {
              const attempts = m.mail_attempts + 1;
              await sql`
                update messages set mail_attempts = ${attempts},
                  mail_state = ${attempts >= MAIL_MAX_ATTEMPTS ? 'failed' : 'pending'}
                where id = ${m.id}`.execute(conn);
              result.failed++;
              const e = err as { code?: string; responseCode?: number; message?: string };
              // the error's code and text only: never the transport's options (the SMTP password)
              this.log.warn(
                { messageId: m.id, attempts, code: e.code, responseCode: e.responseCode, reason: e.message },
                'inbox: mail failed',
              );
              return;
            }
            await sql`
              update messages set mail_state = 'sent', mailed_at = now(), mail_attempts = mail_attempts + 1
              where id = ${m.id}`.execute(conn);
            result.sent++;
          }
          if (batch.length < BATCH) return;
        }
      } finally {
        await sql`select pg_advisory_unlock(${MAIL_LOCK})`.execute(conn);
      }
    });
    return result;
  }

  private async send(m: { id: number; title: string; body: string; link: string; email: string }) {
    const lang = 'zh' as const;
    const subject = sayTitle(m.title, lang);
    const origin = typeof this.opts.publicUrl === 'function' ? this.opts.publicUrl() : this.opts.publicUrl;
    const url = m.link ? (origin ? new URL(m.link, origin).toString() : m.link) : '';
    const text = [
      subject,
      m.body,
      url ? renderMessage(lang, 'inbox.mailOpen', { url }) : '',
      '—',
      renderMessage(lang, 'inbox.mailFooter'),
    ]
      .filter(Boolean)
      .join('\n\n');
    const mail = { from: this.opts.from, to: m.email, subject, text };
    const info = await this.transport.sendMail(mail);
    if (!this.opts.smtpUrl) {
      // the JSON transport built the message (addresses checked); the outbox keeps what a reader needs
      void info;
      const file = mailOutboxFile(this.opts.dataDir);
      await fs.mkdir(path.dirname(file), { recursive: true });
      const line: OutboxMail = { at: new Date().toISOString(), messageId: m.id, ...mail };
      await fs.appendFile(file, JSON.stringify(line) + '\n');
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** Runs the mailer every `everyMs` on every node (the lock makes it once across nodes). */
export const inboxMail = fp<{ mailer: InboxMailer; everyMs: number; target: string }>(
  async (app: FastifyInstance, { mailer, everyMs, target }) => {
    const periodic = new Periodic(
      (err, job) => app.log.warn({ reason: err instanceof Error ? err.message : String(err) }, `inbox: ${job} failed`),
      { locks: app.clusterLocks, scope: 'inbox' },
    );
    app.addHook('onReady', async () => {
      app.log.info({ target }, 'inbox: messages are mailed');
      periodic.every(everyMs, 'mail', () => mailer.run(), 'cluster');
    });
    app.addHook('onClose', async () => {
      await periodic.stop();
      mailer.close();
    });
  },
  { name: 'inbox-mail' },
);
