import path from 'node:path';
import { z } from 'zod';
import { PAYLOAD_SCHEMES } from '@cpc/contracts';

/** Configuration is read and validated once, at start; every bad value is named. */
const schema = z.object({
  NODE_ENV: z.string().default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  SMS_PROVIDER: z.enum(['log']).default('log'),
  CAPTCHA_PROVIDER: z.enum(['svg', 'off']).default('svg'),
  PAYLOAD_CRYPTO: z.enum(PAYLOAD_SCHEMES).default('off'),
  ACCESS_TOKEN_TTL: z.coerce.number().int().min(5).max(86400).default(900),
  REFRESH_TOKEN_TTL: z.coerce.number().int().min(60).default(14 * 86400),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Login throttling: failures allowed per account and per client address in the window. */
  LOGIN_MAX_FAILS_ACCOUNT: z.coerce.number().int().min(1).default(5),
  LOGIN_MAX_FAILS_IP: z.coerce.number().int().min(1).default(20),
  LOGIN_FAIL_WINDOW: z.coerce.number().int().min(1).default(900),
  WEB_DIST: z.string().optional(),
});

export type Config = z.infer<typeof schema> & { dataDir: string };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.CAPTCHA_PROVIDER === 'off' && c.NODE_ENV === 'production') {
    throw new Error('Invalid configuration:\n  CAPTCHA_PROVIDER: "off" is for automated tests and is refused when NODE_ENV=production');
  }
  return { ...c, dataDir: path.resolve(c.DATA_DIR) };
}
