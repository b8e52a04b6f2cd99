import { describe, expect, it } from 'vitest';
import { isMessageKey } from '@cpc/contracts/messages';
import locales from './locales';
import { itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('device locales', () => {
  itHasLocaleParity('device', locales);
  const zh = leaves(locales.zh);

  it('has every literal key the code asks for', () => {
    const sources = import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}', '!./locales.ts'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      for (const m of text.matchAll(/['"`](device\.[A-Za-z0-9_.]+)['"`]/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(80);
    // the server's message keys (contracts/messages.ts) share some namespaces: they are the catalogue's, not these locales'
    const missing = [...used].filter((k) => !isMessageKey(k) && !zh.has(k) && ![...zh.keys()].some((z) => z.startsWith(k.endsWith('.') ? k : `${k}.`)));
    expect(missing).toEqual([]);
  });

  it('names every state, kind, paper state, task type and task state the server sends', () => {
    const keys = [
      ...['online', 'offline'].map((s) => `device.status.${s}`),
      ...['ok', 'out', 'cover-open', 'overheat'].map((s) => `device.paper.${s}`),
      ...['active', 'low', 'suspended'].map((s) => `device.simState.${s}`),
      ...['printer', 'android-terminal'].map((s) => `device.kind.${s}`),
      ...['reboot', 'shutdown', 'apply_profile', 'install_app', 'uninstall_app', 'fetch_file', 'upgrade', 'push_message', 'deploy_model'].map((s) => `device.task.type.${s}`),
      ...['queued', 'sent', 'delivered', 'running', 'succeeded', 'failed', 'timeout', 'expired', 'canceled'].map((s) => `device.task.state.${s}`),
    ];
    expect(keys.filter((k) => !zh.has(k))).toEqual([]);
  });
});
