import type { RoleOption } from '@cpc/contracts';
import { i18n } from '@/lib/i18n';

/** The built-in roles have translated names; a role the tenant named itself keeps its name. */
export function roleLabel(role: Pick<RoleOption, 'code' | 'name'>, t: (key: string) => string): string {
  const key = `user.subAccount.role.${role.code}`;
  return i18n.exists(key) ? t(key) : role.name;
}

export function roleHint(role: Pick<RoleOption, 'code'>, t: (key: string) => string): string | undefined {
  const key = `user.subAccount.roleHint.${role.code}`;
  return i18n.exists(key) ? t(key) : undefined;
}
