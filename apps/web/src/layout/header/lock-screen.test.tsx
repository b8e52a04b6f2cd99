import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { App } from 'antd';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestError } from '../../lib/request';
import { useLayoutSettings } from '../layout-settings';
import { checkPassword } from './lock-api';
import { LockScreen, UNLOCK_DELAY } from './lock-screen';

vi.mock('./lock-api', () => ({ checkPassword: vi.fn() }));

function renderLock() {
  return render(
    <App>
      <MemoryRouter>
        <LockScreen />
      </MemoryRouter>
    </App>,
  );
}

async function submit(password: string) {
  fireEvent.change(screen.getByLabelText('输入登录密码解锁'), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: /解\s*锁/ }));
}

beforeEach(() => {
  vi.mocked(checkPassword).mockReset();
  useLayoutSettings.getState().setLock(true);
});
/** Lets the form's validation and the mocked call settle without moving the (fake) clock. */
const settle = () =>
  act(async () => {
    for (let i = 0; i < 50; i++) await Promise.resolve();
  });

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  useLayoutSettings.getState().setLock(false);
});

describe('the screen lock', () => {
  it('opens 500 ms after the server accepts the password (SPEC §4)', async () => {
    expect(UNLOCK_DELAY).toBe(500);
    vi.mocked(checkPassword).mockResolvedValue(null);
    renderLock();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await submit('Right-Passw0rd');
    await settle();
    expect(checkPassword).toHaveBeenCalledWith('Right-Passw0rd');
    await act(async () => vi.advanceTimersByTime(UNLOCK_DELAY - 1));
    expect(useLayoutSettings.getState().lock).toBe(true);
    expect(screen.getByTestId('lock-screen')).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(1));
    expect(useLayoutSettings.getState().lock).toBe(false);
    expect(screen.queryByTestId('lock-screen')).toBeNull();
  });

  it('stays locked and asks for the correct password when the server refuses it', async () => {
    vi.mocked(checkPassword).mockRejectedValue(new RequestError('password is wrong', 400, 400));
    renderLock();
    await submit('wrong');
    await screen.findByText('请输入正确的密码');
    expect(useLayoutSettings.getState().lock).toBe(true);
    expect(screen.queryByText(/再错/)).toBeNull();
  });

  it('warns before the last tries that the server will sign the session out', async () => {
    vi.mocked(checkPassword).mockRejectedValue(
      new RequestError('password: please enter the correct password', 400, 400, { attemptsLeft: 2 }),
    );
    renderLock();
    await submit('wrong');
    await screen.findByText('再错 2 次将退出登录');
    expect(screen.getByText('请输入正确的密码')).toBeTruthy();
  });
});
