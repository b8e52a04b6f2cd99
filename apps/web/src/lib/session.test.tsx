import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { IS_AUTHENTICATE_KEY, IS_SUPER_KEY, TOKEN_KEY, USERNAME_KEY } from '../config/settings';
import { customer, staff } from './testing/fixtures';
import { getAccess, getToken, hasPermission, onSessionReset, Permission, useSession } from './session';

const login = { token: 'jwt', status: 2, username: 'acme', is_super: 1, expiresIn: 900 };

beforeEach(() => useSession.getState().reset());
afterEach(cleanup);

describe('login and logout', () => {
  it('stores the token in session storage and the profile in local storage', () => {
    useSession.getState().applyLogin(login);
    expect(getToken()).toBe('jwt');
    expect(sessionStorage.getItem(TOKEN_KEY)).toBe('jwt');
    expect(localStorage.getItem(USERNAME_KEY)).toBe('acme');
    expect(localStorage.getItem(IS_SUPER_KEY)).toBe('1');
    expect(localStorage.getItem(IS_AUTHENTICATE_KEY)).toBe('2');
    expect(useSession.getState()).toMatchObject({ username: 'acme', is_super: 1, is_authenticate: 2, routes: null });
  });

  it('refuses a login result without a token', () => {
    expect(() => useSession.getState().applyLogin({ ...login, token: '' })).toThrow();
    expect(getToken()).toBe('');
  });

  it('makes a new login load its own user and menu', () => {
    useSession.getState().setUserInfo(staff());
    useSession.getState().setRoutes([]);
    useSession.getState().applyLogin(login);
    expect(useSession.getState().userInfo).toBeNull();
    expect(useSession.getState().routes).toBeNull();
  });

  it('reset forgets token, user, routes, access and tells the listeners', () => {
    const listener = vi.fn();
    const off = onSessionReset(listener);
    useSession.getState().applyLogin(login);
    useSession.getState().setUserInfo(staff());
    useSession.getState().setRoutes([]);
    useSession.getState().reset();
    off();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(useSession.getState()).toMatchObject({
      token: '',
      username: 'guest',
      is_super: 2,
      userInfo: null,
      routes: null,
    });
    expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(USERNAME_KEY)).toBeNull();
    expect(getAccess()).toEqual({ admin: false, roles: [], permissions: [] });
  });
});

describe('permissions', () => {
  it.each([
    ['nobody', null, 'device:view', false],
    ['a customer', customer(), 'device:view', true],
    ['a customer', customer(), 'identity:review', false],
    ['a customer', customer(), ['identity:review', 'device:edit'], true],
    ['a customer', customer(), { permission: ['device:view', 'identity:review'], mode: 'allOf' as const }, false],
    ['an admin', staff({ permissions: [] }), 'anything:at-all', true],
  ])('%s holding %j: %s', (_who, info, value, expected) => {
    if (info) useSession.getState().setUserInfo(info);
    expect(hasPermission(value)).toBe(expected);
  });

  it('renders the guarded element only for holders', () => {
    useSession.getState().setUserInfo(customer());
    render(
      <>
        <Permission value="device:reboot">
          <button>reboot</button>
        </Permission>
        <Permission value="device:view">
          <button>view</button>
        </Permission>
      </>,
    );
    expect(screen.queryByText('reboot')).toBeNull();
    expect(screen.getByText('view')).toBeTruthy();
  });
});
