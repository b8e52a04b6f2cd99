import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import {
  Badge,
  Button,
  Card,
  Col,
  Empty,
  Flex,
  Popconfirm,
  Row,
  Segmented,
  Select,
  Space,
  Table,
  Tabs,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { FenceDeviceRow, FenceEventItem, FenceItem, FenceSide } from '@cpc/contracts/fence';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { GeoMap, fromFenceShape, type MapFence, type MapMarker } from '@/components/geo-map';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { messageApi } from '@/lib/feedback';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission } from '@/lib/session';
import {
  useDeleteFence,
  useFenceDevices,
  useFenceEvents,
  useFences,
  useMapSettings,
  type FenceListParams,
} from '../api/fence';
import { useFenceLive, useLivePositions } from '../components/live';
import { RuleTag, SideTag, ShapeText } from '../components/tags';
import { dwellText, RULE_COLORS, scheduleText, SIDE_COLORS } from '../utils/fence';

/** Devices of the selected fence drawn on the map (its list shows them all). */
const MAP_DEVICES = 500;

/** Fences: all on the map and in a paged list; the selected one's devices inside and outside now, and its events. */
export default function FenceIndex() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const canEdit = usePermission(PERMISSIONS.fenceEdit);
  const [query, setQuery] = useState<FenceListParams>({ pageNo: 1, pageSize: 20 });
  const [search] = useSearchParams();
  // a message's link opens its fence (`?id=`)
  const [selectedId, setSelectedId] = useState<number | null>(() => Number(search.get('id')) || null);
  const [side, setSide] = useState<FenceSide | 'all'>('all');
  const [eventsPage, setEventsPage] = useState(1);
  const [tab, setTab] = useState<'devices' | 'events'>('devices');
  const map = useMapSettings();
  const list = useFences(query);
  const devices = useFenceDevices(selectedId ?? 0, { pageNo: 1, pageSize: MAP_DEVICES });
  const events = useFenceEvents({ fenceId: selectedId ?? undefined, pageNo: eventsPage, pageSize: 10 });
  const remove = useDeleteFence();

  const fences = useMemo(() => list.data?.list ?? [], [list.data]);
  const selected = fences.find((f) => f.id === selectedId) ?? null;

  useFenceLive({
    onFence: (e) => {
      if (!e.event || !e.deviceId) return;
      const fence = fences.find((f) => f.id === e.id);
      const device = devices.data?.list.find((d) => d.deviceId === e.deviceId);
      messageApi().info(
        t(e.event === 'leave' ? 'fence.live.left' : 'fence.live.entered', {
          device: device ? device.name || device.sn : `#${e.deviceId}`,
          fence: fence?.name ?? `#${e.id}`,
        }),
      );
    },
  });
  const shown = useMemo(() => new Set((devices.data?.list ?? []).map((d) => d.deviceId)), [devices.data]);
  const [live, forgetLive] = useLivePositions(shown);

  // the server's rows with what device events said since
  const rows: FenceDeviceRow[] = useMemo(
    () =>
      (devices.data?.list ?? []).map((d) => {
        const l = live[d.deviceId];
        if (!l) return d;
        const at = new Date().toISOString();
        return {
          ...d,
          online: l.online,
          lastPosition:
            l.lat !== null && l.lng !== null ? { lat: l.lat, lng: l.lng, accuracyM: null, at } : d.lastPosition,
        };
      }),
    [devices.data, live],
  );

  const mapFences: MapFence[] = useMemo(
    () =>
      fences.map((f) => ({
        id: f.id,
        shape: fromFenceShape(f.shape),
        color: RULE_COLORS[f.alertOn],
        label: f.name,
        selected: f.id === selectedId,
        dimmed: !f.enabled,
      })),
    [fences, selectedId],
  );
  const markers: MapMarker[] = useMemo(
    () =>
      rows.flatMap((d) =>
        d.lastPosition
          ? [
              {
                id: d.deviceId,
                position: d.lastPosition,
                color: SIDE_COLORS[d.side],
                label: `${d.name || d.sn} · ${t(`fence.side.${d.side}`)}`,
              },
            ]
          : [],
      ),
    [rows, t],
  );

  const select = (id: number | null) => {
    setSelectedId(id);
    setTab('devices');
    setSide('all');
    setEventsPage(1);
    forgetLive();
  };

  const onDelete = async (fence: FenceItem) => {
    await remove.mutateAsync(fence.id);
    if (selectedId === fence.id) select(null);
    messageApi().success(t('fence.list.deleted'));
  };

  const shownRows = side === 'all' ? rows : rows.filter((d) => d.side === side);
  const count = (s: FenceSide) => rows.filter((d) => d.side === s).length;

  return (
    <ListPage
      title={t('fence.list.title')}
      subtitle={t('fence.list.subtitle')}
      action={
        canEdit && (
          <Link to="/fence/fenceSetting">
            <Button type="primary" icon={<PlusOutlined />} data-testid="fence-new">
              {t('fence.list.create')}
            </Button>
          </Link>
        )
      }
      toolbar={
        <Flex gap={8} wrap>
          <SearchAndRefresh
            placeholder={t('fence.list.search')}
            refreshLabel={t('fence.list.refresh')}
            onSearch={(keyword) => setQuery((q) => ({ ...q, pageNo: 1, keyword: keyword || undefined }))}
            refreshing={list.isFetching}
            onRefresh={() => void list.refetch()}
          />
          <Select<'' | 'true' | 'false'>
            style={{ width: 160 }}
            value={query.enabled ?? ''}
            aria-label={t('fence.list.enabled')}
            onChange={(v) => setQuery((q) => ({ ...q, pageNo: 1, enabled: v || undefined }))}
            options={[
              { value: '', label: t('fence.list.allStates') },
              { value: 'true', label: t('fence.list.onlyEnabled') },
              { value: 'false', label: t('fence.list.onlyDisabled') },
            ]}
          />
        </Flex>
      }
    >
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={14}>
          <GeoMap
            tileUrl={map.data?.tileUrl}
            tileCrs={map.data?.tileCrs}
            tileAttribution={map.data?.attribution}
            tileSubdomains={map.data?.subdomains}
            fences={mapFences}
            markers={markers}
            onFenceClick={(id) => select(id)}
            fitKey={`${selectedId ?? 'all'}:${fences.length}:${selectedId ? markers.length : 0}`}
            height="clamp(300px, 55vh, 560px)"
            testId="fence-map"
          />
          <Flex gap={12} wrap style={{ marginTop: 8 }}>
            {(['leave', 'enter', 'both'] as const).map((rule) => (
              <Badge key={rule} color={RULE_COLORS[rule]} text={t(`fence.rule.${rule}`)} />
            ))}
            {(['inside', 'outside', 'unknown'] as const).map((s) => (
              <Badge key={s} color={SIDE_COLORS[s]} text={t(`fence.side.${s}`)} />
            ))}
          </Flex>
        </Col>
        <Col xs={24} xl={10}>
          <Card
            size="small"
            data-testid="fence-panel"
            title={
              selected ? (
                <Space wrap size={4}>
                  <Typography.Text strong>{selected.name}</Typography.Text>
                  <RuleTag rule={selected.alertOn} />
                </Space>
              ) : (
                t('fence.panel.allEvents')
              )
            }
            extra={
              selected && (
                <Button size="small" type="link" onClick={() => select(null)}>
                  {t('fence.panel.showAll')}
                </Button>
              )
            }
          >
            <Tabs
              size="small"
              activeKey={selected ? tab : 'events'}
              onChange={(key) => setTab(key as 'devices' | 'events')}
              items={[
                ...(selected
                  ? [
                      {
                        key: 'devices',
                        label: t('fence.panel.devices'),
                        children: (
                          <Flex vertical gap={8}>
                            <Segmented<FenceSide | 'all'>
                              size="small"
                              value={side}
                              onChange={setSide}
                              options={[
                                { value: 'all', label: `${t('fence.panel.all')} ${rows.length}` },
                                { value: 'inside', label: `${t('fence.side.inside')} ${count('inside')}` },
                                { value: 'outside', label: `${t('fence.side.outside')} ${count('outside')}` },
                                { value: 'unknown', label: `${t('fence.side.unknown')} ${count('unknown')}` },
                              ]}
                            />
                            <Table<FenceDeviceRow>
                              rowKey="deviceId"
                              size="small"
                              data-testid="fence-devices"
                              scroll={{ x: 'max-content' }}
                              loading={devices.isLoading}
                              dataSource={shownRows}
                              pagination={{ pageSize: 8, size: 'small', hideOnSinglePage: true }}
                              locale={{ emptyText: t('fence.panel.noDevices') }}
                              columns={[
                                {
                                  key: 'device',
                                  title: t('fence.panel.device'),
                                  render: (_, d) => (
                                    <Link to={`/device/detail?id=${d.deviceId}`}>
                                      <Badge status={d.online ? 'success' : 'default'} /> {d.name || d.sn}
                                    </Link>
                                  ),
                                },
                                {
                                  key: 'side',
                                  title: t('fence.panel.side'),
                                  render: (_, d) => (
                                    <Space size={4} wrap>
                                      <SideTag side={d.side} />
                                      {d.pending && (
                                        <Tooltip title={formatDateTime(d.pending.since)}>
                                          <Tag color="gold">
                                            {t('fence.panel.pending', { side: t(`fence.side.${d.pending.side}`) })}
                                          </Tag>
                                        </Tooltip>
                                      )}
                                    </Space>
                                  ),
                                },
                                {
                                  key: 'since',
                                  title: t('fence.panel.since'),
                                  render: (_, d) => (d.since ? formatDateTime(d.since) : '-'),
                                },
                              ]}
                            />
                          </Flex>
                        ),
                      },
                    ]
                  : []),
                {
                  key: 'events',
                  label: t('fence.panel.events'),
                  children: (
                    <Table<FenceEventItem>
                      rowKey="id"
                      size="small"
                      data-testid="fence-events"
                      scroll={{ x: 'max-content' }}
                      loading={events.isLoading}
                      dataSource={events.data?.list ?? []}
                      locale={{ emptyText: t('fence.panel.noEvents') }}
                      pagination={{
                        current: eventsPage,
                        pageSize: 10,
                        size: 'small',
                        total: events.data?.total ?? 0,
                        hideOnSinglePage: true,
                        onChange: setEventsPage,
                      }}
                      columns={[
                        { key: 'at', title: t('fence.events.at'), render: (_, e) => formatDateTime(e.at) },
                        {
                          key: 'kind',
                          title: t('fence.events.kind'),
                          render: (_, e) => (
                            <Tag color={e.kind === 'leave' ? 'volcano' : 'green'}>{t(`fence.events.${e.kind}`)}</Tag>
                          ),
                        },
                        {
                          key: 'device',
                          title: t('fence.panel.device'),
                          render: (_, e) => (
                            <Link to={`/device/detail?id=${e.deviceId}`}>{e.deviceName || e.deviceSn}</Link>
                          ),
                        },
                        ...(selected
                          ? []
                          : [
                              {
                                key: 'fence',
                                title: t('fence.events.fence'),
                                render: (_: unknown, e: FenceEventItem) => (
                                  <Typography.Link onClick={() => select(e.fenceId)}>{e.fenceName}</Typography.Link>
                                ),
                              },
                            ]),
                        {
                          key: 'position',
                          title: t('fence.events.position'),
                          render: (_, e) => (
                            <Typography.Text type="secondary" style={{ fontVariantNumeric: 'tabular-nums' }}>
                              {e.lat.toFixed(5)}, {e.lng.toFixed(5)}
                            </Typography.Text>
                          ),
                        },
                      ]}
                    />
                  ),
                },
              ]}
            />
          </Card>
        </Col>
      </Row>
      <Table<FenceItem>
        rowKey="id"
        size="middle"
        data-testid="fence-table"
        scroll={{ x: 'max-content' }}
        loading={list.isLoading}
        dataSource={fences}
        locale={{
          emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('fence.list.empty')} />,
        }}
        rowClassName={(f) => (f.id === selectedId ? 'ant-table-row-selected' : '')}
        onRow={(f) => ({ onClick: () => select(f.id), style: { cursor: 'pointer' } })}
        pagination={{
          current: query.pageNo,
          pageSize: query.pageSize,
          total: list.data?.total ?? 0,
          showSizeChanger: true,
          onChange: (pageNo, pageSize) => setQuery((q) => ({ ...q, pageNo, pageSize })),
        }}
        columns={[
          {
            key: 'name',
            title: t('fence.list.name'),
            render: (_, f) => <Typography.Text strong>{f.name}</Typography.Text>,
          },
          { key: 'shape', title: t('fence.list.shape'), render: (_, f) => <ShapeText shape={f.shape} /> },
          { key: 'rule', title: t('fence.list.rule'), render: (_, f) => <RuleTag rule={f.alertOn} /> },
          { key: 'dwell', title: t('fence.list.dwell'), render: (_, f) => dwellText(f.dwellS, t) },
          { key: 'schedule', title: t('fence.list.schedule'), render: (_, f) => scheduleText(f.schedule, t) },
          {
            key: 'devices',
            title: t('fence.list.devices'),
            render: (_, f) => (
              <Space size={4} data-testid={`fence-counts-${f.id}`}>
                <Tooltip title={t('fence.side.inside')}>
                  <Typography.Text type="success">{f.counts.inside}</Typography.Text>
                </Tooltip>
                /
                <Tooltip title={t('fence.side.outside')}>
                  <Typography.Text type="danger">{f.counts.outside}</Typography.Text>
                </Tooltip>
                /<span>{f.counts.devices}</span>
              </Space>
            ),
          },
          {
            key: 'enabled',
            title: t('fence.list.enabled'),
            render: (_, f) =>
              !f.enabled ? (
                <Tag>{t('fence.list.disabled')}</Tag>
              ) : f.activeNow ? (
                <Tag color="green">{t('fence.list.active')}</Tag>
              ) : (
                <Tag color="blue">{t('fence.list.outsideSchedule')}</Tag>
              ),
          },
          ...(canEdit
            ? [
                {
                  key: 'op',
                  title: t('fence.list.actions'),
                  render: (_: unknown, f: FenceItem) => (
                    <Space size={0} onClick={(e) => e.stopPropagation()}>
                      <Button
                        type="link"
                        icon={<EditOutlined />}
                        onClick={() => void navigate(`/fence/fenceSetting?id=${f.id}`)}
                      >
                        {t('fence.list.edit')}
                      </Button>
                      <Popconfirm
                        title={t('fence.list.deleteConfirm', { name: f.name })}
                        okButtonProps={{ danger: true }}
                        onConfirm={() => onDelete(f)}
                      >
                        <Button type="link" danger icon={<DeleteOutlined />}>
                          {t('fence.list.delete')}
                        </Button>
                      </Popconfirm>
                    </Space>
                  ),
                },
              ]
            : []),
        ]}
      />
    </ListPage>
  );
}
