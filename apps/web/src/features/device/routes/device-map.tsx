import { AimOutlined } from '@ant-design/icons';
import {
  Button,
  Card,
  Col,
  Empty,
  Flex,
  Grid,
  List,
  Progress,
  Row,
  Segmented,
  Skeleton,
  Tooltip,
  TreeSelect,
  Typography,
} from 'antd';
import type ReactEChartsCore from 'echarts-for-react/esm/core';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { DeviceStatus, MapDevice } from '@cpc/contracts/device';
import { useDeviceMap } from '../api/devices';
import { useGroupTree } from '../api/groups';
import { tooltipStyle, useChartColors } from '../charts/chart-colors';
import { Chart } from '@/lib/charts/chart';
import { CHINA_CENTER, CHINA_MAP, MAX_ZOOM, MIN_ZOOM, escapeHtml, useChinaMap } from '@/lib/charts/china-map';
import { detailPath } from '../components/device-table';
import { LiveIndicator } from '../components/live-indicator';
import { useLiveDevices } from '../hooks/use-live-devices';
import { deviceLabel } from '../utils/command-confirm';
import { bubbleSize, cellDegForZoom, clusterPoints, zoomInto } from '../utils/cluster';
import { groupOptions } from '../utils/group-tree';
import { provinceLabel, provinceNameMap } from '../utils/provinces';

type StatusFilter = DeviceStatus | 'all';
interface View {
  zoom: number;
  center: [number, number];
}

const HOME: View = { zoom: 1.15, center: CHINA_CENTER };
/** A province clicked in the side list fills most of the map at this zoom. */
const PROVINCE_ZOOM = 4.5;
/** The group filter's "in no group". */
const UNGROUPED = 0;
const ALL_GROUPS = -1;

type MarkerDatum = {
  value: [number, number];
  kind: 'device';
  id: number;
  label: string;
  sn: string;
  status: DeviceStatus;
};
type ClusterDatum = { value: [number, number, number]; kind: 'cluster'; count: number; online: number };

/**
 * The device map (DESIGN §4): an offline map of China from the shipped provinces, devices coloured by status
 * and grouped into count bubbles by zoom (grid clustering, utils/cluster.ts), a click on a device opens its
 * detail tab, a click on a bubble zooms in on it; the counts per province beside it.
 */
export default function DeviceMapPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const c = useChartColors();
  const screens = Grid.useBreakpoint();
  const [status, setStatus] = useState<StatusFilter>('all');
  const [groupId, setGroupId] = useState<number>(ALL_GROUPS);
  const [view, setView] = useState<View>(HOME);
  const chart = useRef<ReactEChartsCore>(null);
  const map = useChinaMap();
  const groups = useGroupTree();
  useLiveDevices();
  const data = useDeviceMap({
    status: status === 'all' ? undefined : status,
    groupId: groupId === ALL_GROUPS ? undefined : groupId,
  });
  const devices = useMemo(() => data.data?.list ?? [], [data.data]);
  const provinces = data.data?.provinces ?? [];

  const clusters = useMemo(() => clusterPoints(devices, cellDegForZoom(view.zoom)), [devices, view.zoom]);

  const option = useMemo(() => {
    const singles: MarkerDatum[] = [];
    const bubbles: Array<ClusterDatum & { symbolSize: number; itemStyle: { color: string } }> = [];
    for (const cl of clusters) {
      if (cl.points.length === 1) {
        const d: MapDevice = cl.points[0];
        singles.push({
          value: [d.lng, d.lat],
          kind: 'device',
          id: d.id,
          label: deviceLabel(d),
          sn: d.sn,
          status: d.status,
        });
      } else {
        const color = cl.online === cl.points.length ? c.success : cl.online === 0 ? c.offline : c.primary;
        bubbles.push({
          value: [cl.lng, cl.lat, cl.points.length],
          kind: 'cluster',
          count: cl.points.length,
          online: cl.online,
          symbolSize: bubbleSize(cl.points.length),
          itemStyle: { color },
        });
      }
    }
    return {
      backgroundColor: 'transparent',
      tooltip: {
        trigger: 'item',
        ...tooltipStyle(c),
        formatter: (p: { data?: MarkerDatum | ClusterDatum }) => {
          const d = p.data;
          if (!d || !('kind' in d)) return '';
          if (d.kind === 'cluster')
            return `${escapeHtml(t('device.map.cluster', { count: d.count, online: d.online }))}<br/><span style="opacity:.7">${escapeHtml(t('device.map.clusterHint'))}</span>`;
          const sn = d.label !== d.sn ? `<br/><span style="opacity:.7">${escapeHtml(d.sn)}</span>` : '';
          return `<b>${escapeHtml(d.label)}</b> · ${escapeHtml(t(`device.status.${d.status}`))}${sn}<br/><span style="opacity:.7">${escapeHtml(t('device.map.deviceHint'))}</span>`;
        },
      },
      geo: {
        map: CHINA_MAP,
        roam: true,
        zoom: view.zoom,
        center: view.center,
        scaleLimit: { min: MIN_ZOOM, max: MAX_ZOOM },
        nameMap: provinceNameMap(t),
        itemStyle: { areaColor: c.land, borderColor: c.landBorder, borderWidth: 0.8 },
        label: { show: view.zoom >= 3, color: c.textSecondary, fontSize: 11, fontFamily: c.fontFamily },
        emphasis: { itemStyle: { areaColor: c.landHover }, label: { show: true, color: c.text } },
        select: { disabled: true },
        // no tooltip over a province; the series below turn theirs back on (they inherit the geo's setting)
        tooltip: { show: false },
      },
      series: [
        {
          id: 'devices',
          type: 'scatter',
          coordinateSystem: 'geo',
          symbolSize: 14,
          cursor: 'pointer',
          tooltip: { show: true },
          itemStyle: { borderColor: c.containerBg, borderWidth: 1.5 },
          emphasis: { scale: 1.4 },
          data: singles.map((d) => ({ ...d, itemStyle: { color: d.status === 'online' ? c.success : c.offline } })),
          zlevel: 1,
        },
        {
          id: 'clusters',
          type: 'scatter',
          coordinateSystem: 'geo',
          cursor: 'pointer',
          tooltip: { show: true },
          itemStyle: { borderColor: c.containerBg, borderWidth: 2, opacity: 0.92 },
          label: {
            show: true,
            formatter: (p: { data: ClusterDatum }) => String(p.data.count),
            color: '#fff',
            fontWeight: 600,
            fontSize: 12,
            fontFamily: c.fontFamily,
          },
          emphasis: { scale: 1.1 },
          data: bubbles,
          zlevel: 2,
        },
      ],
    };
  }, [clusters, view, c, t]);

  // the view follows the user's own zooming and panning, so clustering follows the zoom
  const frame = useRef(0);
  const onRoam = useCallback(() => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => {
      const geo = (
        chart.current?.getEchartsInstance().getOption() as
          { geo?: Array<{ zoom?: number; center?: [number, number] }> } | undefined
      )?.geo?.[0];
      if (geo?.zoom && geo.center) setView({ zoom: geo.zoom, center: [Number(geo.center[0]), Number(geo.center[1])] });
    });
  }, []);
  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const onClick = useCallback(
    (p: { data?: MarkerDatum | ClusterDatum }) => {
      const d = p.data;
      if (!d || !('kind' in d)) return;
      if (d.kind === 'device') void navigate(detailPath(d.id));
      else setView((v) => ({ zoom: zoomInto(v.zoom), center: [d.value[0], d.value[1]] }));
    },
    [navigate],
  );
  const events = useMemo(() => ({ click: onClick, georoam: onRoam }), [onClick, onRoam]);

  const focusProvince = (name: string) => {
    const centre = map.centres?.get(name);
    if (centre) setView({ zoom: PROVINCE_ZOOM, center: centre });
  };

  const mapHeight = screens.lg ? 'max(440px, calc(100vh - 330px))' : 380;
  const legend = (
    <Flex gap={16} wrap style={{ fontSize: 12 }} data-testid="map-legend">
      {(
        [
          ['online', c.success, t('device.map.legend.online')],
          ['offline', c.offline, t('device.map.legend.offline')],
          ['cluster', c.primary, t('device.map.legend.cluster')],
        ] as const
      ).map(([key, color, text]) => (
        <Flex key={key} align="center" gap={6}>
          <span
            data-legend={key}
            style={{
              width: key === 'cluster' ? 14 : 10,
              height: key === 'cluster' ? 14 : 10,
              borderRadius: '50%',
              background: color,
              display: 'inline-block',
            }}
          />
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {text}
          </Typography.Text>
        </Flex>
      ))}
    </Flex>
  );

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div style={{ flex: '1 1 300px' }}>
            <Flex align="center" gap={12} wrap>
              <Typography.Title level={4} style={{ margin: 0 }}>
                {t('device.map.title')}
              </Typography.Title>
              <LiveIndicator />
            </Flex>
            <Typography.Text type="secondary">{t('device.map.subtitle')}</Typography.Text>
          </div>
          <Flex gap={8} wrap align="center">
            <Segmented<StatusFilter>
              value={status}
              onChange={setStatus}
              options={[
                { value: 'all', label: t('device.list.filter.allStatus') },
                { value: 'online', label: t('device.status.online') },
                { value: 'offline', label: t('device.status.offline') },
              ]}
              data-testid="map-status"
            />
            <TreeSelect
              style={{ width: 180 }}
              value={groupId}
              onChange={(v: number) => setGroupId(v ?? ALL_GROUPS)}
              treeDefaultExpandAll
              popupMatchSelectWidth={false}
              treeData={[
                { value: ALL_GROUPS, title: t('device.map.allGroups'), children: [] },
                { value: UNGROUPED, title: t('device.ungrouped'), children: [] },
                ...groupOptions(groups.data?.tree ?? []),
              ]}
              fieldNames={{ label: 'title', value: 'value', children: 'children' }}
            />
          </Flex>
        </Flex>
        <Row gutter={[16, 16]}>
          <Col xs={24} lg={18}>
            <Flex vertical gap={8}>
              <Flex justify="space-between" align="center" wrap gap={8}>
                {legend}
                <Flex align="center" gap={8}>
                  <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="map-located">
                    {t('device.map.located', { count: devices.length })}
                  </Typography.Text>
                  <Tooltip title={t('device.map.reset')}>
                    <Button
                      size="small"
                      icon={<AimOutlined />}
                      onClick={() => setView(HOME)}
                      aria-label={t('device.map.reset')}
                    />
                  </Tooltip>
                </Flex>
              </Flex>
              <div
                style={{ height: mapHeight, position: 'relative' }}
                data-testid="device-map"
                data-zoom={view.zoom.toFixed(2)}
              >
                {map.ready ? (
                  <Chart chartRef={chart} option={option} onEvents={events} height="100%" lazyUpdate />
                ) : map.failed ? (
                  <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.map.failed')} />
                ) : (
                  <Flex vertical align="center" justify="center" gap={8} style={{ height: '100%' }}>
                    <Skeleton.Node active style={{ width: 200, height: 120 }} />
                    <Typography.Text type="secondary">{t('device.map.loading')}</Typography.Text>
                  </Flex>
                )}
              </div>
            </Flex>
          </Col>
          <Col xs={24} lg={6}>
            <Flex vertical gap={8}>
              <Typography.Text strong>{t('device.map.provinces')}</Typography.Text>
              <List
                size="small"
                loading={data.isPending}
                dataSource={provinces}
                locale={{
                  emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.map.noProvinces')} />,
                }}
                style={{ maxHeight: screens.lg ? 'calc(100vh - 330px)' : undefined, overflow: 'auto' }}
                renderItem={(p) => (
                  <List.Item
                    style={{ cursor: 'pointer', paddingInline: 4 }}
                    onClick={() => focusProvince(p.province)}
                    data-province={p.province}
                  >
                    <Flex vertical style={{ width: '100%' }} gap={2}>
                      <Flex justify="space-between" gap={8}>
                        <Typography.Text>{provinceLabel(p.province, t)}</Typography.Text>
                        <Typography.Text type="secondary" style={{ fontSize: 12 }} data-count={p.total}>
                          {t('device.map.provinceCount', { online: p.online, total: p.total })}
                        </Typography.Text>
                      </Flex>
                      <Progress
                        percent={p.total ? Math.round((p.online / p.total) * 100) : 0}
                        size="small"
                        showInfo={false}
                        strokeColor={c.success}
                        style={{ margin: 0 }}
                      />
                    </Flex>
                  </List.Item>
                )}
              />
            </Flex>
          </Col>
        </Row>
      </Flex>
    </Card>
  );
}
