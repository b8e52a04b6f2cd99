import NProgress from 'nprogress';
import { describe, expect, it } from 'vitest';
// the root route configures the progress bar when it loads, as the console does
import '../app/root-route';
import * as settings from './settings';

/** SPEC §9's constants, as the console uses them. */
describe('the constants of SPEC §9', () => {
  it.each([
    ['BASE_URL', '/apiAdmin'],
    ['REQUEST_TIMEOUT', 100_000],
    ['UPLOAD_TIMEOUT', 1_800_000],
    ['CHUNK_TIMEOUT', 120_000],
    ['CONTENT_TYPE_JSON', 'application/json;charset=UTF-8'],
    ['TOKEN_STORAGE', 'sessionStorage'],
    ['TOKEN_KEY', 'admin-plus-token'],
    ['MESSAGE_DURATION', 3000],
    ['KEEP_ALIVE_MAX', 20],
    ['MOBILE_BREAKPOINT', 992],
    ['THEME_DRAWER_WIDTH', 285],
    ['UNIQUE_OPENED', false],
    ['OPEN_FIRST_MENU', true],
    ['MENU_SCROLL_THRESHOLD', 18],
    ['PROGRESS_SPEED', 500],
    ['PROGRESS_TRICKLE', 200],
    ['REFRESH_PROGRESS_DONE', 200],
    ['ROUTER_MODE', 'hash'],
    ['ROLE_CONTROL', false],
    ['AUTHENTICATION', 'all'],
  ] as const)('%s is %j', (name, value) => {
    expect(settings[name]).toEqual(value);
  });

  it('opens the default groups of SPEC §9', () => {
    expect(settings.DEFAULT_OPENEDS).toEqual([
      '/vab',
      '/vab/table',
      '/vab/icon',
      '/vab/form',
      '/vab/editor',
      '/other/drag',
      '/device',
      '/systemCustom',
      '/application',
    ]);
  });

  it('runs the progress bar at speed 500 with a trickle of 200', () => {
    expect(NProgress.settings).toMatchObject({ speed: 500, trickleSpeed: 200 });
  });
});
