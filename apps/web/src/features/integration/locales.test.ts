import { describe, expect, it } from 'vitest';
import { MARKUP_ERROR_REASONS } from '@cpc/contracts/print-markup';
import { OPEN_AUTH_REASONS, PRINT_JOB_STATES, RATE_LIMITED_REASON, WEBHOOK_DELIVERY_STATES } from '@cpc/contracts/integration-constants';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('integration locales', () => {
  itHasLocaleParity('integration', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], { query: '?raw', import: 'default', eager: true });
    const used = new Set<string>();
    for (const text of Object.values(sources)) for (const m of text.matchAll(/['"`](integration\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    expect(used.size).toBeGreaterThan(100);
    const missing = [...used].filter((k) => !zh.has(k) && ![...zh.keys()].some((z) => z.startsWith(`${k}.`)));
    expect(missing).toEqual([]);
  });

  it('names every job state, delivery state, refusal reason and markup error', () => {
    const missing = [
      ...PRINT_JOB_STATES.map((s) => `integration.jobState.${s}`),
      ...WEBHOOK_DELIVERY_STATES.map((s) => `integration.deliveryState.${s}`),
      ...[...OPEN_AUTH_REASONS, RATE_LIMITED_REASON].map((r) => `integration.reason.${r}`),
      ...MARKUP_ERROR_REASONS.map((r) => `integration.markup.reason.${r}`),
    ].filter((k) => !zh.has(k));
    expect(missing).toEqual([]);
  });
});
