import { BorderOutlined, ClearOutlined, RadiusSettingOutlined } from '@ant-design/icons';
import {
  Alert,
  Button,
  Card,
  Checkbox,
  Col,
  Flex,
  Form,
  Input,
  InputNumber,
  Radio,
  Result,
  Row,
  Select,
  Skeleton,
  Space,
  Switch,
  TimePicker,
  TreeSelect,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import {
  FENCE_ALERT_ON,
  FENCE_DWELL_DEFAULT_S,
  FENCE_DWELL_MAX_S,
  FENCE_MAX_VERTICES,
  FENCE_NAME_MAX,
  FENCE_RADIUS_MAX_M,
  FENCE_RADIUS_MIN_M,
  type FenceAlertOn,
  type FenceDetail,
} from '@cpc/contracts/fence';
import type { GroupNode, MapDevice } from '@cpc/contracts/device';
import {
  GeoMap,
  fromFenceShape,
  shapeComplete,
  toFenceShape,
  type GeoMapHandle,
  type GeoShape,
  type MapMarker,
} from '@/components/geo-map';
import { messageApi } from '@/lib/feedback';
import { RequestError } from '@/lib/request';
import { sayServerMessage, serverFieldErrors } from '@/lib/server-messages';
import { useDebounced } from '@/lib/use-debounced';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreateFence, useFence, useMapSettings, useUpdateFence } from '../api/fence';
import { useDeviceOptions, useDevicePositions, useGroupOptions } from '../api/targets';
import { useLivePositions } from '../components/live';
import {
  DEFAULT_SCHEDULE_VALUES,
  formFieldOf,
  RULE_COLORS,
  scheduleOf,
  scheduleValues,
  WEEKDAYS,
  type ScheduleValues,
} from '../utils/fence';

interface Values extends ScheduleValues {
  name: string;
  shape: GeoShape | null;
  alertOn: FenceAlertOn;
  dwellS: number;
  enabled: boolean;
  deviceIds: number[];
  groupIds: number[];
}

interface TreeOption {
  value: number;
  title: string;
  children: TreeOption[];
}
const toTree = (nodes: GroupNode[]): TreeOption[] =>
  nodes.map((n) => ({ value: n.id, title: n.name, children: toTree(n.children) }));

/** The map with the drawing buttons: the form's `shape` field. */
function ShapeField({
  value,
  onChange,
  markers,
  fitKey,
  limits,
}: {
  value?: GeoShape | null;
  onChange?: (shape: GeoShape | null) => void;
  markers: MapMarker[];
  fitKey: string;
  limits: { radiusMinM: number; radiusMaxM: number };
}) {
  const { t } = useTranslation();
  const map = useMapSettings();
  const ref = useRef<GeoMapHandle>(null);
  return (
    <Flex vertical gap={8}>
      <Flex gap={8} wrap align="center">
        <Button
          icon={<RadiusSettingOutlined />}
          data-testid="draw-circle"
          onClick={() => ref.current?.startDraw('circle')}
        >
          {t('fence.editor.drawCircle')}
        </Button>
        <Button icon={<BorderOutlined />} data-testid="draw-polygon" onClick={() => ref.current?.startDraw('polygon')}>
          {t('fence.editor.drawPolygon')}
        </Button>
        <Button icon={<ClearOutlined />} disabled={!value} onClick={() => ref.current?.clear()}>
          {t('fence.editor.clear')}
        </Button>
        {value?.kind === 'circle' && (
          <Space size={4}>
            <Typography.Text>{t('fence.editor.radius')}</Typography.Text>
            <InputNumber<number>
              aria-label={t('fence.editor.radius')}
              data-testid="circle-radius"
              min={limits.radiusMinM}
              max={limits.radiusMaxM}
              value={Math.round(value.radiusM)}
              onChange={(r) => r && onChange?.({ ...value, radiusM: r })}
              suffix="m"
              style={{ width: 130 }}
            />
          </Space>
        )}
        {value?.kind === 'polygon' && (
          <Typography.Text type="secondary">{t('fence.shape.polygonOf', { n: value.points.length })}</Typography.Text>
        )}
      </Flex>
      <GeoMap
        ref={ref}
        tileUrl={map.data?.tileUrl}
        tileCrs={map.data?.tileCrs}
        tileAttribution={map.data?.attribution}
        tileSubdomains={map.data?.subdomains}
        editShape={value ?? null}
        onShapeChange={(s) => onChange?.(s)}
        markers={markers}
        fitKey={fitKey}
        height="clamp(320px, 60vh, 620px)"
        testId="fence-editor-map"
      />
      <Typography.Text type="secondary">{t('fence.editor.hint')}</Typography.Text>
    </Flex>
  );
}

/** The fence editor: `?id=` edits a fence, without it a new one is drawn. */
export default function FenceSetting() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const id = Number(search.get('id')) || 0;
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const existing = useFence(id);
  const settings = useMapSettings();
  const create = useCreateFence();
  const update = useUpdateFence();
  const [keyword, setKeyword] = useState('');
  const deviceOptions = useDeviceOptions(useDebounced(keyword, 300));
  const groups = useGroupOptions();
  const positions = useDevicePositions();
  const [labels, setLabels] = useState<Record<number, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const loadedFor = useRef<number | null>(null);
  const limits = settings.data?.limits ?? {
    maxVertices: FENCE_MAX_VERTICES,
    radiusMinM: FENCE_RADIUS_MIN_M,
    radiusMaxM: FENCE_RADIUS_MAX_M,
    dwellMaxS: FENCE_DWELL_MAX_S,
    maxFences: 0,
  };

  const scheduleKind = Form.useWatch('scheduleKind', form);
  const alertOn = Form.useWatch('alertOn', form) ?? 'leave';
  const deviceIds = Form.useWatch('deviceIds', form);
  const shape = Form.useWatch('shape', form);

  // an existing fence fills the form once
  useEffect(() => {
    const fence: FenceDetail | undefined = existing.data;
    if (!fence || loadedFor.current === fence.id) return;
    loadedFor.current = fence.id;
    setLabels(Object.fromEntries(fence.devices.map((d) => [d.id, d.name || d.sn])));
    form.setFieldsValue({
      name: fence.name,
      shape: fromFenceShape(fence.shape),
      alertOn: fence.alertOn,
      dwellS: fence.dwellS,
      enabled: fence.enabled,
      deviceIds: fence.deviceIds,
      groupIds: fence.groupIds,
      ...scheduleValues(fence.schedule),
    });
  }, [existing.data, form]);

  useEffect(() => {
    const rows = deviceOptions.data?.list;
    if (rows?.length)
      setLabels((prev) => ({ ...prev, ...Object.fromEntries(rows.map((d) => [d.id, d.name || d.sn])) }));
  }, [deviceOptions.data]);

  const picked = useMemo(() => new Set(deviceIds ?? []), [deviceIds]);
  // where the chosen devices reported themselves since the positions were read
  const [reported] = useLivePositions(picked);
  const markers: MapMarker[] = useMemo(() => {
    const read = new Map((positions.data?.list ?? []).map((d: MapDevice) => [d.id, d]));
    return [...picked].flatMap((id) => {
      const d = read.get(id);
      const live = reported[id];
      const online = live ? live.online : d?.status === 'online';
      const at =
        live && live.lat !== null && live.lng !== null
          ? { lat: live.lat, lng: live.lng }
          : d && { lat: d.lat, lng: d.lng };
      if (!at) return [];
      return [
        {
          id,
          position: { lat: at.lat, lng: at.lng },
          color: online ? '#52c41a' : '#8c8c8c',
          label: d ? d.name || d.sn : (labels[id] ?? String(id)),
        },
      ];
    });
  }, [positions.data, picked, reported, labels]);

  const options = useMemo(() => {
    const fromSearch = (deviceOptions.data?.list ?? []).map((d) => ({
      value: d.id,
      label: d.name ? `${d.name} (${d.sn})` : d.sn,
    }));
    const known = new Set(fromSearch.map((o) => o.value));
    const chosen = [...picked].filter((v) => !known.has(v)).map((v) => ({ value: v, label: labels[v] ?? `#${v}` }));
    return [...chosen, ...fromSearch];
  }, [deviceOptions.data, picked, labels]);

  const save = async (values: Values) => {
    setFormError(null);
    if (!shapeComplete(values.shape)) return;
    const body = {
      name: values.name,
      shape: toFenceShape(values.shape),
      schedule: scheduleOf(values),
      alertOn: values.alertOn,
      dwellS: values.dwellS,
      enabled: values.enabled,
      deviceIds: values.deviceIds ?? [],
      groupIds: values.groupIds ?? [],
    };
    try {
      if (id) await update.mutateAsync({ id, version: existing.data?.version, ...body });
      else await create.mutateAsync(body);
      messageApi().success(t(id ? 'fence.editor.saved' : 'fence.editor.created'));
      void navigate('/fence/index');
    } catch (err) {
      const fields = serverFieldErrors(err)
        .map((f) => ({ name: formFieldOf(f.field), errors: [sayServerMessage(f, t)] }))
        .filter((f): f is { name: keyof Values; errors: string[] } => f.name !== null);
      if (fields.length) form.setFields(fields);
      else setFormError(err instanceof RequestError ? err.message : t('fence.editor.failed'));
    }
  };

  if (id && existing.isError) {
    return (
      <Result
        status="404"
        title={t('fence.editor.notFound')}
        extra={<Button onClick={() => void navigate('/fence/index')}>{t('fence.editor.back')}</Button>}
      />
    );
  }
  if (id && existing.isLoading) return <Skeleton active />;

  return (
    <Card
      variant="borderless"
      title={
        <Typography.Title level={4} style={{ margin: 0 }}>
          {id ? t('fence.editor.editTitle') : t('fence.editor.createTitle')}
        </Typography.Title>
      }
    >
      <Form<Values>
        form={form}
        layout="vertical"
        data-testid="fence-form"
        initialValues={{
          name: '',
          shape: null,
          alertOn: 'leave',
          dwellS: FENCE_DWELL_DEFAULT_S,
          enabled: true,
          deviceIds: [],
          groupIds: [],
          ...DEFAULT_SCHEDULE_VALUES,
        }}
        onFinish={(v) => void save(v)}
      >
        <Row gutter={[24, 8]}>
          <Col xs={24} xl={15}>
            <Form.Item
              name="shape"
              label={t('fence.editor.shape')}
              rules={[
                {
                  validator: (_, value: GeoShape | null) => {
                    if (!shapeComplete(value)) return Promise.reject(new Error(t('fence.editor.shapeRequired')));
                    if (
                      value.kind === 'circle' &&
                      (value.radiusM < limits.radiusMinM || value.radiusM > limits.radiusMaxM)
                    )
                      return Promise.reject(
                        new Error(t('fence.editor.radiusRange', { min: limits.radiusMinM, max: limits.radiusMaxM })),
                      );
                    if (value.kind === 'polygon' && value.points.length > limits.maxVertices)
                      return Promise.reject(new Error(t('fence.editor.tooManyPoints', { max: limits.maxVertices })));
                    return Promise.resolve();
                  },
                },
              ]}
            >
              <ShapeField
                markers={markers}
                fitKey={`${id}:${loadedFor.current ?? 0}:${[...picked].join(',')}:${markers.length}`}
                limits={limits}
              />
            </Form.Item>
          </Col>
          <Col xs={24} xl={9}>
            <Form.Item
              name="name"
              label={t('fence.editor.name')}
              rules={[{ required: true, whitespace: true, message: t('fence.editor.nameRequired') }]}
            >
              <Input maxLength={FENCE_NAME_MAX} showCount data-testid="fence-name" />
            </Form.Item>
            <Form.Item name="alertOn" label={t('fence.editor.rule')}>
              <Radio.Group
                optionType="button"
                options={FENCE_ALERT_ON.map((r) => ({ value: r, label: t(`fence.rule.${r}`) }))}
              />
            </Form.Item>
            <Form.Item
              name="dwellS"
              label={t('fence.editor.dwell')}
              extra={t('fence.editor.dwellHint')}
              rules={[{ required: true, message: t('fence.editor.dwellRequired') }]}
            >
              <InputNumber<number>
                min={0}
                max={limits.dwellMaxS}
                precision={0}
                suffix={t('fence.editor.seconds')}
                style={{ width: 180 }}
                data-testid="fence-dwell"
              />
            </Form.Item>
            <Form.Item name="scheduleKind" label={t('fence.editor.schedule')}>
              <Radio.Group
                options={[
                  { value: 'always', label: t('fence.schedule.always') },
                  { value: 'weekly', label: t('fence.editor.weekly') },
                ]}
              />
            </Form.Item>
            {scheduleKind === 'weekly' && (
              <>
                <Form.Item
                  name="days"
                  label={t('fence.editor.days')}
                  rules={[{ required: true, type: 'array', min: 1, message: t('fence.editor.daysRequired') }]}
                >
                  <Checkbox.Group options={WEEKDAYS.map((d) => ({ value: d, label: t(`fence.weekday.${d}`) }))} />
                </Form.Item>
                <Space wrap align="start">
                  {(['from', 'to'] as const).map((k) => (
                    <Form.Item
                      key={k}
                      name={k}
                      label={t(`fence.editor.${k}`)}
                      rules={[{ required: true, message: t('fence.editor.timeRequired') }]}
                      getValueProps={(v: string | undefined) => ({ value: v ? dayjs(`2000-01-01T${v}`) : null })}
                      normalize={(v: dayjs.Dayjs | null) => v?.format('HH:mm')}
                    >
                      <TimePicker format="HH:mm" minuteStep={5} needConfirm={false} />
                    </Form.Item>
                  ))}
                </Space>
                <Typography.Paragraph type="secondary">{t('fence.editor.scheduleHint')}</Typography.Paragraph>
              </>
            )}
            <Form.Item name="deviceIds" label={t('fence.editor.devices')} extra={t('fence.editor.devicesHint')}>
              <Select<number[]>
                mode="multiple"
                showSearch={{ filterOption: false, onSearch: setKeyword }}
                options={options}
                placeholder={t('fence.editor.devicesPlaceholder')}
                loading={deviceOptions.isFetching}
                data-testid="fence-devices-select"
                onBlur={() => setKeyword('')}
              />
            </Form.Item>
            <Form.Item name="groupIds" label={t('fence.editor.groups')} extra={t('fence.editor.groupsHint')}>
              <TreeSelect<number[]>
                multiple
                treeDefaultExpandAll
                treeData={toTree(groups.data?.tree ?? [])}
                placeholder={t('fence.editor.groupsPlaceholder')}
                showSearch={{ treeNodeFilterProp: 'title' }}
              />
            </Form.Item>
            <Form.Item name="enabled" label={t('fence.editor.enabled')} valuePropName="checked">
              <Switch />
            </Form.Item>
            <Flex gap={8} align="center" wrap>
              <span aria-hidden style={{ width: 12, height: 12, borderRadius: 6, background: RULE_COLORS[alertOn] }} />
              <Typography.Text type="secondary">
                {shape
                  ? t('fence.editor.ruleSummary', { rule: t(`fence.rule.${alertOn}`) })
                  : t('fence.editor.drawFirst')}
              </Typography.Text>
            </Flex>
            {formError && <Alert type="error" showIcon title={formError} style={{ marginTop: 12 }} />}
            <Flex gap={8} style={{ marginTop: 16 }}>
              <Button
                type="primary"
                htmlType="submit"
                loading={create.isPending || update.isPending}
                data-testid="fence-save"
              >
                {t('fence.editor.save')}
              </Button>
              <Button onClick={() => void navigate('/fence/index')}>{t('fence.editor.cancel')}</Button>
            </Flex>
          </Col>
        </Row>
      </Form>
    </Card>
  );
}
