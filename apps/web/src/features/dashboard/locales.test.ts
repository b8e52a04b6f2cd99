import { describe, expect, it } from 'vitest';
import { CHINA_PROVINCES } from '@cpc/contracts/geo/provinces';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('dashboard locales', () => {
  itHasLocaleParity('dashboard', locales);
  const zh = leaves(locales.zh);

  itHasEveryKeyTheCodeAsksFor(
    'dashboard',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    20,
  );

  it('names every province of the shipped map in both languages', () => {
    for (const f of CHINA_PROVINCES.features) {
      expect(zh.get(`dashboard.province.${f.properties.name}`)).toBe(f.properties.name);
      expect(leaves(locales.en).get(`dashboard.province.${f.properties.name}`)).toMatch(/^[A-Z][A-Za-z ]+$/);
    }
  });
});
