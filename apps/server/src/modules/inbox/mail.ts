import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import nodemailer, { type Transporter } from 'nodemailer';
import { renderMessage } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import { InboxRepository, type PendingMail } from './repository.ts';
import { sayTitle } from './titles.ts';

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
  private repo: InboxRepository;

  constructor(
    db: Db,
    private opts: MailerOptions,
    private log: FastifyBaseLogger,
  ) {
    this.repo = new InboxRepository(db);
    this.transport = opts.smtpUrl
      ? nodemailer.createTransport(opts.smtpUrl)
      : nodemailer.createTransport({ jsonTransport: true });
  }

  async run(): Promise<MailRunResult> {
    const result: MailRunResult = { sent: 0, skipped: 0, failed: 0 };
    await this.repo.onConnection(async (conn) => {
      if (!(await conn.tryLockMail())) return;
      try {
        result.skipped = await conn.skipUndeliverable();
        for (let b = 0; b < MAX_BATCHES; b++) {
          const batch = await conn.pendingMail(BATCH);
          for (const m of batch) {
            if (!(await this.mailOne(conn, m, result))) return;
          }
          if (batch.length < BATCH) return;
        }
      } finally {
        await conn.unlockMail();
      }
    });
    return result;
  }

  /** Mails one message and marks it; false when the send failed (the run ends: the server is likely down). */
  private async mailOne(conn: InboxRepository, m: PendingMail, result: MailRunResult): Promise<boolean> {
    try {
      await this.send(m);
    } catch (err) {
      const attempts = m.mail_attempts + 1;
      await conn.markMailFailed(m.id, attempts, attempts >= MAIL_MAX_ATTEMPTS);
      result.failed++;
      const e = err as { code?: string; responseCode?: number; message?: string };
      // the error's code and text only: never the transport's options (the SMTP password)
      this.log.warn(
        { messageId: m.id, attempts, code: e.code, responseCode: e.responseCode, reason: e.message },
        'inbox: mail failed',
      );
      return false;
    }
    await conn.markMailSent(m.id);
    result.sent++;
    return true;
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
