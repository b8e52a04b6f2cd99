import { Activity, Suspense, useRef, type ReactNode } from 'react';
import { PageLoading } from '../page-loading';
import { useScrollMemory } from './use-scroll-memory';

export interface KeptPage {
  /** Identity of the mounted page: a new id mounts it anew (a refresh). */
  id: string;
  /** Path and query of the page, for `data-page-path`. */
  fullPath: string;
  active: boolean;
  element: ReactNode;
}

/**
 * The pages of the open tabs, each mounted once and kept with its state while another is on screen
 * (React's Activity hides it and pauses its effects). Only the active one is visible; the page area
 * scrolls back to where the user left it.
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
        <Activity key={page.id} mode={page.active ? 'visible' : 'hidden'} name={page.fullPath}>
          <div data-page-path={page.fullPath}>
            <Suspense fallback={<PageLoading />}>{page.element}</Suspense>
          </div>
        </Activity>
      ))}
    </div>
  );
}
