import { Layout, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { TITLE_KEY } from '../config/settings';

export function AppFooter() {
  const { t } = useTranslation();
  return (
    <Layout.Footer style={{ textAlign: 'center', paddingBlock: 16 }}>
      <Typography.Text type="secondary">
        {t('layout.footer', { year: new Date().getFullYear(), title: t(TITLE_KEY) })}
      </Typography.Text>
    </Layout.Footer>
  );
}
