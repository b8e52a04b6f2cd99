import type { SystemLogEntry } from '@cpc/contracts';

/** What the filter bar holds; empty fields are not sent. */
export interface LogFilter {
  user?: string;
  action?: string;
  resource?: string;
  resourceId?: string;
  result?: 'ok' | 'fail' | 'denied';
  /** ISO instants. */
  from?: string;
  to?: string;
  /** Staff only. */
  tenantId?: number;
}

export function filterParams(f: LogFilter): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined || v === null) continue;
    const value = typeof v === 'string' ? v.trim() : v;
    if (value !== '') out[k] = value;
  }
  return out;
}

/** The actions the console names (anything else shows as written). Keys: the action with . and - as _. */
export const KNOWN_ACTIONS = [
  'login',
  'login.throttled',
  'logout',
  'register',
  'sms.send',
  'session.expire',
  'session.revoke',
  'token.reuse',
  'password.check',
  'password.change',
  'profile.update',
  'profile.avatar',
  'subAccount.create',
  'subAccount.update',
  'subAccount.enable',
  'subAccount.disable',
  'subAccount.resetPassword',
  'subAccount.delete',
  'device.bind',
  'device.unbind',
  'device.edit',
  'device.move',
  'device.register',
  'device.import',
  'device.bindKey.reissue',
  'device-group.add',
  'device-group.edit',
  'device-group.delete',
  'device-model.add',
  'device-model.edit',
  'device-model.delete',
  'identity.submit',
  'identity.approve',
  'identity.reject',
  'integration.key.create',
  'integration.key.update',
  'integration.key.enable',
  'integration.key.disable',
  'integration.key.rotate',
  'integration.key.delete',
  'role.create',
  'role.update',
  'role.delete',
  'role.addMembers',
  'role.removeMembers',
  'department.create',
  'department.update',
  'department.delete',
  'user.create',
  'user.update',
  'user.enable',
  'user.disable',
  'user.resetPassword',
  'user.logout',
  'user.delete',
  'menu.create',
  'menu.update',
  'menu.delete',
  'menu.move',
  'menu.rollback',
  'social.login',
  'social.link',
  'social.unlink',
  'access.denied',
  'package.create',
  'package.update',
  'package.shelf',
  'package.delete',
  'order.create',
  'order.pay',
  'order.cancel',
  'order.close',
  'order.notify',
  'order.fulfil',
  'order.refund',
] as const;

export const actionKey = (action: string) => action.replace(/[.-]/g, '_');

/** A value of a change as a line of text: strings as they are, nothing as –, the rest as JSON. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined || v === '') return '–';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** The changes of an entry as rows of the before → after table. */
export const changeRows = (e: Pick<SystemLogEntry, 'changes'>) =>
  Object.entries(e.changes).map(([field, c]) => ({
    field,
    before: showValue(c.before),
    after: showValue(c.after),
  }));
