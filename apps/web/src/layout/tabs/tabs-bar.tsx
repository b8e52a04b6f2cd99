import { CloseOutlined, DownOutlined } from '@ant-design/icons';
import { Button, Dropdown, theme, type MenuProps } from 'antd';
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  type CSSProperties,
  type KeyboardEvent,
} from 'react';
import { useTranslation } from 'react-i18next';
import { useLayoutSettings } from '../layout-settings';
import { MenuIcon } from '../menu-icon';
import { tabMenuItems, type TabMenuAction } from './tab-menu';
import { usePageTitles } from '../../lib/page-title';
import { routeTitle } from '../../lib/menu-routes';
import { isClosable, useTabs, type VisitedTab } from './tabs-store';
import { useTabActions } from './use-tab-actions';
import './tabs-bar.css';

type Actions = ReturnType<typeof useTabActions>;

function run(actions: Actions, action: TabMenuAction, key: string | null) {
  if (action === 'refresh') actions.refresh(key);
  else actions.close(action, key ?? undefined);
}

/** The menu of the tab `key` (the bar's own for the active tab); built again only when the tabs change. */
function useTabMenu(tabs: VisitedTab[], key: string | null, actions: Actions): MenuProps {
  const { t } = useTranslation();
  return useMemo(
    () => ({
      items: tabMenuItems(t, tabs, key),
      onClick: ({ key: action, domEvent }) => {
        domEvent.stopPropagation();
        run(actions, action as TabMenuAction, key);
      },
    }),
    [t, tabs, key, actions],
  );
}

interface TabProps {
  tab: VisitedTab;
  active: boolean;
  showIcon: boolean;
  /** All the tabs: what "close left / right / others" would close. */
  tabs: VisitedTab[];
  actions: Actions;
  onKeyDown(event: KeyboardEvent, tab: VisitedTab): void;
}

/** Memoised: a switch re-renders the tab that lights up and the one that goes out, not the others. */
const Tab = memo(function Tab({ tab, active, showIcon, tabs, actions, onKeyDown }: TabProps) {
  const { t } = useTranslation();
  const menu = useTabMenu(tabs, tab.key, actions);
  const object = usePageTitles((s) => s.titles[tab.fullPath]);
  const page = routeTitle(tab.meta, t) || tab.name;
  const title = object ? t('layout.tabs.objectTitle', { page, name: object }) : page;
  const closable = isClosable(tab);
  const icon = showIcon ? <MenuIcon name={tab.meta.icon ?? tab.parentIcon} /> : null;
  return (
    <Dropdown trigger={['contextMenu']} menu={menu} destroyOnHidden>
      <div
        role="tab"
        aria-selected={active}
        tabIndex={active ? 0 : -1}
        data-tab-path={tab.fullPath}
        title={tab.fullPath === tab.path ? title : `${title} (${tab.fullPath})`}
        className={`cpc-tab${active ? ' cpc-tab--active' : ''}`}
        onClick={() => !active && actions.open(tab)}
        onKeyDown={(e) => onKeyDown(e, tab)}
        // a middle click closes, as in browsers
        onAuxClick={(e) => e.button === 1 && closable && actions.close('close', tab.key)}
      >
        {icon && <span className="cpc-tab__icon">{icon}</span>}
        <span className="cpc-tab__title">{title}</span>
        {closable && (
          <span
            role="button"
            aria-label={t('layout.tabs.closeTab', { title })}
            className="cpc-tab__close"
            onClick={(e) => {
              e.stopPropagation();
              actions.close('close', tab.key);
            }}
          >
            <CloseOutlined />
          </span>
        )}
      </div>
    </Dropdown>
  );
});

/**
 * The visited pages (SPEC §2): one tab each, the home tab first and fixed, closing from the × , the
 * right-click menu or the dropdown at the end. Three looks (card, smart, smooth) drawn from theme tokens.
 */
export function TabsBar() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const showTabs = useLayoutSettings((s) => s.showTabs);
  const barStyle = useLayoutSettings((s) => s.tabsBarStyle);
  const showIcon = useLayoutSettings((s) => s.showTabsIcon);
  const tabs = useTabs((s) => s.tabs);
  const activeKey = useTabs((s) => s.activeKey);
  const actions = useTabActions();
  const scrollRef = useRef<HTMLDivElement>(null);

  // the active tab stays in view however many are open; measured after the frame, when the layout is
  // there anyway, rather than forcing one in the middle of a tab switch
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const scroller = scrollRef.current;
      const active = scroller?.querySelector<HTMLElement>('.cpc-tab--active');
      if (!scroller || !active) return;
      const [tab, view] = [active.getBoundingClientRect(), scroller.getBoundingClientRect()];
      if (tab.left < view.left || tab.right > view.right)
        active.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
    });
    return () => cancelAnimationFrame(frame);
  }, [activeKey, tabs.length, showTabs]);

  // a vertical wheel scrolls the tabs sideways when they overflow
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      if (el.scrollWidth <= el.clientWidth || Math.abs(e.deltaX) > Math.abs(e.deltaY)) return;
      e.preventDefault();
      el.scrollLeft += e.deltaY;
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [showTabs]);

  // one handler for every tab, reading the tabs of the moment: the tabs' memo holds
  const current = useRef({ tabs, activeKey });
  useLayoutEffect(() => {
    current.current = { tabs, activeKey };
  });
  const onKeyDown = useCallback(
    (e: KeyboardEvent, tab: VisitedTab) => {
      const { tabs: all, activeKey: active } = current.current;
      const index = all.indexOf(tab);
      const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
      if (step) {
        const next = all[index + step];
        if (next) {
          actions.open(next);
          scrollRef.current?.querySelector<HTMLElement>(`[data-tab-path="${CSS.escape(next.fullPath)}"]`)?.focus();
        }
      } else if (e.key === 'Enter' || e.key === ' ') {
        if (tab.key !== active) actions.open(tab);
      } else if (e.key === 'Delete' && isClosable(tab)) {
        actions.close('close', tab.key);
      } else return;
      e.preventDefault();
    },
    [actions],
  );
  const barMenu = useTabMenu(tabs, activeKey, actions);

  if (!showTabs) return null;

  // tokens, not fixed colours: the bar follows the theme and the dark scheme
  const vars = {
    '--cpc-tabs-bar-primary': token.colorPrimary,
    '--cpc-tabs-bar-primary-bg': token.colorPrimaryBg,
    '--cpc-tabs-bar-primary-bg-hover': token.colorPrimaryBgHover,
    '--cpc-tabs-bar-on-primary': token.colorTextLightSolid,
    '--cpc-tabs-bar-text': token.colorText,
    '--cpc-tabs-bar-text-secondary': token.colorTextSecondary,
    '--cpc-tabs-bar-bg': token.colorBgContainer,
    // the page area's own background (the shell's when it sets one): a smooth tab flows into the page
    '--cpc-tabs-bar-page-bg': `var(--cpc-body-bg, ${token.colorBgLayout})`,
    '--cpc-tabs-bar-fill': token.colorFillSecondary,
    '--cpc-tabs-bar-border': token.colorBorderSecondary,
    '--cpc-tabs-bar-border-strong': token.colorBorder,
    '--cpc-tabs-bar-radius': `${token.borderRadius}px`,
  } as CSSProperties;

  return (
    <div className={`cpc-tabs-bar cpc-tabs-bar--${barStyle}`} style={vars} data-testid="tabs-bar" data-style={barStyle}>
      <div ref={scrollRef} className="cpc-tabs-bar__scroll" role="tablist" aria-label={t('layout.tabs.list')}>
        {tabs.map((tab) => (
          <Tab
            key={tab.key}
            tab={tab}
            active={tab.key === activeKey}
            showIcon={showIcon}
            tabs={tabs}
            actions={actions}
            onKeyDown={onKeyDown}
          />
        ))}
      </div>
      <Dropdown trigger={['click']} placement="bottomRight" menu={barMenu}>
        <Button
          type="text"
          size="small"
          className="cpc-tabs-bar__actions"
          icon={<DownOutlined />}
          aria-label={t('layout.tabs.actions')}
          data-testid="tabs-actions"
        />
      </Dropdown>
    </div>
  );
}
