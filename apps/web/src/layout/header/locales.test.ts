import { describe, expect, it } from 'vitest';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('header locales', () => {
  itHasLocaleParity('layout.header', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./*.{ts,tsx}', '!./*.test.{ts,tsx}', '../avatar-menu.tsx'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](layout\.header\.[A-Za-z0-9_.]*[A-Za-z0-9_])['"`]/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((k) => !zh.has(k))).toEqual([]);
  });

  it('says the lock screen’s wrong-password message as SPEC §5 does', () => {
    expect(locales.en.layout.header.lock.wrong).toBe('please enter the correct password');
    expect(locales.zh.layout.header.lock.wrong).toBe('请输入正确的密码');
  });
});
