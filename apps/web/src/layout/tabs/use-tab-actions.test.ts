import NProgress from 'nprogress';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFRESH_PROGRESS_DONE } from '../../config/settings';
import { useLayoutSettings } from '../layout-settings';
import { useTabs } from './tabs-store';
import { refreshPage } from './use-tab-actions';

vi.mock('nprogress', () => ({ default: { start: vi.fn(), done: vi.fn(), configure: vi.fn() } }));

beforeEach(() => {
  vi.useFakeTimers();
  vi.mocked(NProgress.start).mockClear();
  vi.mocked(NProgress.done).mockClear();
  useTabs.getState().reset();
});
afterEach(() => {
  vi.useRealTimers();
  useLayoutSettings.setState({ showProgressBar: true });
});

describe('refreshing a page', () => {
  it('mounts it anew and runs the bar for 200 ms (SPEC §9)', () => {
    expect(REFRESH_PROGRESS_DONE).toBe(200);
    useLayoutSettings.setState({ showProgressBar: true });
    refreshPage('/device/index');
    expect(useTabs.getState().versions['/device/index']).toBe(1);
    expect(NProgress.start).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(REFRESH_PROGRESS_DONE - 1);
    expect(NProgress.done).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(NProgress.done).toHaveBeenCalledTimes(1);
    refreshPage('/device/index');
    expect(useTabs.getState().versions['/device/index']).toBe(2);
  });

  it('shows no bar when the progress bar is off, and still mounts the page anew', () => {
    useLayoutSettings.setState({ showProgressBar: false });
    refreshPage('/device/index');
    expect(useTabs.getState().versions['/device/index']).toBe(1);
    vi.advanceTimersByTime(REFRESH_PROGRESS_DONE * 2);
    expect(NProgress.start).not.toHaveBeenCalled();
  });
});
