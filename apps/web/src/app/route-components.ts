import type { QueryClient } from '@tanstack/react-query';
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { trackPageLoad } from '../lib/call-progress';
import { withChunkTimeout } from '../lib/lazy-chunk';
import { queryClient } from './query-client';

/** A page's module: its screen, and optionally the calls its first render makes (started ahead by `prefetchPageData`). */
type PageModule = { default: ComponentType; prefetch?: (client: QueryClient, search: URLSearchParams) => void };
type Page = LazyExoticComponent<ComponentType>;

/**
 * Pages by the `component` name the server's route records carry (SPEC §3). Each is its own chunk.
 * A name the console does not know yet opens the 404 page rather than breaking the menu.
 */
const loaders: Record<string, () => Promise<PageModule>> = {
  'home/index': () => import('../features/dashboard/routes/dashboard'),
  'device/index': () => import('../features/device/routes/device-list'),
  'device/detail': () => import('../features/device/routes/device-detail'),
  'device/map': () => import('../features/device/routes/device-map'),
  'person/info': () => import('../features/user/routes/person-info'),
  'person/personal-center': () => import('../features/user/routes/person-info'),
  'person/sub-account': () => import('../features/user/routes/sub-account'),
  'user/roleManagement': () => import('../features/role/routes/role-management'),
  'user/userManagement': () => import('../features/user/routes/sub-account'),
  'user/departmentManagement': () => import('../features/department/routes/department-management'),
  'identity/review': () => import('../features/identity/routes/review'),
  'device-model/index': () => import('../features/device-model/routes/device-model'),
  'device-registry/index': () => import('../features/device-registry/routes/device-registry'),
  'integration/index': () => import('../features/integration/routes/integration'),
  'user/systemLog': () => import('../features/system-log/routes/system-log'),
  'error/403': () => import('../features/error/routes/forbidden'),
  'error/404': () => import('../features/error/routes/not-found'),
  'user/menuManagement': () => import('../features/menu/routes/menu-management'),
  'flowRate/mallGoods': () => import('../features/order/routes/mall-goods'),
  'flowRate/flowRateLog': () => import('../features/order/routes/flow-rate-log'),
  'flowRate/flowRateSearch': () => import('../features/flow-rate/routes/flow-rate-search'),
  'workbench/index': () => import('../features/workbench/routes/workbench'),
  'message/index': () => import('../features/inbox/routes/message-index'),
  'workOrder/index': () => import('../features/work-order/routes/work-order-index'),
  'workOrder/detail': () => import('../features/work-order/routes/work-order-detail'),
  'workOrder/edit': () => import('../features/work-order/routes/work-order-edit'),
  'notice/index': () => import('../features/notice/routes/notice-index'),
  'notice/detail': () => import('../features/notice/routes/notice-detail'),
  'fileAcquisition/index': () => import('../features/file-acquisition/routes/file-acquisition'),
  'aiLibrary/cloud': () => import('../features/ai-library/routes/cloud'),
  'aiLibrary/terminal': () => import('../features/ai-library/routes/terminal'),
  'application/myApplication': () => import('../features/application/routes/my-application'),
  'upgrade/deviceUpgrade': () => import('../features/upgrade/routes/device-upgrade'),
  'upgrade/upgradeTask': () => import('../features/upgrade/routes/upgrade-task'),
  'upgrade/taskDetail': () => import('../features/upgrade/routes/task-detail'),
  'application/applicationInstall': () => import('../features/application/routes/application-install'),
  'push/pushTask': () => import('../features/push/routes/push-task'),
  'push/pushQuery': () => import('../features/push/routes/push-query'),
  'systemCustom/bootAnimation': () => import('../features/system-custom/routes/boot-animation'),
  'systemCustom/customDesktop': () => import('../features/system-custom/routes/custom-desktop'),
  'systemCustom/customWallpaper': () => import('../features/system-custom/routes/custom-wallpaper'),
  'systemCustom/defaultStartApp': () => import('../features/system-custom/routes/default-start-app'),
  'systemCustom/topScreenMode': () => import('../features/system-custom/routes/top-screen-mode'),
  'systemCustom/appLock': () => import('../features/system-custom/routes/app-lock'),
  'fence/index': () => import('../features/fence/routes/fence-index'),
  'fence/fenceSetting': () => import('../features/fence/routes/fence-setting'),
};

/** The component names the console has a page for (a test keeps them and contracts' ROUTE_COMPONENTS the same). */
export const PAGE_COMPONENTS: string[] = Object.keys(loaders);

/** Older menus name the home page after its folder ('index/index' or '@/views/index'). */
const aliases: Record<string, string> = { index: 'home/index', 'index/index': 'home/index' };

export const normalizeComponentName = (name: string): string => {
  const bare = name
    .trim()
    .replace(/^@\/views\//, '')
    .replace(/^\/+/, '')
    .replace(/\.(vue|tsx?|jsx?)$/, '');
  return aliases[bare] ?? bare;
};

export const isKnownComponent = (name: string): boolean => normalizeComponentName(name) in loaders;

/** Page modules already downloaded and run, by component name. */
const loaded = new Map<string, PageModule>();

const loadPage = (key: string): Promise<PageModule> =>
  loaders[key]().then((module) => {
    loaded.set(key, module);
    return module;
  });

/** Downloads and runs a page's code ahead of its first visit (the first page, while the user signs in). */
export const preloadPage = (name: string): Promise<unknown> =>
  isKnownComponent(name) ? loadPage(normalizeComponentName(name)) : Promise.resolve();

/**
 * Starts the data the page `name` draws first, once a navigation to it is decided: its code and its calls
 * then load while the signed-in area is drawn, not one after the other. A page without `prefetch` just loads.
 */
export async function prefetchPageData(name: string, search: string): Promise<void> {
  if (!isKnownComponent(name)) return;
  const page = await loadPage(normalizeComponentName(name));
  page.prefetch?.(queryClient, new URLSearchParams(search));
}

const pages = new Map<string, Page>();

/** The lazy page for a component name; the same component every time so React keeps its state. */
export function pageComponent(name: string): Page {
  const key = isKnownComponent(name) ? normalizeComponentName(name) : 'error/404';
  let page = pages.get(key);
  if (!page) {
    const load = withChunkTimeout(() => trackPageLoad(loadPage(key)));
    page = lazy(() => {
      const ready = loaded.get(key);
      // code loaded ahead is handed over at once (a thenable that answers synchronously): the page draws in the
      // same pass as the layout around it, not after a round behind its loading fallback
      return ready
        ? ({ then: (resolve: (m: PageModule) => void) => resolve(ready) } as unknown as Promise<PageModule>)
        : load();
    });
    pages.set(key, page);
  }
  return page;
}
