import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import type { TFunction } from 'i18next';
import { MENU_SCROLL_THRESHOLD } from '../config/settings';
import { SCROLL_CLASS, toMenuItems, type MenuItem } from './menu-items';
import type { MenuNode } from './menu-model';

const t = ((key: string) => `t:${key}`) as unknown as TFunction;
const leaf = (key: string, meta: Partial<MenuNode['meta']> = {}): MenuNode => ({
  key,
  meta: { title: key, ...meta },
  external: false,
});
const group = (key: string, n: number): MenuNode => ({
  ...leaf(key),
  children: Array.from({ length: n }, (_, i) => leaf(`${key}/${i}`)),
});

type Sub = Extract<MenuItem, { children?: unknown }> & { className?: string; children?: MenuItem[] };

describe('toMenuItems', () => {
  it(`scrolls a group of more than ${MENU_SCROLL_THRESHOLD} items, and only such a group`, () => {
    const [long, short] = toMenuItems(
      [group('/long', MENU_SCROLL_THRESHOLD + 1), group('/short', MENU_SCROLL_THRESHOLD)],
      t,
    ) as Sub[];
    expect(long.className).toBe(SCROLL_CLASS);
    expect(short.className).toBeUndefined();
  });

  it('keeps only the first level at depth 1', () => {
    const items = toMenuItems([group('/a', 2), leaf('/b')], t, 1) as Sub[];
    expect(items.map((i) => i?.key)).toEqual(['/a', '/b']);
    expect(items[0].children).toBeUndefined();
    expect((toMenuItems([group('/a', 2)], t) as Sub[])[0].children).toHaveLength(2);
  });

  it('translates titles and shows a badge or a red dot', () => {
    const [plain, badged, dotted] = toMenuItems(
      [leaf('/p'), leaf('/b', { badge: 'New' }), leaf('/d', { dot: true })],
      t,
    ) as (Sub & { label: unknown })[];
    expect(plain.label).toBe('t:/p');
    const { container } = render(
      <>
        {badged.label as never}
        {dotted.label as never}
      </>,
    );
    expect(container.textContent).toContain('t:/b');
    expect(container.textContent).toContain('New');
    expect(container.querySelector('.ant-badge-dot')).not.toBeNull();
  });
});
