import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceUnbindResult } from '@cpc/contracts/device';
import { i18n } from '@/lib/i18n';
import { renderPage } from '@/lib/testing/render-page';
import { useShowNewBindKeys } from './new-bind-keys';

function Unbound({ keys }: { keys: DeviceUnbindResult[] }) {
  const show = useShowNewBindKeys();
  return <button onClick={() => show(keys)}>unbound</button>;
}

describe('the new bind keys after unbinding', { timeout: 60_000 }, () => {
  afterEach(cleanup);

  it('shows each device with its new key until the user says it is noted', async () => {
    await act(() => i18n.changeLanguage('zh'));
    renderPage(<Unbound keys={[{ sn: 'CP58-00001', bindKey: 'K7M2Q9XW4RTA' }]} />);
    fireEvent.click(screen.getByText('unbound'));
    await screen.findByText('新的绑定码', { selector: '.ant-modal-confirm-title' });
    screen.getByText('CP58-00001');
    screen.getByText('K7M2Q9XW4RTA');
    screen.getByText(/原绑定码（包括设备标签上的）已失效/);
    fireEvent.click(screen.getByRole('button', { name: '我已记下' }));
    // the dialog leaves (jsdom runs no CSS transition to its end)
    await waitFor(() => expect(document.querySelector('.ant-modal-confirm')?.className).toMatch(/-leave/));
  });

  it('lists the keys of several devices, in en', async () => {
    await act(() => i18n.changeLanguage('en'));
    renderPage(
      <Unbound
        keys={[
          { sn: 'CP58-00001', bindKey: 'K7M2Q9XW4RTA' },
          { sn: 'CP58-00002', bindKey: 'P3H8N5VB2KCD' },
        ]}
      />,
    );
    fireEvent.click(screen.getByText('unbound'));
    await screen.findByText('2 new bind keys', { selector: '.ant-modal-confirm-title' });
    expect(document.querySelectorAll('[data-testid="new-bind-keys"] [data-sn]')).toHaveLength(2);
    screen.getByText('P3H8N5VB2KCD');
    screen.getByRole('button', { name: 'I have noted it' });
  });
});
