import { beforeEach, describe, expect, it } from 'vitest';
import { ERROR_LOG_KEY, MAX_ENTRIES, logError, useErrorLog } from './error-log';
import { RequestError } from './request';
import { useSession } from './session';
import { staff } from './testing/fixtures';

const logs = () => useErrorLog.getState().logs;

beforeEach(() => {
  useSession.getState().setUserInfo(staff());
  useErrorLog.getState().clear();
  window.location.hash = '#/device/index';
});

describe('error log', () => {
  it('records the message, stack and the route the user was on', () => {
    window.location.hash = '#/system/identity?page=2';
    logError(new Error('boom'));
    expect(logs()).toEqual([
      {
        err: { message: 'boom', stack: expect.stringContaining('boom') },
        url: '/system/identity?page=2',
        time: expect.any(Number),
        count: 1,
      },
    ]);
  });

  it('describes a failed call by its URL, status and the server’s answer', () => {
    const body = { code: 500, msg: 'server error', data: null };
    logError(new RequestError('server error', 500, 500, null, body, '/device/list'));
    const details = JSON.parse(logs()[0].details!);
    expect(details).toEqual({ request: '/device/list', status: 500, code: 500, response: body });
  });

  it('keeps what is not an Error readable', () => {
    logError('plain text');
    logError({ message: 'shaped like an error', code: 7 });
    logError(42);
    expect(logs().map((l) => l.err.message)).toEqual(['plain text', 'shaped like an error', '42']);
    expect(logs()[1].details).toContain('"code": 7');
  });

  it('folds identical consecutive errors into one entry with a count', () => {
    const error = new Error('poll failed');
    logError(error);
    logError(error);
    logError(error);
    expect(logs()).toHaveLength(1);
    expect(logs()[0].count).toBe(3);
  });

  it('keeps the same error apart when something else happened in between, or on another page', () => {
    const error = new Error('poll failed');
    logError(error);
    logError(new Error('other'));
    logError(error);
    window.location.hash = '#/flowRate';
    logError(error);
    expect(logs().map((l) => [l.err.message, l.url, l.count])).toEqual([
      ['poll failed', '/device/index', 1],
      ['other', '/device/index', 1],
      ['poll failed', '/device/index', 1],
      ['poll failed', '/flowRate', 1],
    ]);
  });

  it(`keeps only the newest ${MAX_ENTRIES} entries`, () => {
    for (let i = 0; i < MAX_ENTRIES + 5; i++) logError(new Error(`e${i}`));
    expect(logs()).toHaveLength(MAX_ENTRIES);
    expect(logs()[0].err.message).toBe('e5');
    expect(logs().at(-1)!.err.message).toBe(`e${MAX_ENTRIES + 4}`);
  });

  it('"do not show" empties the log until the next error arrives', () => {
    logError(new Error('first'));
    useErrorLog.getState().clear();
    expect(logs()).toEqual([]);
    logError(new Error('first'));
    expect(logs()).toHaveLength(1);
    expect(logs()[0].count).toBe(1);
  });

  it('forgets everything at logout, so the next user of the tab cannot read the answers it holds', () => {
    logError(new RequestError('server error', 500, 500, null, { msg: 'secret detail' }, '/x'));
    useSession.getState().reset();
    expect(logs()).toEqual([]);
  });

  it('keeps the log in session storage, so a reload still shows it', () => {
    logError(new Error('before reload'));
    const stored = JSON.parse(sessionStorage.getItem(ERROR_LOG_KEY) ?? '{}');
    expect(stored.state.logs.map((l: { err: { message: string } }) => l.err.message)).toEqual(['before reload']);
  });
});
