import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { trackPageLoad } from '../lib/call-progress';
import { withChunkTimeout } from '../lib/lazy-chunk';

type PageModule = { default: ComponentType };
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
  'identity/review': () => import('../features/identity/routes/review'),
  'device-model/index': () => import('../features/device-model/routes/device-model'),
  'device-registry/index': () => import('../features/device-registry/routes/device-registry'),
  'integration/index': () => import('../features/integration/routes/integration'),
  'error/403': () => import('../features/error/routes/forbidden'),
  'error/404': () => import('../features/error/routes/not-found'),
};

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

const pages = new Map<string, Page>();

/** The lazy page for a component name; the same component every time so React keeps its state. */
export function pageComponent(name: string): Page {
  const key = isKnownComponent(name) ? normalizeComponentName(name) : 'error/404';
  let page = pages.get(key);
  if (!page) {
    const load = loaders[key];
    page = lazy(withChunkTimeout(() => trackPageLoad(load())));
    pages.set(key, page);
  }
  return page;
}
