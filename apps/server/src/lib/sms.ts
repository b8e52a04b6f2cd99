import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

export interface SmsMessage {
  mobile: string;
  template: string;
  params: Record<string, string>;
  text: string;
}

/** Pluggable SMS sender. `log` appends each message to DATA_DIR/outbox/sms.jsonl, where tests and developers read it. */
export interface SmsProvider {
  send(msg: SmsMessage): Promise<void>;
}

export const smsOutboxFile = (dataDir: string) => path.join(dataDir, 'outbox', 'sms.jsonl');

/** The `log` provider's outbox, oldest first (what a developer or a test reads). */
export function readSmsOutbox(dataDir: string): Array<SmsMessage & { at: string }> {
  return readFileSync(smsOutboxFile(dataDir), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The code of the newest SMS to a number in the outbox. */
export function lastSmsCode(dataDir: string, mobile: string): string {
  const mine = readSmsOutbox(dataDir).filter((m) => m.mobile === mobile);
  if (!mine.length) throw new Error(`no SMS to ${mobile}`);
  return mine[mine.length - 1].params.code;
}

export function createSmsProvider(kind: 'log', dataDir: string, log: FastifyBaseLogger): SmsProvider {
  const file = smsOutboxFile(dataDir);
  void kind;
  return {
    async send(msg) {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.appendFile(file, JSON.stringify({ at: new Date().toISOString(), ...msg }) + '\n');
      log.info({ mobile: msg.mobile, template: msg.template }, 'sms written to outbox');
    },
  };
}
