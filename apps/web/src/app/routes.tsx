import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { BootLoading } from '../components/lite/boot-screens';
import { loadDictionaries } from '../lib/i18n';
import { loadServerMessages } from '../lib/server-messages';
import { withChunkTimeout } from '../lib/lazy-chunk';
import { guardActsOn, guardLoader } from './guard';
import { RootRoute, type RouteHandle } from './root-route';
import { RouteError } from './route-error';
import { warmSignedInSoon } from './warm-up';

type PageModule = { default: ComponentType };

/** A route whose screen is the default export of a lazily loaded module. */
const page = (path: string, title: string, load: () => Promise<PageModule>): RouteObject => ({
  path,
  handle: { title } satisfies RouteHandle,
  lazy: async () => ({ Component: (await withChunkTimeout(load)()).default }),
});

/** Loads a screen together with the dictionaries beyond the public screens' (the first load carries only those). */
const withDictionaries =
  <T,>(load: () => Promise<T>) =>
  async (): Promise<T> =>
    (await Promise.all([load(), loadDictionaries(), loadServerMessages()]))[0];

/** A sign-in screen: while the user types, the first signed-in screen's code loads (`warm-up.ts`). */
const signIn = (load: () => Promise<PageModule>) => async (): Promise<PageModule> => {
  const module = await load();
  warmSignedInSoon();
  return module;
};

/**
 * The route tree (SPEC §2). Public screens are fixed; everything else is the splat route, where the
 * authenticated area renders the user's own pages from their route records. The root loader is the
 * guard and runs on every navigation it has something to do for (a redirect, or a session to load).
 */
export function createRoutes(): RouteObject[] {
  return [
    {
      id: 'root',
      element: <RootRoute />,
      errorElement: <RouteError />,
      hydrateFallbackElement: <BootLoading />,
      loader: guardLoader,
      shouldRevalidate: ({ nextUrl }) => guardActsOn(nextUrl),
      children: [
        page(
          '/login',
          'route.login',
          signIn(() => import('../features/auth/routes/login')),
        ),
        page(
          '/login88121',
          'route.login',
          signIn(() => import('../features/auth/routes/login88121')),
        ),
        {
          // every other screen is drawn with antd: its providers load with the first of them and stay
          id: 'console',
          lazy: async () => ({ Component: (await withChunkTimeout(() => import('./console-layout'))()).default }),
          children: [
            page('/register', 'route.register', () => import('../features/auth/routes/register')),
            page('/account/register', 'route.register', () => import('../features/auth/routes/register')),
            page('/account/authenticate', 'route.authenticate', () => import('../features/auth/routes/authenticate')),
            page(
              '/403',
              'route.403',
              withDictionaries(() => import('../features/error/routes/forbidden')),
            ),
            page(
              '/404',
              'route.404',
              withDictionaries(() => import('../features/error/routes/not-found')),
            ),
            // whitelisted for third-party login returns: a spinner while the server finishes the flow
            page('/callback', 'route.callback', () => import('../features/auth/routes/callback')),
            {
              path: '*',
              lazy: async () => {
                // the area's pages confirm with modals and notify: their holders load beside it
                void import('./app-feedback').then((m) => m.loadFeedbackExtras());
                return {
                  Component: (await withChunkTimeout(withDictionaries(() => import('./authenticated-area')))()).default,
                };
              },
            },
          ],
        },
      ],
    },
  ];
}
