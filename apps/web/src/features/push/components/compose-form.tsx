import { UploadOutlined } from '@ant-design/icons';
import {
  Alert,
  App,
  Button,
  Col,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Radio,
  Row,
  Space,
  Typography,
  Upload,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  NOTICE_SECONDS_MAX,
  NOTICE_SECONDS_MIN,
  PUSH_BODY_MAX,
  PUSH_KINDS,
  PUSH_LINK_MAX,
  PUSH_SCHEDULE_MAX_DAYS,
  PUSH_TITLE_MAX,
  type PushKind,
  type PushTargets,
} from '@cpc/contracts/push';
import { DeviceSelect, GroupTreeSelect } from '@/components/device-targets';
import { uploadFile } from '@/lib/request';
import { checkImageFile, IMAGE_ACCEPT_ATTR } from '@/lib/upload-check';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreatePush, usePushPreview } from '../api/push';
import { TerminalPreview } from './terminal-preview';

type TargetMode = 'devices' | 'groups' | 'all';
interface Values {
  kind: PushKind;
  title: string;
  body?: string;
  link?: string;
  noticeSeconds?: number;
  mode: TargetMode;
  deviceIds?: number[];
  groupIds?: number[];
  when: 'now' | 'later';
  scheduledAt?: Dayjs;
  expireAt: Dayjs;
}

const isHttp = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

/** Compose a push: what (kind, title, body, image, link, notice time), to whom, when, until when; a live preview. */
export function ComposeForm({ onSent }: { onSent: (id: number) => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const kind = Form.useWatch('kind', form) ?? 'text';
  const mode = Form.useWatch('mode', form) ?? 'groups';
  const when = Form.useWatch('when', form) ?? 'now';
  const title = Form.useWatch('title', form) ?? '';
  const body = Form.useWatch('body', form) ?? '';
  const link = Form.useWatch('link', form) ?? '';
  const noticeSeconds = Form.useWatch('noticeSeconds', form);
  const deviceIds = Form.useWatch('deviceIds', form);
  const groupIds = Form.useWatch('groupIds', form);
  const [image, setImage] = useState<{ key: string; url: string } | null>(null);
  const [uploading, setUploading] = useState(false);
  const [imageError, setImageError] = useState(false);
  const create = useCreatePush();

  const targets: PushTargets = useMemo(
    () =>
      mode === 'all'
        ? { all: true }
        : mode === 'devices'
          ? { deviceIds: deviceIds ?? [] }
          : { groupIds: groupIds ?? [] },
    [mode, deviceIds, groupIds],
  );
  const hasTargets = mode === 'all' || !!(mode === 'devices' ? deviceIds?.length : groupIds?.length);
  const preview = usePushPreview(targets, hasTargets);

  const upload = async (file: File) => {
    const problem = checkImageFile(file);
    if (problem) {
      message.error(t(`push.compose.image.${problem}`));
      return;
    }
    setUploading(true);
    try {
      setImage(await uploadFile(file));
      setImageError(false);
    } finally {
      setUploading(false);
    }
  };

  const submit = async (v: Values) => {
    if (v.kind === 'image' && !image) {
      setImageError(true);
      return;
    }
    const res = await create.mutateAsync({
      kind: v.kind,
      title: v.title,
      body: v.body ?? '',
      ...(v.kind === 'image' ? { imageKey: image?.key } : {}),
      ...(v.kind === 'link' ? { link: v.link } : {}),
      ...(v.kind === 'notice' ? { noticeSeconds: v.noticeSeconds } : {}),
      targets,
      scheduledAt: v.when === 'later' && v.scheduledAt ? v.scheduledAt.toISOString() : null,
      expireAt: v.expireAt.toISOString(),
    });
    message.success(
      res.state === 'scheduled'
        ? t('push.compose.scheduled', { n: res.devices })
        : t('push.compose.sent', { n: res.devices }),
    );
    form.resetFields(['title', 'body', 'link']);
    setImage(null);
    onSent(res.id);
  };

  return (
    <Row gutter={[24, 16]}>
      <Col xs={24} lg={15}>
        <Form<Values>
          form={form}
          layout="vertical"
          data-testid="push-form"
          initialValues={{
            kind: 'text',
            mode: 'groups',
            when: 'now',
            noticeSeconds: 30,
            expireAt: dayjs().add(1, 'day').startOf('minute'),
          }}
          onFinish={(v) => void submit(v).catch(() => {})}
        >
          <Form.Item name="kind" label={t('push.compose.kind')}>
            <Radio.Group
              optionType="button"
              data-testid="push-kind"
              options={PUSH_KINDS.map((k) => ({ value: k, label: t(`push.kind.${k}`) }))}
            />
          </Form.Item>
          <Form.Item
            name="title"
            label={t('push.compose.title')}
            rules={[{ required: true, whitespace: true, message: t('push.compose.titleRequired') }]}
          >
            <Input maxLength={PUSH_TITLE_MAX} showCount data-testid="push-title" />
          </Form.Item>
          <Form.Item name="body" label={t('push.compose.body')}>
            <Input.TextArea rows={3} maxLength={PUSH_BODY_MAX} showCount data-testid="push-body" />
          </Form.Item>
          {kind === 'image' && (
            <Form.Item
              required
              label={t('push.compose.image.label')}
              extra={t('push.compose.image.hint')}
              validateStatus={imageError ? 'error' : undefined}
              help={imageError ? t('push.compose.image.required') : undefined}
            >
              <Space wrap>
                <Upload
                  accept={IMAGE_ACCEPT_ATTR}
                  showUploadList={false}
                  beforeUpload={(file) => {
                    void upload(file).catch(() => {});
                    return false;
                  }}
                >
                  <Button icon={<UploadOutlined />} loading={uploading} data-testid="push-image">
                    {image ? t('push.compose.image.replace') : t('push.compose.image.choose')}
                  </Button>
                </Upload>
                {image && <img src={image.url} alt="" style={{ height: 40, borderRadius: 4 }} />}
              </Space>
            </Form.Item>
          )}
          {kind === 'link' && (
            <Form.Item
              name="link"
              label={t('push.compose.link')}
              rules={[
                { required: true, message: t('push.compose.linkRequired') },
                {
                  validator: async (_, v?: string) =>
                    !v || isHttp(v) ? undefined : Promise.reject(t('push.compose.linkHttp')),
                },
              ]}
            >
              <Input maxLength={PUSH_LINK_MAX} placeholder="https://" data-testid="push-link" />
            </Form.Item>
          )}
          {kind === 'notice' && (
            <Form.Item
              name="noticeSeconds"
              label={t('push.compose.noticeSeconds')}
              rules={[{ required: true, message: t('push.compose.noticeRequired') }]}
            >
              <InputNumber
                min={NOTICE_SECONDS_MIN}
                max={NOTICE_SECONDS_MAX}
                addonAfter={t('push.compose.seconds')}
                data-testid="push-notice-seconds"
              />
            </Form.Item>
          )}
          <Form.Item name="mode" label={t('push.compose.targets')}>
            <Radio.Group
              optionType="button"
              data-testid="push-mode"
              options={(['groups', 'devices', 'all'] as const).map((m) => ({ value: m, label: t(`push.mode.${m}`) }))}
            />
          </Form.Item>
          {mode === 'groups' && (
            <Form.Item
              name="groupIds"
              label={t('push.compose.groups')}
              extra={t('push.compose.groupsHint')}
              rules={[{ required: true, message: t('push.compose.targetsRequired') }]}
            >
              <GroupTreeSelect data-testid="push-groups" />
            </Form.Item>
          )}
          {mode === 'devices' && (
            <Form.Item
              name="deviceIds"
              label={t('push.compose.devices')}
              rules={[{ required: true, message: t('push.compose.targetsRequired') }]}
            >
              <DeviceSelect placeholder={t('push.compose.devicesPlaceholder')} data-testid="push-devices" />
            </Form.Item>
          )}
          {hasTargets && preview.data && (
            <Alert
              style={{ marginBottom: 16 }}
              type={preview.data.devices ? 'info' : 'warning'}
              showIcon
              data-testid="push-count"
              message={t('push.compose.count', { n: preview.data.devices, online: preview.data.online })}
            />
          )}
          <Form.Item name="when" label={t('push.compose.when')}>
            <Radio.Group
              optionType="button"
              options={[
                { value: 'now', label: t('push.compose.now') },
                { value: 'later', label: t('push.compose.later') },
              ]}
            />
          </Form.Item>
          <Row gutter={12}>
            {when === 'later' && (
              <Col xs={24} sm={12}>
                <Form.Item
                  name="scheduledAt"
                  label={t('push.compose.scheduledAt')}
                  rules={[
                    { required: true, message: t('push.compose.scheduledRequired') },
                    {
                      validator: async (_, v?: Dayjs) =>
                        !v || (v.isAfter(dayjs()) && v.isBefore(dayjs().add(PUSH_SCHEDULE_MAX_DAYS, 'day')))
                          ? undefined
                          : Promise.reject(t('push.compose.scheduledRange', { n: PUSH_SCHEDULE_MAX_DAYS })),
                    },
                  ]}
                >
                  <DatePicker showTime style={{ width: '100%' }} />
                </Form.Item>
              </Col>
            )}
            <Col xs={24} sm={12}>
              <Form.Item
                name="expireAt"
                label={t('push.compose.expireAt')}
                extra={t('push.compose.expireHint')}
                dependencies={['scheduledAt', 'when']}
                rules={[
                  { required: true, message: t('push.compose.expireRequired') },
                  ({ getFieldValue }) => ({
                    validator: async (_, v?: Dayjs) => {
                      const start: Dayjs =
                        getFieldValue('when') === 'later' ? (getFieldValue('scheduledAt') ?? dayjs()) : dayjs();
                      return !v || v.isAfter(start) ? undefined : Promise.reject(t('push.compose.expireAfter'));
                    },
                  }),
                ]}
              >
                <DatePicker showTime style={{ width: '100%' }} data-testid="push-expire" />
              </Form.Item>
            </Col>
          </Row>
          <Button type="primary" htmlType="submit" loading={create.isPending} data-testid="push-submit">
            {when === 'later' ? t('push.compose.schedule') : t('push.compose.send')}
          </Button>
        </Form>
      </Col>
      <Col xs={24} lg={9}>
        <Typography.Title level={5} style={{ marginTop: 0 }}>
          {t('push.preview.heading')}
        </Typography.Title>
        <TerminalPreview
          kind={kind}
          title={title}
          body={body}
          imageUrl={image?.url}
          link={link}
          noticeSeconds={noticeSeconds}
        />
      </Col>
    </Row>
  );
}
