import {
  ApartmentOutlined,
  ClearOutlined,
  DeleteOutlined,
  DragOutlined,
  OrderedListOutlined,
  PlusOutlined,
  PoweroffOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Drawer,
  Empty,
  Flex,
  Grid,
  Input,
  Row,
  Select,
  Space,
  Tooltip,
  Typography,
} from 'antd';
import type { QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { DEVICE_STATUSES, PAPER_STATES } from '@cpc/contracts/device-constants';
import type { DeviceListItem, DeviceStatus, DeviceUnbindResult } from '@cpc/contracts/device';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { useTableHeight } from '@/lib/format/table-height';
import { usePermission } from '@/lib/session';
import { deviceListQueryOptions, useDevices, useModelOptions, useUnbindDevice } from '../api/devices';
import { groupTreeQueryOptions } from '../api/groups';
import { BatchListDrawer } from '../components/batch-list-drawer';
import { BindModal } from '../components/bind-modal';
import { ColumnChooser } from '../components/column-chooser';
import { DeviceTable, type DeviceAction } from '../components/device-table';
import { EditModal } from '../components/edit-modal';
import { DepartmentTreeSelect } from '@/components/department-tree-select';
import { GroupTreePanel } from '../components/group-tree-panel';
import { LiveIndicator } from '../components/live-indicator';
import { MoveModal } from '../components/move-modal';
import { useShowNewBindKeys } from '../components/new-bind-keys';
import { useDeviceColumns } from '../hooks/use-device-columns';
import { useDeviceCommand } from '../hooks/use-device-command';
import { useLiveDevices } from '../hooks/use-live-devices';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { deviceLabel } from '../utils/command-confirm';
import {
  KEYWORD_MAX,
  activeFilterCount,
  changeFilters,
  filtersFromSearch,
  filtersToSearch,
  listQueryOf,
  type DeviceFilters,
} from '../utils/list-query';

// the title and the filter bar take one row more than SPEC §9's base
const EXTRA_ROWS = 1;
const MIN_TABLE_HEIGHT = 260;

/**
 * The calls the page's first render makes for its rows and groups, started by the console as soon as the
 * navigation here is decided (app/route-components.ts `prefetchPageData`), while the signed-in area is drawn.
 */
export function prefetch(client: QueryClient, search: URLSearchParams): void {
  void client.prefetchQuery(deviceListQueryOptions(listQueryOf(filtersFromSearch(search))));
  void client.prefetchQuery(groupTreeQueryOptions());
}

/**
 * My devices (DESIGN §4): the fleet with its groups beside it, filters kept in the query string, live rows,
 * binding and, on one or many devices, reboot, shutdown, move and unbind.
 */
export default function DeviceListPage() {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const screens = Grid.useBreakpoint();
  const wide = !!screens.lg;
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const setFilters = (f: DeviceFilters) => setSearch(filtersToSearch(f), { replace: true });
  const [keyword, setKeyword] = useState(filters.keyword ?? '');
  const [selected, setSelected] = useState<Map<number, DeviceListItem>>(new Map());
  const [binding, setBinding] = useState(false);
  const [editing, setEditing] = useState<DeviceListItem | null>(null);
  const [moving, setMoving] = useState<{ ids: number[]; groupId: number | null } | null>(null);
  const [groupsOpen, setGroupsOpen] = useState(false);
  const [batchesOpen, setBatchesOpen] = useState(false);
  const now = useNow(RELATIVE_TIME_INTERVAL);
  const scrollY = useTableHeight(EXTRA_ROWS, MIN_TABLE_HEIGHT);
  const columns = useDeviceColumns();

  const allowed = {
    bind: usePermission(PERMISSIONS.deviceBind),
    edit: usePermission(PERMISSIONS.deviceEdit),
    group: usePermission(PERMISSIONS.deviceGroup),
    reboot: usePermission(PERMISSIONS.deviceReboot),
    shutdown: usePermission(PERMISSIONS.deviceShutdown),
    tasks: usePermission(PERMISSIONS.deviceTask),
  };
  // `?bind=1` (the home page's "bind a device") opens the bind dialog once, then leaves the address
  const bindAsked = search.get('bind') === '1';
  useEffect(() => {
    if (!bindAsked) return;
    if (allowed.bind) setBinding(true);
    const next = new URLSearchParams(search);
    next.delete('bind');
    setSearch(next, { replace: true });
  }, [bindAsked, allowed.bind, search, setSearch]);

  useLiveDevices();
  const list = useDevices(listQueryOf(filters));
  const models = useModelOptions();
  const unbind = useUnbindDevice();
  const command = useDeviceCommand();
  const showNewBindKeys = useShowNewBindKeys();

  // a keyword typed in the address bar, or cleared by "clear filters", shows in the box
  useEffect(() => setKeyword(filters.keyword ?? ''), [filters.keyword]);
  // a selection belongs to the rows on screen: another page or filter starts a new one
  const listKey = search.toString();
  useEffect(() => setSelected(new Map()), [listKey]);

  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;
  const emptyPage = !!list.data && data.length === 0 && total > 0 && filters.pageNo > 1 && !list.isPlaceholderData;
  // the last row of a page was unbound: step back instead of showing an empty page
  useEffect(() => {
    if (emptyPage) setFilters({ ...filters, pageNo: Math.max(1, Math.ceil(total / filters.pageSize)) });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when the page empties, not on every filter change
  }, [emptyPage, total]);

  const targets = [...selected.values()];
  const clearSelection = () => setSelected(new Map());

  const confirmUnbind = (devices: DeviceListItem[]) => {
    const one = devices.length === 1;
    modal.confirm({
      title: one
        ? t('device.unbind.title', { name: deviceLabel(devices[0]) })
        : t('device.unbind.titleMany', { count: devices.length }),
      content: t('device.unbind.content'),
      okText: t('device.unbind.ok'),
      cancelText: t('device.unbind.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        let failed = 0;
        const keys: DeviceUnbindResult[] = [];
        // one call per device: a refusal of one does not stop the others
        for (const d of devices) {
          await unbind.mutateAsync(d.id).then(
            (r) => keys.push(r),
            () => failed++,
          );
        }
        const done = devices.length - failed;
        if (failed) message.warning(t('device.unbind.partial', { done, failed }));
        else message.success(one ? t('device.unbind.done') : t('device.unbind.doneMany', { count: done }));
        clearSelection();
        // each device's new key, shown this once, for its next owner
        showNewBindKeys(keys);
      },
    });
  };

  const onAction = (action: DeviceAction, d: DeviceListItem) => {
    if (action === 'reboot' || action === 'shutdown') command.confirm(action, [d]);
    else if (action === 'edit') setEditing(d);
    else if (action === 'move') setMoving({ ids: [d.id], groupId: d.groupId });
    else confirmUnbind([d]);
  };

  const filtered = activeFilterCount(filters) > 0 || filters.groupId !== undefined;
  const empty = (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={filtered ? t('device.list.emptyFiltered') : t('device.list.empty')}
    >
      {filtered ? (
        <Button onClick={() => setFilters({ pageNo: 1, pageSize: filters.pageSize })}>
          {t('device.list.filter.clear')}
        </Button>
      ) : (
        allowed.bind && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setBinding(true)}>
            {t('device.list.bind')}
          </Button>
        )
      )}
    </Empty>
  );

  const groupPanel = (
    <GroupTreePanel
      selected={filters.groupId}
      canManage={allowed.group}
      onSelect={(groupId) => {
        setFilters(changeFilters(filters, { groupId }));
        setGroupsOpen(false);
      }}
    />
  );

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div style={{ flex: '1 1 300px' }}>
            <Flex align="center" gap={12} wrap>
              <Typography.Title level={4} style={{ margin: 0 }}>
                {t('device.list.title')}
              </Typography.Title>
              <LiveIndicator />
            </Flex>
            <Typography.Text type="secondary">{t('device.list.subtitle')}</Typography.Text>
          </div>
          <Space wrap>
            {allowed.tasks && (
              <Button icon={<OrderedListOutlined />} onClick={() => setBatchesOpen(true)} data-testid="open-batches">
                {t('device.batches.button')}
              </Button>
            )}
            {allowed.bind && (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => setBinding(true)}>
                {t('device.list.bind')}
              </Button>
            )}
          </Space>
        </Flex>
        <Row gutter={[16, 16]} wrap={false}>
          {wide && (
            <Col flex="240px" style={{ minWidth: 0 }}>
              {groupPanel}
            </Col>
          )}
          <Col flex="auto" style={{ minWidth: 0 }}>
            <Flex vertical gap={12}>
              <Flex gap={8} wrap align="center">
                {!wide && (
                  <Button icon={<ApartmentOutlined />} onClick={() => setGroupsOpen(true)}>
                    {t('device.list.filter.groups')}
                  </Button>
                )}
                <Select<DeviceStatus | 'all'>
                  aria-label={t('device.list.filter.status')}
                  style={{ width: 120 }}
                  value={filters.status ?? 'all'}
                  onChange={(v) => setFilters(changeFilters(filters, { status: v === 'all' ? undefined : v }))}
                  options={[
                    { value: 'all', label: t('device.list.filter.allStatus') },
                    ...DEVICE_STATUSES.map((s) => ({ value: s, label: t(`device.status.${s}`) })),
                  ]}
                  data-testid="filter-status"
                />
                <Select
                  allowClear
                  style={{ width: 170 }}
                  placeholder={t('device.list.filter.model')}
                  value={filters.modelId}
                  loading={models.isPending}
                  onChange={(v?: number) => setFilters(changeFilters(filters, { modelId: v }))}
                  options={(models.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
                  popupMatchSelectWidth={false}
                />
                <DepartmentTreeSelect
                  style={{ width: 170 }}
                  placeholder={t('device.list.filter.department')}
                  aria-label={t('device.list.filter.department')}
                  value={filters.departmentId ?? null}
                  onChange={(v) => setFilters(changeFilters(filters, { departmentId: v ?? undefined }))}
                />
                <Select
                  allowClear
                  style={{ width: 150 }}
                  placeholder={t('device.list.filter.paper')}
                  value={filters.paper}
                  onChange={(v) => setFilters(changeFilters(filters, { paper: v }))}
                  options={PAPER_STATES.map((p) => ({ value: p, label: t(`device.paper.${p}`) }))}
                />
                <Input.Search
                  allowClear
                  style={{ flex: '1 1 200px', maxWidth: 320 }}
                  maxLength={KEYWORD_MAX}
                  value={keyword}
                  placeholder={t('device.list.filter.keyword')}
                  onChange={(e) => setKeyword(e.target.value)}
                  onSearch={(v) => setFilters(changeFilters(filters, { keyword: v.trim() || undefined }))}
                  data-testid="filter-keyword"
                />
                {activeFilterCount(filters) > 0 && (
                  <Button
                    icon={<ClearOutlined />}
                    onClick={() => setFilters({ pageNo: 1, pageSize: filters.pageSize, groupId: filters.groupId })}
                  >
                    {t('device.list.filter.clear')}
                  </Button>
                )}
                <Tooltip title={t('device.list.refresh')}>
                  <Button
                    icon={<ReloadOutlined />}
                    aria-label={t('device.list.refresh')}
                    loading={list.isFetching && !list.isPending}
                    onClick={() => void list.refetch()}
                  />
                </Tooltip>
                <ColumnChooser
                  visible={columns.visible}
                  customised={columns.customised}
                  onToggle={columns.toggle}
                  onReset={columns.reset}
                />
              </Flex>
              {targets.length > 0 && (
                <Alert
                  type="info"
                  data-testid="selection-bar"
                  title={
                    <Flex justify="space-between" align="center" gap={8} wrap>
                      <Typography.Text>
                        {t('device.list.selection.selected', { count: targets.length })}
                      </Typography.Text>
                      <Space size={4} wrap>
                        {allowed.reboot && (
                          <Button
                            size="small"
                            icon={<ReloadOutlined />}
                            onClick={() => command.confirm('reboot', targets, clearSelection)}
                          >
                            {t('device.list.action.reboot')}
                          </Button>
                        )}
                        {allowed.shutdown && (
                          <Button
                            size="small"
                            danger
                            icon={<PoweroffOutlined />}
                            onClick={() => command.confirm('shutdown', targets, clearSelection)}
                          >
                            {t('device.list.action.shutdown')}
                          </Button>
                        )}
                        {allowed.edit && (
                          <Button
                            size="small"
                            icon={<DragOutlined />}
                            onClick={() => setMoving({ ids: targets.map((d) => d.id), groupId: null })}
                          >
                            {t('device.list.action.move')}
                          </Button>
                        )}
                        {allowed.bind && (
                          <Button size="small" danger icon={<DeleteOutlined />} onClick={() => confirmUnbind(targets)}>
                            {t('device.list.action.unbind')}
                          </Button>
                        )}
                        <Button size="small" type="link" onClick={clearSelection}>
                          {t('device.list.selection.clear')}
                        </Button>
                      </Space>
                    </Flex>
                  }
                />
              )}
              <DeviceTable
                data={data}
                total={total}
                pageNo={filters.pageNo}
                pageSize={filters.pageSize}
                // a background refresh keeps the rows readable; a new page or filter shows the spinner
                loading={list.isPending || list.isPlaceholderData}
                sort={filters.sort}
                order={filters.order}
                now={now}
                scrollY={data.length ? scrollY : undefined}
                selected={[...selected.keys()]}
                visible={columns.visible}
                allowed={{
                  reboot: allowed.reboot,
                  shutdown: allowed.shutdown,
                  edit: allowed.edit,
                  unbind: allowed.bind,
                }}
                empty={empty}
                onSelect={(_ids, rows) => setSelected(new Map(rows.map((r) => [r.id, r])))}
                onPageChange={(pageNo, pageSize) =>
                  setFilters({ ...filters, pageNo: pageSize === filters.pageSize ? pageNo : 1, pageSize })
                }
                onSortChange={(sort, order) => setFilters({ ...filters, sort, order, pageNo: 1 })}
                onAction={onAction}
              />
            </Flex>
          </Col>
        </Row>
      </Flex>
      {!wide && (
        <Drawer
          open={groupsOpen}
          onClose={() => setGroupsOpen(false)}
          placement="left"
          size={300}
          title={t('device.groups.title')}
        >
          {groupPanel}
        </Drawer>
      )}
      <BindModal
        open={binding}
        defaultGroupId={filters.groupId}
        onClose={() => setBinding(false)}
        onBound={() => setBinding(false)}
      />
      <EditModal device={editing} onClose={() => setEditing(null)} />
      <MoveModal
        ids={moving?.ids ?? null}
        currentGroupId={moving?.groupId}
        onClose={() => setMoving(null)}
        onMoved={clearSelection}
      />
      <BatchListDrawer
        open={batchesOpen}
        onClose={() => setBatchesOpen(false)}
        onOpenBatch={(b) => {
          setBatchesOpen(false);
          command.openRun({ type: b.type, batchId: b.id, deviceIds: [] });
        }}
      />
      {command.drawer}
    </Card>
  );
}
