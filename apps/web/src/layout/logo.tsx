import { PrinterFilled } from '@ant-design/icons';
import { Flex, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { MouseEvent } from 'react';
import { HOME_PATH, TITLE_KEY } from '../config/settings';
import { useStableNavigate } from './use-stable-navigate';

/** A plain click goes home through the router; with a modifier key the browser opens the link itself. */
const plainClick = (e: MouseEvent) => e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

/** Product mark of the side bar or the header; only the icon when the bar is folded or narrow. */
export function Logo({ collapsed = false, dark = true }: { collapsed?: boolean; dark?: boolean }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const navigate = useStableNavigate();
  // not <Link>: it follows the route context, which would draw the logo again at every navigation
  return (
    <a
      href={`#${HOME_PATH}`}
      onClick={(e) => {
        if (!plainClick(e)) return;
        e.preventDefault();
        navigate(HOME_PATH);
      }}
      style={{ display: 'block', flex: 'none' }}
      className="cpc-logo"
      data-testid="logo"
      aria-label={t(TITLE_KEY)}
    >
      <Flex
        align="center"
        justify={collapsed ? 'center' : 'flex-start'}
        gap={10}
        style={{
          height: 60,
          paddingInline: collapsed ? 0 : 20,
          color: dark ? '#fff' : token.colorText,
          fontSize: 17,
          fontWeight: 600,
          whiteSpace: 'nowrap',
          overflow: 'hidden',
        }}
      >
        <PrinterFilled style={{ fontSize: 22, color: token.colorPrimary }} />
        {!collapsed && <span>{t(TITLE_KEY)}</span>}
      </Flex>
    </a>
  );
}
