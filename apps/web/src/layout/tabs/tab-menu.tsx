import {
  CloseCircleOutlined,
  CloseOutlined,
  ColumnWidthOutlined,
  ReloadOutlined,
  VerticalLeftOutlined,
  VerticalRightOutlined,
} from '@ant-design/icons';
import type { MenuProps } from 'antd';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { isClosable, type CloseAction, type VisitedTab } from './tabs-store';

export type TabMenuAction = CloseAction | 'refresh';

export const TAB_MENU_ACTIONS: TabMenuAction[] = [
  'refresh',
  'close',
  'closeOthers',
  'closeLeft',
  'closeRight',
  'closeAll',
];

const ICONS: Record<TabMenuAction, ReactNode> = {
  refresh: <ReloadOutlined />,
  close: <CloseOutlined />,
  closeOthers: <ColumnWidthOutlined />,
  closeLeft: <VerticalRightOutlined />,
  closeRight: <VerticalLeftOutlined />,
  closeAll: <CloseCircleOutlined />,
};

/** Which actions would do nothing for the tab `key` (a page without a tab has no left or right). */
function disabled(tabs: VisitedTab[], key: string | null): Record<TabMenuAction, boolean> {
  const index = tabs.findIndex((t) => t.key === key);
  const tab = tabs[index];
  return {
    refresh: !key,
    close: !tab || !isClosable(tab),
    closeOthers: !tabs.some((t) => t.key !== key && isClosable(t)),
    closeLeft: index < 0 || !tabs.slice(0, index).some(isClosable),
    closeRight: index < 0 || !tabs.slice(index + 1).some(isClosable),
    closeAll: !tabs.some(isClosable),
  };
}

/** The items of the bar's dropdown and of a tab's context menu; `data-tab-action` names each for tests. */
export function tabMenuItems(t: TFunction, tabs: VisitedTab[], key: string | null): NonNullable<MenuProps['items']> {
  const off = disabled(tabs, key);
  const item = (action: TabMenuAction) => ({
    key: action,
    icon: ICONS[action],
    disabled: off[action],
    label: <span data-tab-action={action}>{t(`layout.tabs.${action}`)}</span>,
  });
  return [
    item('refresh'),
    { type: 'divider' },
    item('close'),
    item('closeOthers'),
    item('closeLeft'),
    item('closeRight'),
    item('closeAll'),
  ];
}
