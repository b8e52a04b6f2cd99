import { Empty, Flex, Segmented, Skeleton } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/lib/format/relative-time';
import { useTelemetry } from '../api/devices';
import { tooltipStyle, useChartColors } from '../charts/chart-colors';
import { Chart } from '@/lib/charts/chart';

const RANGES = [24, 168, 720] as const;
type Range = (typeof RANGES)[number];

/** Battery and signal (%) and the SIM's used counter (MB) over the last day, week or month. */
export function TelemetryChart({ deviceId }: { deviceId: number }) {
  const { t } = useTranslation();
  const c = useChartColors();
  const [hours, setHours] = useState<Range>(24);
  const series = useTelemetry(deviceId, hours);
  const points = useMemo(() => series.data?.points ?? [], [series.data]);

  // a few samples (a device just connected) show as dots, a long series as a plain line
  const showSymbol = points.length < 40;
  const option = useMemo(() => {
    const names = {
      battery: t('device.detail.telemetry.battery'),
      signal: t('device.detail.telemetry.signal'),
      used: t('device.detail.telemetry.used'),
    };
    const axisText = { color: c.textSecondary, fontFamily: c.fontFamily, fontSize: 11 };
    return {
      backgroundColor: 'transparent',
      color: [c.success, c.primary, c.warning],
      grid: { left: 8, right: 8, top: 36, bottom: 8, containLabel: true },
      legend: { top: 0, textStyle: { color: c.textSecondary, fontFamily: c.fontFamily }, itemWidth: 14, itemHeight: 8 },
      tooltip: {
        trigger: 'axis',
        ...tooltipStyle(c),
        valueFormatter: (v: unknown) => (typeof v === 'number' ? String(Math.round(v * 100) / 100) : '-'),
        axisPointer: { lineStyle: { color: c.border } },
      },
      xAxis: {
        type: 'time',
        min: series.data?.from,
        max: series.data?.to,
        axisLine: { lineStyle: { color: c.border } },
        axisLabel: { ...axisText, hideOverlap: true, formatter: hours <= 24 ? '{HH}:{mm}' : '{MM}-{dd}' },
        splitLine: { show: false },
      },
      yAxis: [
        {
          type: 'value',
          min: 0,
          max: 100,
          axisLabel: { ...axisText, formatter: '{value}%' },
          splitLine: { lineStyle: { color: c.split } },
        },
        { type: 'value', min: 0, axisLabel: axisText, splitLine: { show: false } },
      ],
      series: [
        {
          name: names.battery,
          type: 'line',
          showSymbol,
          symbolSize: 5,
          connectNulls: true,
          data: points.map((p) => [p.at, p.battery]),
        },
        {
          name: names.signal,
          type: 'line',
          showSymbol,
          symbolSize: 5,
          connectNulls: true,
          data: points.map((p) => [p.at, p.signal]),
        },
        {
          name: names.used,
          type: 'line',
          yAxisIndex: 1,
          step: 'end',
          showSymbol,
          symbolSize: 5,
          connectNulls: true,
          areaStyle: { opacity: 0.08 },
          data: points.map((p) => [p.at, p.usedMb]),
        },
      ],
      axisPointer: { label: { formatter: (p: { value: number }) => formatDateTime(p.value) } },
    };
  }, [c, t, points, hours, showSymbol, series.data?.from, series.data?.to]);

  return (
    <Flex vertical gap={12}>
      <Segmented<Range>
        size="small"
        value={hours}
        onChange={setHours}
        options={RANGES.map((h) => ({ value: h, label: t(`device.detail.telemetry.range.${h}`) }))}
        style={{ alignSelf: 'flex-start' }}
      />
      {series.isPending ? (
        <Skeleton active paragraph={{ rows: 5 }} title={false} />
      ) : points.length ? (
        <Chart option={option} notMerge height={260} data-testid="telemetry-chart" />
      ) : (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={t('device.detail.telemetry.empty')}
          style={{ height: 230, margin: 0, paddingTop: 60 }}
        />
      )}
    </Flex>
  );
}
