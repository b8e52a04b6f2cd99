import { useQueryClient } from '@tanstack/react-query';
import { Card, Col, Empty, Flex, Row, Table, Tag, Typography } from 'antd';
import { useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { DeviceFenceItem, FenceAlertOn, FenceSide } from '@cpc/contracts/fence';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { GeoMap, fromFenceShape, type MapFence, type MapMarker } from '@/components/geo-map';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { deviceFencesKey, deviceTrackKey, useDeviceFences, useDeviceTrack, useFenceMapSettings } from '../api/fences';

const RULE_COLORS: Record<FenceAlertOn, string> = { leave: '#fa541c', enter: '#1677ff', both: '#722ed1' };
const RULE_KEYS: Record<FenceAlertOn, string> = {
  leave: 'device.fences.ruleLeave',
  enter: 'device.fences.ruleEnter',
  both: 'device.fences.ruleBoth',
};
const SIDE_TAGS: Record<FenceSide, [string, string]> = {
  inside: ['success', 'device.fences.inside'],
  outside: ['error', 'device.fences.outside'],
  unknown: ['default', 'device.fences.unknown'],
};
/** A track is read again at most this often while the device reports positions. */
const TRACK_REFRESH_MS = 15_000;

/** The device's fences with its side in each, and a map of its last 24 hours of positions (issue 16). */
export function DeviceFencesCard({ deviceId }: { deviceId: number }) {
  const { t } = useTranslation();
  const allowed = usePermission(PERMISSIONS.fenceView);
  const client = useQueryClient();
  const fences = useDeviceFences(deviceId, allowed);
  const track = useDeviceTrack(deviceId, allowed);
  const map = useFenceMapSettings(allowed);
  const lastTrackRead = useRef(0);
  useLiveEvents({
    fence: (e) => {
      if (!e.deviceId || e.deviceId === deviceId)
        void client.invalidateQueries({ queryKey: deviceFencesKey(deviceId) });
    },
    device: (e) => {
      if (e.id !== deviceId || Date.now() - lastTrackRead.current < TRACK_REFRESH_MS) return;
      lastTrackRead.current = Date.now();
      void client.invalidateQueries({ queryKey: deviceTrackKey(deviceId) });
    },
  });

  const list = useMemo(() => fences.data?.list ?? [], [fences.data]);
  const mapFences: MapFence[] = useMemo(
    () =>
      list.map((f) => ({
        id: f.fenceId,
        shape: fromFenceShape(f.shape),
        color: RULE_COLORS[f.alertOn],
        label: f.name,
        dimmed: !f.enabled || !f.activeNow,
      })),
    [list],
  );
  const points = useMemo(() => {
    const positions = track.data?.positions ?? [];
    const last = track.data?.last;
    const all = positions.map((p) => ({ lat: p.lat, lng: p.lng }));
    if (last && (!positions.length || positions[positions.length - 1].at !== last.at))
      all.push({ lat: last.lat, lng: last.lng });
    return all;
  }, [track.data]);
  const lastPoint = points[points.length - 1];
  const markers: MapMarker[] = useMemo(
    () =>
      lastPoint
        ? [
            {
              id: deviceId,
              position: lastPoint,
              color: '#1677ff',
              size: 18,
              label: formatDateTime(track.data?.last?.at ?? ''),
            },
          ]
        : [],
    [lastPoint, deviceId, track.data],
  );

  if (!allowed) return null;
  return (
    <Card variant="borderless" title={t('device.fences.title')} data-testid="device-fences">
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={10}>
          <Table<DeviceFenceItem>
            rowKey="fenceId"
            size="small"
            scroll={{ x: 'max-content' }}
            loading={fences.isLoading}
            dataSource={list}
            pagination={{ pageSize: 8, hideOnSinglePage: true, size: 'small' }}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.fences.none')} /> }}
            columns={[
              {
                key: 'name',
                title: t('device.fences.fence'),
                render: (_, f) => (
                  <Flex vertical gap={2}>
                    <Typography.Text strong>{f.name}</Typography.Text>
                    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                      <span style={{ color: RULE_COLORS[f.alertOn] }}>●</span> {t(RULE_KEYS[f.alertOn])}
                    </Typography.Text>
                  </Flex>
                ),
              },
              {
                key: 'side',
                title: t('device.fences.side'),
                render: (_, f) => (
                  <Flex gap={4} wrap>
                    <Tag color={SIDE_TAGS[f.side][0]}>{t(SIDE_TAGS[f.side][1])}</Tag>
                    {!f.enabled ? (
                      <Tag>{t('device.fences.disabled')}</Tag>
                    ) : (
                      !f.activeNow && <Tag color="blue">{t('device.fences.inactive')}</Tag>
                    )}
                  </Flex>
                ),
              },
              {
                key: 'since',
                title: t('device.fences.since'),
                render: (_, f) => (f.since ? formatDateTime(f.since) : '-'),
              },
            ]}
          />
        </Col>
        <Col xs={24} xl={14}>
          <Flex vertical gap={8}>
            <Typography.Text strong>{t('device.fences.trackTitle')}</Typography.Text>
            <GeoMap
              tileUrl={map.data?.tileUrl}
              tileCrs={map.data?.tileCrs}
              tileAttribution={map.data?.attribution}
              tileSubdomains={map.data?.subdomains}
              fences={mapFences}
              track={points}
              markers={markers}
              fitKey={`${deviceId}:${points.length > 0}:${list.length}`}
              height={320}
              testId="device-track-map"
            />
            <Typography.Text type="secondary">
              {points.length
                ? t('device.fences.trackPoints', {
                    n: points.length,
                    at: formatDateTime(track.data?.last?.at ?? ''),
                  })
                : t('device.fences.noTrack')}
            </Typography.Text>
            {list.length > 0 && (
              <Link to="/fence/index" style={{ alignSelf: 'flex-start' }}>
                {t('device.fences.openFences')}
              </Link>
            )}
          </Flex>
        </Col>
      </Row>
    </Card>
  );
}
