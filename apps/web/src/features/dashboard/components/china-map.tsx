import { EnvironmentOutlined } from '@ant-design/icons';
import { Col, Flex, Progress, Row, Typography } from 'antd';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProvinceCount } from '@cpc/contracts/device';
import { CHINA_MAP } from '@/lib/charts/china-map';
import { mapScale } from '@/lib/charts/theme';
import { escapeHtml, provinceMapData, rankRows } from '../utils/dashboard-data';
import { Chart, type ChartTheme } from '@/lib/charts/chart';
import { WidgetCard } from './widget-card';

const LIST_SIZE = 6;

interface ChinaMapProps {
  provinces: ProvinceCount[] | undefined;
  loading: boolean;
  chart: ChartTheme;
}

/** Devices by province on the offline map of China, coloured by count, with the leading provinces beside it. */
export function ChinaMap({ provinces, loading, chart }: ChinaMapProps) {
  const { t } = useTranslation();
  const map = useMemo(() => provinceMapData(provinces ?? []), [provinces]);
  const provinceName = useCallback((name: string) => t(`dashboard.province.${name}`, { defaultValue: name }), [t]);

  const option = useMemo(
    () => ({
      tooltip: {
        trigger: 'item',
        formatter: (p: { name: string; data?: { value: number; online: number } }) =>
          [
            `<b>${escapeHtml(provinceName(p.name))}</b>`,
            t('dashboard.map.devices', { n: p.data?.value ?? 0 }),
            t('dashboard.map.online', { n: p.data?.online ?? 0 }),
          ].join('<br/>'),
      },
      visualMap: {
        type: 'continuous',
        min: 0,
        max: map.max,
        left: 8,
        bottom: 8,
        itemHeight: 90,
        itemWidth: 10,
        calculable: false,
        text: [String(map.max), '0'],
        inRange: { color: mapScale(chart.tokens) },
      },
      series: [
        {
          type: 'map',
          map: CHINA_MAP,
          roam: false,
          layoutCenter: ['50%', '56%'],
          layoutSize: '118%',
          aspectScale: 0.8,
          selectedMode: false,
          label: { show: false },
          emphasis: { label: { show: true, formatter: (p: { name: string }) => provinceName(p.name) } },
          data: map.data,
        },
      ],
    }),
    // `t` changes with the language, and the names with it
    [map, chart.tokens, t, provinceName],
  );

  const top = rankRows(map.data.slice(0, LIST_SIZE), (d) => d.value);
  return (
    <WidgetCard
      testId="widget-map"
      loading={loading}
      title={t('dashboard.map.title')}
      extra={
        <Typography.Text type="secondary">
          <EnvironmentOutlined /> {t('dashboard.map.located', { n: map.located })}
        </Typography.Text>
      }
    >
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={16}>
          <Chart map option={option} height={360} aria-label={t('dashboard.map.title')} />
        </Col>
        <Col xs={24} lg={8}>
          <Typography.Text strong>{t('dashboard.map.top')}</Typography.Text>
          {top.length === 0 ? (
            <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
              {t('dashboard.map.empty')}
            </Typography.Paragraph>
          ) : (
            <Flex vertical gap={10} style={{ marginTop: 12 }} data-testid="province-list">
              {top.map(({ item, percent }, i) => (
                <div key={item.name} data-province={item.name}>
                  <Flex justify="space-between" gap={8}>
                    <Typography.Text>
                      <Typography.Text type="secondary" style={{ display: 'inline-block', width: 20 }}>
                        {i + 1}
                      </Typography.Text>
                      {provinceName(item.name)}
                    </Typography.Text>
                    <Typography.Text type="secondary">
                      {t('dashboard.map.count', { n: item.value, online: item.online })}
                    </Typography.Text>
                  </Flex>
                  <Progress percent={percent} showInfo={false} size="small" strokeColor={chart.tokens.colorPrimary} />
                </div>
              ))}
            </Flex>
          )}
        </Col>
      </Row>
    </WidgetCard>
  );
}
