import { randomUUID } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Db } from '../db/database.ts';
import { AppError } from '../plugins/errors.ts';

export interface CaptchaChallenge {
  enabled: boolean;
  captchaId: string;
  svg: string;
}

/** Graphic captcha provider: `svg` draws one and keeps its answer in the database; `off` (tests only) accepts all. */
export interface CaptchaProvider {
  create(): Promise<CaptchaChallenge>;
  /** Consumes the challenge: a captcha answers once, right or wrong. */
  verify(id: string | undefined, answer: string | undefined): Promise<void>;
}

const TTL_MS = 5 * 60_000;

export function createCaptchaProvider(kind: 'svg' | 'off', db: Db): CaptchaProvider {
  if (kind === 'off') {
    return { create: async () => ({ enabled: false, captchaId: '', svg: '' }), verify: async () => {} };
  }
  return {
    async create() {
      const c = svgCaptcha.create({ size: 4, noise: 2, ignoreChars: '0oO1ilI', color: true, width: 120, height: 40 });
      const id = randomUUID();
      await db.deleteFrom('captchas').where('expires_at', '<', new Date()).execute();
      await db.insertInto('captchas').values({ id, answer: c.text.toLowerCase(), expires_at: new Date(Date.now() + TTL_MS) }).execute();
      return { enabled: true, captchaId: id, svg: c.data };
    },
    async verify(id, answer) {
      if (!id || !answer) throw new AppError(400, 'captcha: graphic captcha required', { fields: [{ field: 'captcha', message: 'graphic captcha required' }] });
      const uuid = /^[0-9a-f-]{36}$/i.test(id) ? id : '00000000-0000-0000-0000-000000000000';
      const row = await db.deleteFrom('captchas').where('id', '=', uuid).returning(['answer', 'expires_at']).executeTakeFirst();
      if (!row || row.expires_at < new Date() || row.answer !== answer.trim().toLowerCase()) {
        throw new AppError(400, 'captcha: graphic captcha is wrong or expired', { fields: [{ field: 'captcha', message: 'graphic captcha is wrong or expired' }] });
      }
    },
  };
}
