import { createElement, type ReactNode } from 'react';
import type { AbstractNode, IconDefinition } from '@ant-design/icons-svg/es/types';
import './lite.css';

const draw = (node: AbstractNode, key?: number): ReactNode =>
  createElement(node.tag, { key, ...node.attrs }, node.children?.map(draw));

/**
 * One of antd's icons, from its SVG definitions (`@ant-design/icons-svg`), without antd's icon component and
 * its context: the same shapes on the screens that load no antd.
 */
export function LiteIcon({ icon, label }: { icon: IconDefinition; label?: string }) {
  const node = typeof icon.icon === 'function' ? icon.icon('currentColor', 'currentColor') : icon.icon;
  return (
    <span
      className="lite-icon"
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    >
      {draw(node)}
    </span>
  );
}
