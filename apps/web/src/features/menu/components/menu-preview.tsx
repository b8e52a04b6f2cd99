import { Empty, Menu, Segmented } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MenuNode } from '@cpc/contracts/menu';
import { CUSTOMER_PERMISSIONS } from '@cpc/contracts/permissions';
import { filterRoutes, type Access } from '@cpc/contracts/route';
import { buildMenu } from '@/layout/menu-model';
import { toMenuItems } from '@/layout/menu-items';
import { toRoutes } from '../utils/menu-tree';

type Audience = 'staff' | 'customer';

const ACCESS: Record<Audience, Access> = {
  staff: { admin: true, roles: [], permissions: [] },
  customer: { admin: false, roles: [], permissions: CUSTOMER_PERMISSIONS },
};

/** The menu the tree makes, drawn as the console draws it, for a platform admin or a customer's main account. */
export function MenuPreview({ tree }: { tree: MenuNode[] }) {
  const { t } = useTranslation();
  const [audience, setAudience] = useState<Audience>('customer');
  const items = useMemo(() => {
    const access = ACCESS[audience];
    return toMenuItems(buildMenu(filterRoutes(toRoutes(tree), access), access), t);
  }, [tree, audience, t]);

  return (
    <div data-testid="menu-preview">
      <Segmented<Audience>
        block
        value={audience}
        onChange={setAudience}
        options={[
          { value: 'customer', label: t('menuAdmin.preview.asCustomer') },
          { value: 'staff', label: t('menuAdmin.preview.asStaff') },
        ]}
        style={{ marginBottom: 8 }}
      />
      {items.length ? (
        <Menu mode="inline" items={items} selectable={false} style={{ borderInlineEnd: 'none' }} />
      ) : (
        <Empty description={t('menuAdmin.preview.empty')} />
      )}
    </div>
  );
}
