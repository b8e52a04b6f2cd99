import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { i18n } from '@/lib/i18n';
import { DataLeftCell } from './device-cells';

describe('the data left on a SIM', () => {
  afterEach(cleanup);

  it.each([
    ['zh', { mb: 512.5, plan: 1024, state: 'active' as const }, ['512.5 MB']],
    ['zh', { mb: 0, plan: 0, state: 'active' as const }, ['无流量套餐']],
    ['en', { mb: 0, plan: 0, state: 'active' as const }, ['No plan']],
    ['zh', { mb: 30, plan: 1024, state: 'low' as const }, ['30 MB', '流量不足']],
    ['en', { mb: 30, plan: 1024, state: 'low' as const }, ['30 MB', 'Low data']],
    ['zh', { mb: null, plan: null, state: null }, ['无 SIM 卡']],
  ])('in %s, %o reads %j', async (lang, props, texts) => {
    await act(() => i18n.changeLanguage(lang));
    render(<DataLeftCell {...props} />);
    for (const text of texts) screen.getByText(text);
    // a SIM without a plan is never shown as "0 MB"
    if (props.plan === 0) expect(screen.queryByText('0 MB')).toBeNull();
  });
});
