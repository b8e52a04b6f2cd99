import { HomeOutlined } from '@ant-design/icons';
import { Breadcrumb } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { matchRouteChain, routeTitle } from '../lib/menu-routes';
import { useSession } from '../lib/session';

/** The chain of records the current page sits in (SPEC §2), without `breadcrumbHidden` ones. */
export function Breadcrumbs() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const routes = useSession((s) => s.routes);

  const items = useMemo(() => {
    const titles = matchRouteChain(routes ?? [], pathname)
      .filter((r) => !r.meta.breadcrumbHidden && (r.meta.title || r.meta.i18n))
      .map((r) => ({ key: r.path, title: routeTitle(r.meta, t), icon: r.path === '/' }));
    // a group and its only page often share a title ("Home / Home"): show it once
    return titles
      .filter((item, i) => i === 0 || item.title !== titles[i - 1].title)
      .map((item) => ({
        key: item.key,
        title: item.icon ? (
          <>
            <HomeOutlined /> {item.title}
          </>
        ) : (
          item.title
        ),
      }));
  }, [routes, pathname, t]);

  return <Breadcrumb items={items} />;
}
