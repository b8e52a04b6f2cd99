import { describe, expect, it } from 'vitest';
import { MARKUP_ERROR_REASONS } from '@cpc/contracts/print-markup';
import {
  OPEN_AUTH_REASONS,
  PRINT_JOB_STATES,
  RATE_LIMITED_REASON,
  WEBHOOK_DELIVERY_STATES,
} from '@cpc/contracts/integration-constants';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('integration locales', () => {
  itHasLocaleParity('integration', locales);
  const zh = leaves(locales.zh);

  itHasEveryKeyTheCodeAsksFor(
    'integration',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    100,
  );

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
