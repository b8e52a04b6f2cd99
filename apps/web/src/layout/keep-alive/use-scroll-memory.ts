import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

interface Position {
  scroller: Element;
  top: number;
}

const documentScroller = (): Element => document.scrollingElement ?? document.documentElement;

/** The element that scrolls the page area: the nearest scrolling ancestor, else the document. */
export function scrollParent(el: Element | null): Element {
  for (let node = el?.parentElement; node && node !== document.body; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if (/(auto|scroll|overlay)/.test(overflowY) && node.scrollHeight > node.clientHeight) return node;
  }
  return documentScroller();
}

/**
 * Remembers how far the page area was scrolled for each page and scrolls back when the page shows
 * again; a page shown for the first time starts at the top. Positions are recorded as the user
 * scrolls, so a switch (which changes the content height) cannot spoil the one being left.
 */
export function useScrollMemory(
  container: RefObject<HTMLElement | null>,
  activeId: string | undefined,
  ids: string[],
): void {
  const positions = useRef(new Map<string, Position>());
  /** Where each scroller is, as its scroll events and our own writes tell: read without a forced layout. */
  const tops = useRef(new WeakMap<Element, number>());
  const active = useRef(activeId);

  useEffect(() => {
    const onScroll = (e: Event) => {
      const el = container.current;
      const id = active.current;
      if (!el || !id) return;
      const target = e.target === document ? documentScroller() : e.target;
      // scrolling inside a page (a table body, a drawer) is the page's own business
      if (target instanceof Element && target.contains(el)) {
        positions.current.set(id, { scroller: target, top: target.scrollTop });
        tops.current.set(target, target.scrollTop);
      }
    };
    document.addEventListener('scroll', onScroll, { capture: true, passive: true });
    return () => document.removeEventListener('scroll', onScroll, { capture: true });
  }, [container]);

  useLayoutEffect(() => {
    active.current = activeId;
    if (!activeId) return;
    const saved = positions.current.get(activeId);
    if (saved?.scroller.isConnected) {
      // Reading or writing scrollTop here would force a layout inside the commit, at every switch. A scroller
      // at the top that is to be at the top needs neither (new content can lower scrollTop, never raise it
      // from 0); any other case is written.
      if (saved.top === 0 && (tops.current.get(saved.scroller) ?? 0) === 0) return;
      saved.scroller.scrollTop = saved.top;
      tops.current.set(saved.scroller, saved.top);
      return;
    }
    // a page shown for the first time: its scroller is looked up once (a walk that reads styles and sizes) and
    // remembered with the top, which the scroll listener then keeps current
    const scroller = scrollParent(container.current);
    scroller.scrollTop = 0;
    tops.current.set(scroller, 0);
    positions.current.set(activeId, { scroller, top: 0 });
  }, [activeId, container]);

  // a page that is gone (closed, evicted, refreshed) comes back at the top
  const key = ids.join('\n');
  useEffect(() => {
    const open = new Set(key.split('\n'));
    for (const id of positions.current.keys()) if (!open.has(id)) positions.current.delete(id);
  }, [key]);
}
