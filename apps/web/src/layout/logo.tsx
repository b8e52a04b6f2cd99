import { PrinterFilled } from '@ant-design/icons';
import { Flex, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { TITLE_KEY } from '../config/settings';

/** Product mark of the side bar or the header; only the icon when the bar is folded or narrow. */
export function Logo({ collapsed = false, dark = true }: { collapsed?: boolean; dark?: boolean }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <Link to="/" style={{ display: 'block', flex: 'none' }} className="cpc-logo" data-testid="logo" aria-label={t(TITLE_KEY)}>
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
    </Link>
  );
}
