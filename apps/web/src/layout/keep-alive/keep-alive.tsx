import { Activity, isValidElement, memo, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { PageLoading } from '../page-loading';
import { PageErrorBoundary } from './page-error-boundary';
import { useScrollMemory } from './use-scroll-memory';
import './keep-alive.css';

export interface KeptPage {
  /** Identity of the mounted page: a new id mounts it anew (a refresh). */
  id: string;
  /** Path and query of the page, for `data-page-path`. */
  fullPath: string;
  active: boolean;
  /** One of the few pages the user was on last: it stays live behind the active one (see `Slot`). */
  warm?: boolean;
  element: ReactNode;
}

/** How many hidden pages stay warm: the ones the user was on last, as a few tabs are in use at a time. */
export const WARM_PAGES = 3;
/** How long a warm page stays live once hidden. */
export const WARM_TIME = 5 * 60_000;
/** A hidden page that is not warm (any more) is paused after this pause, away from the switch itself. */
export const COOL_DELAY = 1000;

const shallowEqual = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.is(a[k], b[k]));
};

/** The same page element drawn anew by the parent: same component, same props. */
const sameElement = (a: ReactNode, b: ReactNode): boolean =>
  a === b ||
  (isValidElement(a) &&
    isValidElement(b) &&
    a.type === b.type &&
    a.key === b.key &&
    shallowEqual(a.props as Record<string, unknown>, b.props as Record<string, unknown>));

/**
 * One kept page, in one of three states:
 * - active: on screen;
 * - warm (one of the last pages the user was on, hidden for less than WARM_TIME): hidden by the browser
 *   alone (`content-visibility: hidden`, see keep-alive.css, and `inert`), which keeps its styles
 *   and layout, while React keeps it live. Coming back is a matter of showing it: nothing of it renders
 *   or runs again, which is what makes switching between the tabs in use fast;
 * - cold: paused by React's Activity — its effects are cleaned up (timers, polls, subscriptions stop)
 *   and run again when it shows, which costs what mounting its parts costs.
 * Rendered again only when it shows, hides or gets another page: a tab switch touches the two pages
 * that trade places, not every page kept behind them.
 */
const Slot = memo(
  function Slot({ page }: { page: KeptPage }) {
    // a page mounted behind the one on screen (a refresh of another tab) starts paused
    const [cold, setCold] = useState(!page.active);
    if (page.active && cold) setCold(false);

    useEffect(() => {
      if (page.active) return;
      const timer = setTimeout(() => setCold(true), page.warm ? WARM_TIME : COOL_DELAY);
      return () => clearTimeout(timer);
    }, [page.active, page.warm]);

    return (
      <Activity mode={page.active || !cold ? 'visible' : 'hidden'} name={page.fullPath}>
        <div className={page.active ? 'cpc-kept' : 'cpc-kept cpc-kept--hidden'} inert={!page.active}>
          <div data-page-path={page.fullPath}>
            <PageErrorBoundary>
              <Suspense fallback={<PageLoading />}>{page.element}</Suspense>
            </PageErrorBoundary>
          </div>
        </div>
      </Activity>
    );
  },
  ({ page: a }, { page: b }) =>
    a.id === b.id &&
    a.fullPath === b.fullPath &&
    a.active === b.active &&
    !!a.warm === !!b.warm &&
    sameElement(a.element, b.element),
);

/**
 * The pages of the open tabs, each mounted once and kept with its state while another is on screen
 * (the few in use stay live, the others are paused: see `Slot`). Only the active one is visible; the
 * page area scrolls back to where the user left it.
 */
export function KeepAlive({ pages }: { pages: KeptPage[] }) {
  const container = useRef<HTMLDivElement>(null);
  useScrollMemory(
    container,
    pages.find((p) => p.active)?.id,
    pages.map((p) => p.id),
  );

  return (
    <div ref={container}>
      {pages.map((page) => (
        <Slot key={page.id} page={page} />
      ))}
    </div>
  );
}
