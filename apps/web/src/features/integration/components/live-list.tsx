import { ReloadOutlined } from '@ant-design/icons';
import { Badge, Button, Flex, Tooltip } from 'antd';
import type { TablePaginationConfig } from 'antd';
import { useTranslation } from 'react-i18next';

export interface Page {
  pageNo: number;
  pageSize: number;
}

/** Whether a list follows new rows: only on its first page (a later page would shift under the reader). */
export function LiveBadge({ live }: { live: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge
      status={live ? 'processing' : 'default'}
      text={t(live ? 'integration.log.live' : 'integration.log.paused')}
    />
  );
}

/** The live badge and a refresh button, at the end of a list's filter bar. */
export function LiveRefresh({
  live,
  refreshing,
  onRefresh,
}: {
  live: boolean;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Flex gap={8} align="center" style={{ marginInlineStart: 'auto' }}>
      <LiveBadge live={live} />
      <Tooltip title={t('integration.refresh')}>
        <Button
          icon={<ReloadOutlined />}
          aria-label={t('integration.refresh')}
          loading={refreshing}
          onClick={onRefresh}
        />
      </Tooltip>
    </Flex>
  );
}

/** A server-paged table's pagination; a new page size starts from the first page. */
export function usePagination(
  page: Page,
  setPage: (page: Page) => void,
  total: number,
  sizes = [10, 20, 50, 100],
): TablePaginationConfig {
  const { t } = useTranslation();
  return {
    current: page.pageNo,
    pageSize: page.pageSize,
    total,
    showSizeChanger: true,
    pageSizeOptions: sizes,
    showTotal: (n) => t('integration.total', { total: n }),
    onChange: (pageNo, pageSize) => setPage({ pageNo: pageSize === page.pageSize ? pageNo : 1, pageSize }),
  };
}
