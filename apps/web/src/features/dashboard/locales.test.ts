import { describe, expect, it } from 'vitest';
import { CHINA_PROVINCES } from '@cpc/contracts/geo/provinces';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('dashboard locales', () => {
  itHasLocaleParity('dashboard', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}'], { query: '?raw', import: 'default', eager: true });
    const used = new Set<string>();
    for (const text of Object.values(sources)) for (const m of text.matchAll(/['"`](dashboard\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    expect(used.size).toBeGreaterThan(20);
    const missing = [...used].filter((k) => !zh.has(k) && ![...zh.keys()].some((z) => z.startsWith(`${k}.`)));
    expect(missing).toEqual([]);
  });

  it('names every province of the shipped map in both languages', () => {
    for (const f of CHINA_PROVINCES.features) {
      expect(zh.get(`dashboard.province.${f.properties.name}`)).toBe(f.properties.name);
      expect(leaves(locales.en).get(`dashboard.province.${f.properties.name}`)).toMatch(/^[A-Z][A-Za-z ]+$/);
    }
  });
});
