import { describe, expect, it } from 'vitest';
import locales from './locales';
import { itHasEveryKeyTheCodeAsksFor, itHasLocaleParity, leaves } from '../../lib/testing/locale-parity';

describe('device locales', () => {
  itHasLocaleParity('device', locales);
  const zh = leaves(locales.zh);

  itHasEveryKeyTheCodeAsksFor(
    'device',
    locales,
    import.meta.glob<string>(['./**/*.{ts,tsx}', '!./**/*.test.{ts,tsx}', '!./locales.ts'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }),
    80,
  );

  it('names every state, kind, paper state, task type and task state the server sends', () => {
    const keys = [
      ...['online', 'offline'].map((s) => `device.status.${s}`),
      ...['ok', 'out', 'cover-open', 'overheat'].map((s) => `device.paper.${s}`),
      ...['active', 'low', 'suspended'].map((s) => `device.simState.${s}`),
      ...['printer', 'android-terminal'].map((s) => `device.kind.${s}`),
      ...[
        'reboot',
        'shutdown',
        'apply_profile',
        'install_app',
        'uninstall_app',
        'fetch_file',
        'upgrade',
        'push_message',
        'deploy_model',
      ].map((s) => `device.task.type.${s}`),
      ...['queued', 'sent', 'delivered', 'running', 'succeeded', 'failed', 'timeout', 'expired', 'canceled'].map(
        (s) => `device.task.state.${s}`,
      ),
    ];
    expect(keys.filter((k) => !zh.has(k))).toEqual([]);
  });
});
