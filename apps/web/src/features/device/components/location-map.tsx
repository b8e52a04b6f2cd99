import { Empty, Flex, Skeleton, Typography } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeviceStatus } from '@cpc/contracts/device';
import { formatDateTime } from '@/lib/format/relative-time';
import { useChartColors } from '../charts/chart-colors';
import { CHINA_MAP, useChinaMap } from '@/lib/charts/china-map';
import { Chart } from '@/lib/charts/chart';
import { provinceNameMap } from '../utils/provinces';

/** Close enough to see the city, far enough to see where in China it is. */
const DEVICE_ZOOM = 5;

/** A small offline map (the shipped provinces) with the device's point on it. */
export function LocationMap({
  location,
  status,
  province,
}: {
  location: { lat: number; lng: number; at: string | null } | null;
  status: DeviceStatus;
  province: string;
}) {
  const { t } = useTranslation();
  const c = useChartColors();
  const map = useChinaMap();

  const option = useMemo(() => {
    if (!location) return null;
    return {
      backgroundColor: 'transparent',
      geo: {
        map: CHINA_MAP,
        roam: false,
        silent: true,
        zoom: DEVICE_ZOOM,
        center: [location.lng, location.lat],
        nameMap: provinceNameMap(t),
        itemStyle: { areaColor: c.land, borderColor: c.landBorder, borderWidth: 0.8 },
        label: { show: true, color: c.textSecondary, fontSize: 11, fontFamily: c.fontFamily },
      },
      series: [
        {
          type: 'scatter',
          coordinateSystem: 'geo',
          symbolSize: 14,
          silent: true,
          itemStyle: { color: status === 'online' ? c.success : c.offline, borderColor: c.containerBg, borderWidth: 2 },
          data: [[location.lng, location.lat]],
        },
      ],
    };
  }, [location, status, c, t]);

  if (!location)
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.detail.location.unknown')} />;
  return (
    <Flex vertical gap={8}>
      {map.ready && option ? (
        <Chart option={option} height={220} data-testid="location-map" />
      ) : map.failed ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.map.failed')} />
      ) : (
        <Skeleton.Node active style={{ width: '100%', height: 220 }} />
      )}
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {province ? `${province} · ` : ''}
        {t('device.detail.location.coords', { lat: location.lat.toFixed(4), lng: location.lng.toFixed(4) })}
        {location.at ? ` · ${t('device.detail.location.updated', { time: formatDateTime(location.at) })}` : ''}
      </Typography.Text>
    </Flex>
  );
}
