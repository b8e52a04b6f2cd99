import fs from 'node:fs/promises';
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

export function createSmsProvider(kind: 'log', dataDir: string, log: FastifyBaseLogger): SmsProvider {
  const file = path.join(dataDir, 'outbox', 'sms.jsonl');
  void kind;
  return {
    async send(msg) {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.appendFile(file, JSON.stringify({ at: new Date().toISOString(), ...msg }) + '\n');
      log.info({ mobile: msg.mobile, template: msg.template }, 'sms written to outbox');
    },
  };
}
