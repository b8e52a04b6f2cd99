import { ReloadOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLayoutSettings } from '../layout-settings';
import { refreshPage } from '../tabs/use-tab-actions';

/** The header's refresh (SPEC §2): mounts the page on screen anew, keeping every other tab as it is. */
export function RefreshButton() {
  const { t } = useTranslation();
  const show = useLayoutSettings((s) => s.showRefresh);
  if (!show) return null;
  return (
    <Tooltip title={t('layout.tabs.refreshPage')}>
      <Button
        type="text"
        icon={<ReloadOutlined />}
        aria-label={t('layout.tabs.refreshPage')}
        data-testid="refresh-page"
        onClick={() => refreshPage()}
      />
    </Tooltip>
  );
}
