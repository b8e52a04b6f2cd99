import { Drawer, Flex, Grid, Segmented, Skeleton, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimItem, SimUsageRange } from '@cpc/contracts/flow-rate';
import { Chart, useChartTheme } from '@/lib/charts/chart';
import { useSimUsage } from '../api/flow-rate';
import { formatMbValue, usageSeries } from '../utils/filter';
import { StateTag } from './state-tag';

const RANGES: SimUsageRange[] = ['30d', '90d', '12m'];

/** One SIM's usage: up and down per day (30 / 90 days) or per month (12 months), stacked bars. */
export function UsageDrawer({ sim, onClose }: { sim: SimItem | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [range, setRange] = useState<SimUsageRange>('30d');
  const usage = useSimUsage(sim?.iccid ?? null, range);
  const chart = useChartTheme();
  const narrow = !Grid.useBreakpoint().md;
  const series = useMemo(() => usageSeries(usage.data?.points ?? []), [usage.data]);
  const option = useMemo(
    () => ({
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      legend: { bottom: 0 },
      grid: { left: 8, right: 8, top: 24, bottom: 36, containLabel: true },
      xAxis: { type: 'category', data: series.dates },
      yAxis: { type: 'value', name: t('flowRate.usage.unit') },
      series: [
        {
          name: t('flowRate.usage.rx'),
          type: 'bar',
          stack: 'use',
          data: series.rx,
          itemStyle: { color: chart.tokens.colorPrimary },
        },
        {
          name: t('flowRate.usage.tx'),
          type: 'bar',
          stack: 'use',
          data: series.tx,
          itemStyle: { color: chart.tokens.colorWarning },
        },
      ],
    }),
    [series, t, chart.tokens],
  );
  return (
    <Drawer
      open={!!sim}
      onClose={onClose}
      size={narrow ? '100%' : 720}
      title={t('flowRate.usage.title')}
      destroyOnHidden
    >
      {sim && (
        <Flex vertical gap={12} data-testid="sim-usage">
          <Flex gap={8} align="center" wrap>
            <Typography.Text strong copyable>
              {sim.iccid}
            </Typography.Text>
            <StateTag state={sim.state} />
            {sim.deviceSn && <Typography.Text type="secondary">{sim.deviceName || sim.deviceSn}</Typography.Text>}
          </Flex>
          <Flex justify="space-between" align="center" wrap gap={8}>
            <Segmented<SimUsageRange>
              value={range}
              onChange={setRange}
              options={RANGES.map((r) => ({ value: r, label: t(`flowRate.usage.range.${r}`) }))}
            />
            <Typography.Text type="secondary" data-testid="sim-usage-total">
              {t('flowRate.usage.total', { mb: formatMbValue(series.totalMb) })}
            </Typography.Text>
          </Flex>
          {usage.data ? (
            <Chart option={option} height={320} aria-label={t('flowRate.usage.title')} />
          ) : (
            <Skeleton active />
          )}
        </Flex>
      )}
    </Drawer>
  );
}
