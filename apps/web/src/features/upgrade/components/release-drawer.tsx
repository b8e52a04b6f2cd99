import { Alert, Button, DatePicker, Drawer, Flex, Form, Input, InputNumber, Radio, Select, Switch } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { ReleaseTargets } from '@cpc/contracts/upgrade';
import { DeviceSelect, GroupTreeSelect } from '@/components/device-targets';
import { messageApi } from '@/lib/feedback';
import { usePackageList } from '@/lib/packages';
import { useDebounced } from '@/lib/use-debounced';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreateRelease, usePreview } from '../api/upgrade';
import { DEFAULT_WINDOW } from '../utils/release';

type TargetMode = 'models' | 'groupIds' | 'versions' | 'deviceIds';
interface Values {
  name: string;
  packageId?: number;
  mode: TargetMode;
  values: (string | number)[];
  canaryPercent: number;
  promote: 'soak' | 'manual';
  soakMinutes: number;
  throttle: number;
  windowOn: boolean;
  windowStart: string;
  windowEnd: string;
  failPercent: number;
  failMinCount: number;
  expireAt: Dayjs;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The targets the form's mode and values say (numbers for ids). */
export function targetsOf(mode: TargetMode, values: (string | number)[] | undefined): ReleaseTargets {
  const v = (values ?? []).map((x) => String(x).trim()).filter(Boolean);
  if (mode === 'groupIds' || mode === 'deviceIds') {
    const ids = v.map(Number).filter((n) => Number.isInteger(n) && n > 0);
    return { [mode]: ids };
  }
  return { [mode]: v };
}

/** "New release": firmware, targets with a live count of the matched devices, waves, throttle, window, threshold. */
export function ReleaseDrawer({
  open,
  onClose,
  packageId,
}: {
  open: boolean;
  onClose: () => void;
  packageId?: number;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const navigate = useNavigate();
  const firmware = usePackageList({ kind: 'firmware', pageNo: 1, pageSize: 100 });
  const create = useCreateRelease();
  const mode = Form.useWatch('mode', form) ?? 'models';
  const values = Form.useWatch('values', form);
  const picked = Form.useWatch('packageId', form);
  const promote = Form.useWatch('promote', form);
  const windowOn = Form.useWatch('windowOn', form);
  const targets = useDebounced(
    useMemo(() => targetsOf(mode, values), [mode, values]),
    300,
  );
  const hasTargets = Object.values(targets).some((a) => (a as unknown[]).length > 0);
  const preview = usePreview(picked, targets, open && hasTargets);

  useEffect(() => {
    if (open) form.setFieldsValue({ packageId, values: [] });
  }, [open, packageId, form]);

  const submit = async (v: Values) => {
    const res = await create.mutateAsync({
      name: v.name,
      packageId: v.packageId!,
      targets: targetsOf(v.mode, v.values),
      canaryPercent: v.canaryPercent,
      soakMinutes: v.promote === 'soak' ? v.soakMinutes : null,
      throttle: v.throttle,
      window: v.windowOn ? { start: v.windowStart, end: v.windowEnd } : null,
      failPercent: v.failPercent,
      failMinCount: v.failMinCount,
      expireAt: v.expireAt.toISOString(),
    });
    messageApi().success(t('upgrade.drawer.created', { total: res.total }));
    onClose();
    void navigate(`/upgrade/taskDetail?id=${res.id}`);
  };

  const required = [{ required: true, message: t('upgrade.drawer.required') }];
  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('upgrade.drawer.title')}
      size="min(560px, 100vw)"
      destroyOnHidden
      extra={
        <Button type="primary" loading={create.isPending} onClick={() => form.submit()} data-testid="release-submit">
          {t('upgrade.drawer.submit')}
        </Button>
      }
    >
      <Form<Values>
        form={form}
        layout="vertical"
        onFinish={(v) => void submit(v).catch(() => {})}
        initialValues={{
          mode: 'models',
          values: [],
          canaryPercent: 10,
          promote: 'manual',
          soakMinutes: 30,
          throttle: 50,
          windowOn: false,
          windowStart: DEFAULT_WINDOW.start,
          windowEnd: DEFAULT_WINDOW.end,
          failPercent: 20,
          failMinCount: 3,
          expireAt: dayjs().add(7, 'day'),
        }}
      >
        <Form.Item name="name" label={t('upgrade.drawer.name')} rules={required}>
          <Input maxLength={100} data-testid="release-name" />
        </Form.Item>
        <Form.Item name="packageId" label={t('upgrade.drawer.firmware')} rules={required}>
          <Select
            data-testid="release-firmware"
            loading={firmware.isLoading}
            options={(firmware.data?.list ?? []).map((f) => ({
              value: f.id,
              label: `${f.name} ${f.versionName}`,
            }))}
          />
        </Form.Item>
        <Form.Item name="mode" label={t('upgrade.drawer.targetBy')}>
          <Radio.Group
            optionType="button"
            onChange={() => form.setFieldValue('values', [])}
            options={[
              { value: 'models', label: t('upgrade.drawer.byModel') },
              { value: 'groupIds', label: t('upgrade.drawer.byGroup') },
              { value: 'versions', label: t('upgrade.drawer.byVersion') },
              { value: 'deviceIds', label: t('upgrade.drawer.byDevices') },
            ]}
          />
        </Form.Item>
        <Form.Item
          name="values"
          label={t(`upgrade.drawer.${mode}`)}
          extra={mode === 'models' || mode === 'versions' ? t('upgrade.drawer.tagsHint') : undefined}
          rules={required}
        >
          {mode === 'groupIds' ? (
            <GroupTreeSelect enabled={open} data-testid="release-targets" />
          ) : mode === 'deviceIds' ? (
            <DeviceSelect enabled={open} data-testid="release-targets" />
          ) : (
            <Select mode="tags" open={false} data-testid="release-targets" tokenSeparators={[',', ' ']} />
          )}
        </Form.Item>
        {hasTargets && preview.data && (
          <Alert
            data-testid="release-matched"
            style={{ marginBottom: 16 }}
            type={preview.data.matched ? 'info' : 'warning'}
            message={t('upgrade.drawer.matched', { n: preview.data.matched })}
            description={
              preview.data.incompatible || preview.data.current ? t('upgrade.drawer.excluded', preview.data) : undefined
            }
          />
        )}
        <Flex gap={12} wrap>
          <Form.Item
            name="canaryPercent"
            label={t('upgrade.drawer.canary')}
            extra={t('upgrade.drawer.canaryHint')}
            style={{ flex: '1 1 200px' }}
          >
            <InputNumber min={0} max={50} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="throttle" label={t('upgrade.drawer.throttle')} style={{ flex: '1 1 200px' }}>
            <InputNumber min={1} max={10000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Flex>
        <Form.Item name="promote" label={t('upgrade.drawer.promote')}>
          <Radio.Group
            options={[
              { value: 'manual', label: t('upgrade.drawer.manual') },
              { value: 'soak', label: t('upgrade.drawer.soak') },
            ]}
          />
        </Form.Item>
        {promote === 'soak' && (
          <Form.Item name="soakMinutes" label={t('upgrade.drawer.soakMinutes')}>
            <InputNumber min={0} max={10080} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        )}
        <Form.Item name="windowOn" label={t('upgrade.drawer.windowOn')} valuePropName="checked">
          <Switch />
        </Form.Item>
        {windowOn && (
          <Flex gap={12} wrap>
            <Form.Item
              name="windowStart"
              label={t('upgrade.drawer.window')}
              rules={[{ pattern: HHMM, message: 'hh:mm' }]}
              style={{ flex: '1 1 200px' }}
            >
              <Input placeholder="02:00" />
            </Form.Item>
            <Form.Item
              name="windowEnd"
              label=" "
              rules={[{ pattern: HHMM, message: 'hh:mm' }]}
              style={{ flex: '1 1 200px' }}
            >
              <Input placeholder="05:00" />
            </Form.Item>
          </Flex>
        )}
        <Flex gap={12} wrap>
          <Form.Item
            name="failPercent"
            label={t('upgrade.drawer.failPercent')}
            extra={t('upgrade.drawer.failHint')}
            style={{ flex: '1 1 200px' }}
          >
            <InputNumber min={1} max={100} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="failMinCount" label={t('upgrade.drawer.failMinCount')} style={{ flex: '1 1 200px' }}>
            <InputNumber min={1} max={10000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Flex>
        <Form.Item name="expireAt" label={t('upgrade.drawer.expireAt')} rules={required}>
          <DatePicker showTime style={{ width: '100%' }} disabledDate={(d) => d.isBefore(dayjs(), 'day')} />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
