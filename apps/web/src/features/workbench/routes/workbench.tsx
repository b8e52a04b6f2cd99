import { CheckCircleFilled, ReloadOutlined } from '@ant-design/icons';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { Button, Card, Col, Empty, Flex, Result, Row, Tooltip, Typography, theme } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLiveEvents } from '@/lib/live-events';
import { useSession } from '@/lib/session';
import { WORKBENCH_KEY, useWorkbenchSummary, workbenchQueryOptions } from '../api/workbench';
import { SectionCard } from '../components/section-card';
import { orderSections, pendingTotal } from '../utils/sections';
import { throttle } from '../utils/throttle';

/** Live events come in bursts (a fleet going offline): the page reads again at most this often. */
export const WORKBENCH_REREAD_MS = 3000;

/** Starts the summary while the console draws the signed-in area (app/route-components.ts). */
export function prefetch(client: QueryClient): void {
  void client.prefetchQuery(workbenchQueryOptions());
}

/**
 * The workbench (issue 14, SPEC §2): what needs the signed-in user now, one card per section its permissions
 * reach. Each card opens its list with the matching filter, each item its own page. It reads again when something
 * it shows may have changed (live events, throttled), never on a timer.
 */
export default function WorkbenchPage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const client = useQueryClient();
  const username = useSession((s) => s.username);
  const summary = useWorkbenchSummary();
  const reread = useMemo(
    () => throttle(() => void client.invalidateQueries({ queryKey: WORKBENCH_KEY }), WORKBENCH_REREAD_MS),
    [client],
  );
  useEffect(() => () => reread.cancel(), [reread]);
  useLiveEvents({
    device: reread,
    sim: reread,
    identity: reread,
    order: reread,
    workOrder: reread,
    notice: reread,
    message: reread,
    onGap: reread,
  });

  const data = summary.data;
  const sections = data ? orderSections(data.sections) : [];
  const pending = pendingTotal(sections);

  const body = () => {
    if (summary.isError && !data) {
      return (
        <Card variant="borderless">
          <Result
            status="warning"
            title={t('workbench.loadFailed')}
            extra={
              <Button type="primary" onClick={() => void summary.refetch()}>
                {t('workbench.retry')}
              </Button>
            }
          />
        </Card>
      );
    }
    if (!data) return <Card variant="borderless" loading />;
    if (sections.length === 0) {
      return (
        <Card variant="borderless" data-testid="wb-empty">
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('workbench.noSections')} />
        </Card>
      );
    }
    return (
      <Row gutter={[16, 16]}>
        {sections.map((s) => (
          <Col key={s.key} xs={24} md={12} xl={8}>
            <SectionCard section={s} />
          </Col>
        ))}
      </Row>
    );
  };

  return (
    <Flex vertical gap={16} data-testid="workbench">
      <Card variant="borderless" styles={{ body: { padding: '16px 20px' } }}>
        <Flex justify="space-between" align="center" gap={12} wrap>
          <div style={{ minWidth: 0 }}>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('workbench.title', { name: username })}
            </Typography.Title>
            {data &&
              (pending > 0 ? (
                <Typography.Text type="secondary" data-testid="wb-pending">
                  {t(data.role === 'staff' ? 'workbench.pendingStaff' : 'workbench.pending', { n: pending })}
                </Typography.Text>
              ) : (
                <Typography.Text type="secondary" data-testid="wb-all-clear">
                  <CheckCircleFilled style={{ color: token.colorSuccess, marginInlineEnd: 6 }} />
                  {t('workbench.allClear')}
                </Typography.Text>
              ))}
          </div>
          <Tooltip title={t('workbench.liveHint')}>
            <Button
              icon={<ReloadOutlined />}
              aria-label={t('workbench.refresh')}
              loading={summary.isFetching}
              onClick={() => void summary.refetch()}
            />
          </Tooltip>
        </Flex>
      </Card>
      {body()}
    </Flex>
  );
}
