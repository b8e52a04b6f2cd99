import type { PermissionSectionView } from '@cpc/contracts/role';
import type { Language } from '@/lib/i18n';

/** Section nodes are keyed apart from permission codes: only codes are ever granted. */
export const SECTION_PREFIX = 'section:';

export interface PermissionNode {
  key: string;
  title: string;
  disableCheckbox?: boolean;
  children?: PermissionNode[];
}

/**
 * The catalogue as an antd Tree: a section is a parent node, so checking it checks its codes and a partly
 * checked section shows the third state. A code the user does not hold cannot be ticked (the server refuses
 * to grant it), unless the role already has it, so it can still be taken away.
 */
export function permissionTree(
  sections: PermissionSectionView[],
  lang: Language,
  kept: readonly string[] = [],
  disabled = false,
): PermissionNode[] {
  const keep = new Set(kept);
  return sections.map((s) => ({
    key: `${SECTION_PREFIX}${s.key}`,
    title: s.name[lang],
    disableCheckbox: disabled || s.permissions.every((p) => !p.held && !keep.has(p.code)),
    children: s.permissions.map((p) => ({
      key: p.code,
      title: `${p.name[lang]} (${p.code})`,
      disableCheckbox: disabled || (!p.held && !keep.has(p.code)),
    })),
  }));
}

/** The codes among checked tree keys (section keys dropped), in catalogue order. */
export function checkedCodes(keys: readonly (string | number | bigint)[], sections: PermissionSectionView[]): string[] {
  const set = new Set(keys.map(String));
  return sections.flatMap((s) => s.permissions.map((p) => p.code)).filter((c) => set.has(c));
}

/** The name of a code in a language, or the code itself when the catalogue does not know it. */
export function permissionName(code: string, sections: PermissionSectionView[], lang: Language): string {
  for (const s of sections) for (const p of s.permissions) if (p.code === code) return p.name[lang];
  return code;
}
