import { PERMISSIONS } from '@cpc/contracts';
import { usePermission, useSession } from '@/lib/session';
import { Catalogue } from '../components/catalogue';
import { Store } from '../components/store';

/**
 * `flowRate/mallGoods`: platform staff who keep the catalogue (flowRate:goods) manage the packages; customers
 * (flowRate:buy) shop for their SIMs.
 */
export default function MallGoodsPage() {
  const manages = usePermission(PERMISSIONS.flowRateGoods);
  const staff = useSession((s) => s.userInfo?.tenantKind === 'platform');
  return manages && staff ? <Catalogue /> : <Store />;
}
