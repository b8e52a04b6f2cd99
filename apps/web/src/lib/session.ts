import type { ReactNode } from 'react';
import { create } from 'zustand';
import type { LoginResult, UserInfo } from '@cpc/contracts';
import { canAccess, type Access, type Guard, type RouteRecord } from '@cpc/contracts/route';
import {
  DEFAULT_IS_AUTHENTICATE,
  DEFAULT_IS_SUPER,
  DEFAULT_USERNAME,
  IS_AUTHENTICATE_KEY,
  IS_SUPER_KEY,
  TOKEN_FIELD,
  TOKEN_KEY,
  TOKEN_STORAGE,
  USERNAME_KEY,
} from '../config/settings';
import { t } from './i18n';
import { readNumber, readStorage, removeStorage, writeStorage } from './storage';

/** The signed-in user (SPEC §3): token in session storage, the rest of the profile in local storage. */
export interface SessionState {
  token: string;
  username: string;
  is_super: number;
  is_authenticate: number;
  userInfo: UserInfo | null;
  /** The user's menu / route records with absolute paths; `null` until the guard has loaded them. */
  routes: RouteRecord[] | null;
  setToken(token: string): void;
  /** Stores a login (or registration) result; throws when it carries no token (SPEC §5). */
  applyLogin(result: LoginResult): void;
  setUserInfo(info: UserInfo): void;
  setRoutes(routes: RouteRecord[]): void;
  /** Logout: token, user info, routes, roles, permissions and whatever registered with `onSessionReset`. */
  reset(): void;
}

const resetListeners = new Set<() => void>();

/** Lets client state that belongs to a user (visited tabs, cached server state) forget it on logout. */
export function onSessionReset(listener: () => void): () => void {
  resetListeners.add(listener);
  return () => resetListeners.delete(listener);
}

function persistProfile(username: string, isSuper: number, isAuthenticate: number): void {
  writeStorage('localStorage', USERNAME_KEY, username);
  writeStorage('localStorage', IS_SUPER_KEY, String(isSuper));
  writeStorage('localStorage', IS_AUTHENTICATE_KEY, String(isAuthenticate));
}

export const useSession = create<SessionState>()((set) => ({
  token: readStorage(TOKEN_STORAGE, TOKEN_KEY) ?? '',
  username: readStorage('localStorage', USERNAME_KEY) ?? DEFAULT_USERNAME,
  is_super: readNumber('localStorage', IS_SUPER_KEY, DEFAULT_IS_SUPER),
  is_authenticate: readNumber('localStorage', IS_AUTHENTICATE_KEY, DEFAULT_IS_AUTHENTICATE),
  userInfo: null,
  routes: null,

  setToken(token) {
    if (token) writeStorage(TOKEN_STORAGE, TOKEN_KEY, token);
    else removeStorage(TOKEN_STORAGE, TOKEN_KEY);
    set({ token });
  },

  applyLogin(result) {
    const token = result?.[TOKEN_FIELD];
    if (typeof token !== 'string' || !token) throw new Error(t('request.loginNoToken'));
    writeStorage(TOKEN_STORAGE, TOKEN_KEY, token);
    persistProfile(result.username, result.is_super, result.status);
    // a new login may be another user: make the guard load that user's info and menu
    set({
      token,
      username: result.username,
      is_super: result.is_super,
      is_authenticate: result.status,
      userInfo: null,
      routes: null,
    });
  },

  setUserInfo(info) {
    persistProfile(info.username, info.is_super, info.is_authenticate);
    set({ userInfo: info, username: info.username, is_super: info.is_super, is_authenticate: info.is_authenticate });
  },

  setRoutes(routes) {
    set({ routes });
  },

  reset() {
    removeStorage(TOKEN_STORAGE, TOKEN_KEY);
    removeStorage('localStorage', USERNAME_KEY);
    removeStorage('localStorage', IS_SUPER_KEY);
    removeStorage('localStorage', IS_AUTHENTICATE_KEY);
    set({
      token: '',
      username: DEFAULT_USERNAME,
      is_super: DEFAULT_IS_SUPER,
      is_authenticate: DEFAULT_IS_AUTHENTICATE,
      userInfo: null,
      routes: null,
    });
    for (const listener of resetListeners) listener();
  },
}));

export const getToken = (): string => useSession.getState().token;

const NO_ACCESS: Access = Object.freeze({ admin: false, roles: [], permissions: [] }) as Access;
const accessCache = new WeakMap<UserInfo, Access>();

/** Access state (SPEC §6) of a user info; the same object for the same info, so selectors stay stable. */
export function accessOf(info: UserInfo | null): Access {
  if (!info) return NO_ACCESS;
  let access = accessCache.get(info);
  if (!access) {
    access = { admin: info.admin === true, roles: info.roles ?? [], permissions: info.permissions ?? [] };
    accessCache.set(info, access);
  }
  return access;
}

export const getAccess = (): Access => accessOf(useSession.getState().userInfo);

export const useAccess = (): Access => useSession((s) => accessOf(s.userInfo));

/** A permission or role name, a list of them (any one suffices), or a full guard (SPEC §6). */
export type PermissionValue = string | string[] | Guard;

const toGuard = (value: PermissionValue): Guard => (typeof value === 'string' ? [value] : value);

export const hasPermission = (value: PermissionValue, access: Access = getAccess()): boolean =>
  canAccess(toGuard(value), access);

/** Whether the signed-in user holds `value`; an admin holds everything. */
export const usePermission = (value: PermissionValue): boolean => hasPermission(value, useAccess());

export interface PermissionProps {
  value: PermissionValue;
  children?: ReactNode;
  /** Rendered instead of nothing when the user lacks the permission. */
  fallback?: ReactNode;
}

/** Renders its children only for users holding `value` (the permissions directive of SPEC §6). */
export function Permission({ value, children, fallback = null }: PermissionProps): ReactNode {
  return usePermission(value) ? children : fallback;
}
