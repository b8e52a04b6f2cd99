import { randomUUID } from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Db } from '../db/database.ts';
import { AppError, fieldError } from './app-error.ts';

export interface CaptchaChallenge {
  enabled: boolean;
  captchaId: string;
  svg: string;
  /** Seconds it can be answered. */
  expiresIn: number;
}

/** Graphic captcha provider: `svg` draws one and keeps its answer in the database; `off` (tests only) accepts all. */
export interface CaptchaProvider {
  create(): Promise<CaptchaChallenge>;
  /** Consumes the challenge: a captcha answers once, right or wrong. */
  verify(id: string | undefined, answer: string | undefined): Promise<void>;
}

const DEFAULT_TTL_S = 300;

/**
 * Without characters people confuse (0/O/o, 1/l/I/i, 2/Z/z, 5/S/s, 8/B, 9/g/q, u/v), drawn rotated, overlapping and
 * in varied colours over several noise lines: harder for a reader program, still plain to a person.
 */
export const CAPTCHA_ALPHABET = 'ACDEFGHJKLMNPRTUWXY34678abcdefhjkmnprtwxy';
export const CAPTCHA_OPTIONS = {
  size: 4,
  charPreset: CAPTCHA_ALPHABET,
  noise: 4,
  color: true,
  width: 150,
  height: 50,
  fontSize: 56,
} as const;

/** Turns each character of svg-captcha's drawing by up to ±28° about its own centre (the library draws them upright). */
export function tiltCharacters(svg: string, random: () => number = Math.random): string {
  // characters are the filled paths; noise lines are `fill="none"`
  return svg.replace(/<path fill="(#[0-9a-f]{3,6})" d="([^"]+)"\/>/gi, (whole, fill: string, d: string) => {
    const n = (d.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
    if (n.length < 2) return whole;
    const xs = n.filter((_, i) => i % 2 === 0);
    const ys = n.filter((_, i) => i % 2 === 1);
    const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
    const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
    const angle = Math.round((random() * 2 - 1) * 28);
    return `<path fill="${fill}" d="${d}" transform="rotate(${angle} ${cx.toFixed(1)} ${cy.toFixed(1)})"/>`;
  });
}

export function createCaptchaProvider(kind: 'svg' | 'off', db: Db, ttlS = DEFAULT_TTL_S): CaptchaProvider {
  if (kind === 'off') {
    return {
      create: async () => ({ enabled: false, captchaId: '', svg: '', expiresIn: ttlS }),
      verify: async () => {},
    };
  }
  return {
    async create() {
      const c = svgCaptcha.create(CAPTCHA_OPTIONS);
      const id = randomUUID();
      await db.deleteFrom('captchas').where('expires_at', '<', new Date()).execute();
      await db
        .insertInto('captchas')
        .values({ id, answer: c.text.toLowerCase(), expires_at: new Date(Date.now() + ttlS * 1000) })
        .execute();
      return { enabled: true, captchaId: id, svg: tiltCharacters(c.data), expiresIn: ttlS };
    },
    async verify(id, answer) {
      // one message naming the captcha once: the field list says which field it is
      if (!id || !answer)
        throw new AppError(400, 'auth.captchaRequired', null, {
          data: { fields: [fieldError('captcha', 'auth.captchaRequired')] },
        });
      const uuid = /^[0-9a-f-]{36}$/i.test(id) ? id : '00000000-0000-0000-0000-000000000000';
      const row = await db
        .deleteFrom('captchas')
        .where('id', '=', uuid)
        .returning(['answer', 'expires_at'])
        .executeTakeFirst();
      if (!row || row.expires_at < new Date() || row.answer !== answer.trim().toLowerCase()) {
        throw new AppError(400, 'auth.captchaWrong', null, {
          data: { fields: [fieldError('captcha', 'auth.captchaWrong')] },
        });
      }
    },
  };
}
