import { Tree } from 'antd';
import type { PermissionSectionView } from '@cpc/contracts/role';
import { useMemo } from 'react';
import { useLanguage } from '@/lib/i18n';
import { checkedCodes, permissionTree } from '../utils/tree';

interface PermissionTreeProps {
  sections: PermissionSectionView[];
  value?: string[];
  onChange?: (codes: string[]) => void;
  /** Codes the role had when the form opened: they may stay even when the user does not hold them. */
  kept?: string[];
  disabled?: boolean;
  id?: string;
}

/** The permission catalogue with tri-state checkboxes (sections are parent nodes), as a form control. */
export function PermissionTree({ sections, value = [], onChange, kept = [], disabled, id }: PermissionTreeProps) {
  const { language } = useLanguage();
  const treeData = useMemo(
    () => permissionTree(sections, language, kept, disabled),
    [sections, language, kept, disabled],
  );
  return (
    <div id={id} role="group">
      <Tree
        checkable
        selectable={false}
        defaultExpandAll
        disabled={disabled}
        treeData={treeData}
        checkedKeys={value}
        onCheck={(checked) => {
          const keys = Array.isArray(checked) ? checked : checked.checked;
          onChange?.(checkedCodes(keys, sections));
        }}
      />
    </div>
  );
}
