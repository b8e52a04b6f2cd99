import { ExportOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Empty, Flex, Input, Modal, Tooltip, Typography, theme } from 'antd';
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { RouteRecord } from '@cpc/contracts';
import { useAccess, useSession } from '../../lib/session';
import { useDebounced } from '../../lib/use-debounced';
import { useLayoutSettings } from '../layout-settings';
import { MenuIcon } from '../menu-icon';
import { buildMenu } from '../menu-model';
import { useStableNavigate } from '../use-stable-navigate';
import { menuSearchItems, searchMenu, type MenuSearchItem } from './menu-search';

/** SPEC §9: suggestions follow the typing after this pause. */
export const SEARCH_DEBOUNCE = 500;

const NO_ROUTES: RouteRecord[] = [];
const LISTBOX_ID = 'menu-search-results';
const optionId = (i: number) => `menu-search-option-${i}`;

/** The pages of the user's menu: the same model as the side menu, so the guard hides the same pages. */
function useSearchItems(): MenuSearchItem[] {
  const { t } = useTranslation();
  const routes = useSession((s) => s.routes) ?? NO_ROUTES;
  const access = useAccess();
  return useMemo(() => menuSearchItems(buildMenu(routes, access), (key) => t(key)), [routes, access, t]);
}

function SearchDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useStableNavigate();
  const items = useSearchItems();
  const [query, setQuery] = useState('');
  const debounced = useDebounced(query, SEARCH_DEBOUNCE);
  const results = useMemo(() => searchMenu(items, debounced), [items, debounced]);
  const [active, setActive] = useState(0);

  useEffect(() => setActive(0), [results]);
  // every opening starts afresh
  useEffect(() => {
    if (!open) setQuery('');
  }, [open]);

  const go = (item: MenuSearchItem | undefined) => {
    if (!item) return;
    onClose();
    if (!item.external) navigate(item.path);
    else if (item.target === '_self') window.location.href = item.path;
    else window.open(item.path, '_blank', 'noopener,noreferrer');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!results.length) return;
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i + step + results.length) % results.length);
    } else if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
      e.preventDefault();
      // Enter before the pause is over acts on what is typed, not on the stale suggestions
      const list = query === debounced ? results : searchMenu(items, query);
      go(list[query === debounced ? active : 0]);
    }
  };

  const showEmpty = debounced.trim() !== '' && !results.length;

  return (
    <Modal
      open={open}
      onCancel={onClose}
      title={t('layout.header.search.title')}
      footer={
        <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
          {t('layout.header.search.hint')}
        </Typography.Text>
      }
      width={{ xs: 'calc(100vw - 16px)', sm: 560 }}
      destroyOnHidden
      styles={{ body: { paddingBlock: 8 } }}
      rootClassName="menu-search"
    >
      <Input
        autoFocus
        allowClear
        size="large"
        prefix={<SearchOutlined />}
        placeholder={t('layout.header.search.placeholder')}
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={onKeyDown}
        role="combobox"
        aria-expanded={results.length > 0}
        aria-controls={LISTBOX_ID}
        aria-activedescendant={results.length ? optionId(active) : undefined}
        aria-label={t('layout.header.search.placeholder')}
      />
      {showEmpty && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('layout.header.search.empty')} />}
      <ul
        id={LISTBOX_ID}
        role="listbox"
        aria-label={t('layout.header.search.title')}
        style={{
          listStyle: 'none',
          margin: 0,
          marginTop: results.length ? 8 : 0,
          padding: 0,
          maxHeight: 360,
          overflowY: 'auto',
        }}
      >
        {results.map((item, i) => (
          <li
            key={item.path}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            onMouseEnter={() => setActive(i)}
            onClick={() => go(item)}
            style={{
              cursor: 'pointer',
              padding: '8px 12px',
              borderRadius: token.borderRadius,
              background: i === active ? token.controlItemBgActive : undefined,
            }}
          >
            <Flex align="center" gap={10}>
              <span style={{ color: token.colorTextSecondary, width: 16 }}>
                <MenuIcon name={item.icon} />
              </span>
              <Flex vertical style={{ minWidth: 0, flex: 1 }}>
                <Typography.Text strong={i === active} ellipsis>
                  {item.title}
                </Typography.Text>
                <Typography.Text type="secondary" ellipsis style={{ fontSize: token.fontSizeSM }}>
                  {[...item.trail, item.path].join(' / ')}
                </Typography.Text>
              </Flex>
              {item.external && (
                <Tooltip title={t('layout.header.search.external')}>
                  <ExportOutlined aria-label={t('layout.header.search.external')} />
                </Tooltip>
              )}
            </Flex>
          </li>
        ))}
      </ul>
    </Modal>
  );
}

/** The header's menu search (SPEC §2, §9); Ctrl/⌘ + K opens it too. */
export function SearchButton() {
  const { t } = useTranslation();
  const enabled = useLayoutSettings((s) => s.showSearch);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      // not behind the lock screen
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k' && !useLayoutSettings.getState().lock) {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);

  if (!enabled) return null;
  return (
    <>
      <Tooltip title={t('layout.header.search.button')}>
        <Button
          type="text"
          icon={<SearchOutlined />}
          onClick={() => setOpen(true)}
          aria-label={t('layout.header.search.button')}
          data-testid="search-button"
        />
      </Tooltip>
      <SearchDialog open={open} onClose={() => setOpen(false)} />
    </>
  );
}
