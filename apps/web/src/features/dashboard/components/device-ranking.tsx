import { Flex, Progress, Segmented, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { DashboardOverview, RankedDevice } from '@cpc/contracts/dashboard';
import { deviceDetailPath, deviceLabel, formatMb, rankRows } from '../utils/dashboard-data';
import type { ChartTheme } from '@/lib/charts/chart';
import { WidgetCard } from './widget-card';

type By = 'byTasks' | 'byData';

/** The busiest devices this month, by tasks or by SIM data used. */
export function DeviceRanking({
  ranking,
  loading,
  chart,
}: {
  ranking: DashboardOverview['deviceRanking'] | undefined;
  loading: boolean;
  chart: ChartTheme;
}) {
  const { t } = useTranslation();
  const [by, setBy] = useState<By>('byTasks');
  const rows = rankRows<RankedDevice>(ranking?.[by] ?? [], (d) => d.value);
  const valueOf = (d: RankedDevice) =>
    by === 'byTasks' ? t('dashboard.deviceRank.tasks', { n: d.value }) : formatMb(d.value);

  return (
    <WidgetCard
      testId="widget-device-rank"
      loading={loading}
      title={t('dashboard.deviceRank.title')}
      extra={
        <Segmented<By>
          size="small"
          value={by}
          onChange={setBy}
          options={(['byTasks', 'byData'] as const).map((b) => ({ value: b, label: t(`dashboard.deviceRank.${b}`) }))}
        />
      }
      empty={rows.length === 0 ? t(`dashboard.deviceRank.empty.${by}`) : undefined}
    >
      <RankList
        rows={rows.map(({ item, percent }) => ({
          key: item.id,
          label: <Link to={deviceDetailPath(item.id)}>{deviceLabel(item)}</Link>,
          value: valueOf(item),
          percent,
        }))}
        color={by === 'byTasks' ? chart.tokens.colorWarning : chart.tokens.purple}
      />
    </WidgetCard>
  );
}

export interface RankListRow {
  key: string | number;
  label: ReactNode;
  value: ReactNode;
  percent: number;
  /** A second, lighter part of the bar (e.g. the online share of a group). */
  success?: number;
}

/** Ranked rows with a bar each: readable at any width, no chart needed. */
export function RankList({ rows, color }: { rows: RankListRow[]; color: string }) {
  return (
    <Flex vertical gap={10}>
      {rows.map((r, i) => (
        <div key={r.key} data-rank={i + 1}>
          <Flex justify="space-between" gap={8} align="baseline">
            <Typography.Text ellipsis style={{ minWidth: 0 }}>
              <Typography.Text type="secondary" style={{ display: 'inline-block', width: 22 }}>
                {i + 1}
              </Typography.Text>
              {r.label}
            </Typography.Text>
            <Typography.Text type="secondary" style={{ flex: 'none' }}>
              {r.value}
            </Typography.Text>
          </Flex>
          <Progress
            percent={r.percent}
            success={r.success === undefined ? undefined : { percent: r.success }}
            showInfo={false}
            size="small"
            strokeColor={color}
          />
        </div>
      ))}
    </Flex>
  );
}
