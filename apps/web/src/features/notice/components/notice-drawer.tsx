import { Button, DatePicker, Drawer, Flex, Form, Input, Modal, Radio, Select, Spin, Switch, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NOTICE_AUDIENCES, type NoticeAudience, type NoticeManageItem } from '@cpc/contracts/notice';
import { RichHtml } from '@/components/rich-html';
import { RichTextEditor } from '@/components/rich-text-editor';
import { sayServerMessage, serverFieldErrors } from '@/lib/server-messages';
import { uploadFile } from '@/lib/request';
import { IMAGE_ACCEPT_ATTR, checkImageFile } from '@/lib/upload-check';
import { useDebounced } from '@/lib/use-debounced';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCreateNotice, usePublishNotice, useTenantOptions, useUpdateNotice } from '../api/notice';

interface Values {
  title: string;
  imageKey: string;
  bodyHtml: string;
  audience: NoticeAudience;
  tenantIds: number[];
  publishAt: Dayjs | null;
  endsAt: Dayjs | null;
  pinned: boolean;
}
const FIELDS = ['title', 'imageKey', 'bodyHtml', 'audience', 'tenantIds', 'publishAt', 'endsAt', 'pinned'] as const;
const DEFAULTS: Values = {
  title: '',
  imageKey: '',
  bodyHtml: '',
  audience: 'all',
  tenantIds: [],
  publishAt: null,
  endsAt: null,
  pinned: false,
};
const TITLE_MAX = 100;

/** Whether editor HTML holds anything but blank paragraphs (text or an image). */
export const hasContent = (html: string) =>
  /<img\b/i.test(html) ||
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .trim().length > 0;

/** The cover image: uploaded through the upload-token flow, kept by its object key; shown by a signed URL. */
function CoverInput({
  value,
  onChange,
  initialUrl,
}: {
  value?: string;
  onChange?: (key: string) => void;
  initialUrl: string;
}) {
  const { t } = useTranslation();
  const [url, setUrl] = useState(initialUrl);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const pick = async (file: File | undefined) => {
    if (!file) return;
    const bad = checkImageFile(file);
    if (bad) {
      setProblem(t(`notice.form.cover.${bad}`));
      return;
    }
    setProblem('');
    setBusy(true);
    try {
      const up = await uploadFile(file);
      setUrl(up.url);
      onChange?.(up.key);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Flex gap={12} align="center" wrap>
      {value && url && <img src={url} alt="" width={96} height={54} style={{ objectFit: 'cover', borderRadius: 4 }} />}
      <input
        ref={input}
        type="file"
        accept={IMAGE_ACCEPT_ATTR}
        hidden
        data-testid="notice-cover-input"
        onChange={(e) => {
          void pick(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <Button loading={busy} onClick={() => input.current?.click()}>
        {value ? t('notice.form.cover.change') : t('notice.form.cover.upload')}
      </Button>
      {value && (
        <Button type="link" danger onClick={() => onChange?.('')}>
          {t('notice.form.cover.remove')}
        </Button>
      )}
      {problem && <Typography.Text type="danger">{problem}</Typography.Text>}
    </Flex>
  );
}

/** The customer accounts picker: searched on the server, the chosen ones named even when not in the results. */
function TenantSelect({
  value,
  onChange,
  chosen,
}: {
  value?: number[];
  onChange?: (v: number[]) => void;
  chosen: NoticeManageItem['tenants'];
}) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const debounced = useDebounced(keyword, 300);
  const found = useTenantOptions(debounced, true);
  const [known, setKnown] = useState(chosen);
  // by value: the caller's list may be a new array at each render
  const chosenKey = chosen.map((c) => c.id).join(',');
  useEffect(() => setKnown(chosen), [chosenKey]); // eslint-disable-line react-hooks/exhaustive-deps -- by value, above
  const options = useMemo(() => {
    const all = new Map(known.map((k) => [k.id, k]));
    for (const f of found.data ?? []) all.set(f.id, f);
    return [...all.values()].map((k) => ({
      value: k.id,
      label: `${k.name} · ${t(`notice.kind.${k.kind}`)}`,
      tenant: k,
    }));
  }, [known, found.data, t]);
  return (
    <Select
      mode="multiple"
      showSearch
      filterOption={false}
      value={value}
      onSearch={setKeyword}
      onChange={(ids: number[], opts) => {
        const picked = (Array.isArray(opts) ? opts : [opts]).flatMap((o) => (o && 'tenant' in o ? [o.tenant] : []));
        setKnown((k) => [...k.filter((x) => !picked.some((p) => p.id === x.id)), ...picked]);
        onChange?.(ids);
      }}
      options={options}
      placeholder={t('notice.form.tenantsPlaceholder')}
      notFoundContent={found.isFetching ? <Spin size="small" /> : undefined}
      data-testid="notice-tenants"
      style={{ width: '100%' }}
    />
  );
}

/**
 * Write or edit an announcement (staff): title, the rich text (Tiptap, with images), the audience, publish and end
 * times, pinned; a preview as readers see it; saved as a draft, or saved and published at once.
 */
export function NoticeDrawer({
  open,
  record,
  onClose,
  onDone,
}: {
  open: boolean;
  record: NoticeManageItem | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const create = useCreateNotice();
  const update = useUpdateNotice();
  const publish = usePublishNotice();
  const [preview, setPreview] = useState<{ title: string; html: string } | null>(null);
  const audience = Form.useWatch('audience', form);
  const saving = create.isPending || update.isPending || publish.isPending;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      record
        ? {
            title: record.title,
            imageKey: record.imageKey,
            bodyHtml: record.bodyHtml,
            audience: record.audience,
            tenantIds: record.tenants.map((x) => x.id),
            publishAt: record.publishAt ? dayjs(record.publishAt) : null,
            endsAt: record.endsAt ? dayjs(record.endsAt) : null,
            pinned: record.pinned,
          }
        : DEFAULTS,
    );
  }, [open, record, form]);

  const save = async (andPublish: boolean) => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    const body = {
      title: v.title.trim(),
      bodyHtml: v.bodyHtml,
      imageKey: v.imageKey ?? '',
      audience: v.audience,
      tenantIds: v.audience === 'tenants' ? v.tenantIds : [],
      publishAt: v.publishAt ? v.publishAt.toISOString() : null,
      endsAt: v.endsAt ? v.endsAt.toISOString() : null,
      pinned: v.pinned,
    };
    try {
      const saved = record ? await update.mutateAsync({ id: record.id, ...body }) : await create.mutateAsync(body);
      if (andPublish) {
        const done = await publish.mutateAsync(saved.id);
        onDone(
          done.publishAt && Date.parse(done.publishAt) > Date.now()
            ? t('notice.done.scheduled')
            : t('notice.done.published'),
        );
      } else onDone(record ? t('notice.done.saved') : t('notice.done.created'));
    } catch (err) {
      const fields = serverFieldErrors(err);
      form.setFields(
        fields
          .map((f) => ({ name: f.field.split('.')[0] as (typeof FIELDS)[number], errors: [sayServerMessage(f, t)] }))
          .filter((f) => (FIELDS as readonly string[]).includes(f.name)),
      );
    }
  };

  const draftLike = !record || record.state === 'draft';
  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={record ? t('notice.form.editTitle') : t('notice.form.createTitle')}
      size="min(760px, 100vw)"
      destroyOnHidden
      data-testid="notice-drawer"
      extra={
        <Button
          onClick={() => {
            const v = form.getFieldsValue();
            setPreview({ title: v.title ?? '', html: v.bodyHtml ?? '' });
          }}
        >
          {t('notice.form.preview')}
        </Button>
      }
      footer={
        <Flex justify="flex-end" gap={8} wrap>
          <Button onClick={onClose}>{t('notice.form.cancel')}</Button>
          <Button loading={saving} onClick={() => void save(false)} data-testid="notice-save">
            {t('notice.form.save')}
          </Button>
          {draftLike && (
            <Button type="primary" loading={saving} onClick={() => void save(true)} data-testid="notice-save-publish">
              {t('notice.form.saveAndPublish')}
            </Button>
          )}
        </Flex>
      }
    >
      <Form form={form} layout="vertical" initialValues={DEFAULTS} disabled={saving}>
        <Form.Item
          name="title"
          label={t('notice.form.title')}
          rules={[
            { required: true, whitespace: true, message: t('notice.form.titleRequired') },
            { max: TITLE_MAX, message: t('notice.form.titleMax') },
          ]}
        >
          <Input placeholder={t('notice.form.titlePlaceholder')} maxLength={TITLE_MAX} data-testid="notice-title" />
        </Form.Item>
        <Form.Item name="imageKey" label={t('notice.form.cover.label')}>
          <CoverInput initialUrl={record?.image ?? ''} />
        </Form.Item>
        <Form.Item
          name="bodyHtml"
          label={t('notice.form.body')}
          rules={[
            {
              validator: async (_, v: string | undefined) => {
                if (!hasContent(v ?? '')) throw new Error(t('notice.form.bodyRequired'));
              },
            },
          ]}
        >
          <RichTextEditor
            placeholder={t('notice.form.bodyPlaceholder')}
            minHeight={220}
            aria-label={t('notice.form.body')}
            data-testid="notice-body"
          />
        </Form.Item>
        <Form.Item name="audience" label={t('notice.form.audience')}>
          <Radio.Group
            optionType="button"
            data-testid="notice-audience"
            options={NOTICE_AUDIENCES.map((a) => ({ value: a, label: t(`notice.audience.${a}`) }))}
          />
        </Form.Item>
        {audience === 'tenants' && (
          <Form.Item
            name="tenantIds"
            label={t('notice.form.tenants')}
            rules={[{ type: 'array', min: 1, required: true, message: t('notice.form.tenantsRequired') }]}
          >
            <TenantSelect chosen={record?.tenants ?? []} />
          </Form.Item>
        )}
        <Flex gap={16} wrap>
          <Form.Item
            name="publishAt"
            label={t('notice.form.publishAt')}
            extra={t('notice.form.publishAtHelp')}
            style={{ flex: '1 1 220px' }}
          >
            <DatePicker showTime style={{ width: '100%' }} data-testid="notice-publish-at" />
          </Form.Item>
          <Form.Item
            name="endsAt"
            label={t('notice.form.endsAt')}
            extra={t('notice.form.endsAtHelp')}
            dependencies={['publishAt']}
            style={{ flex: '1 1 220px' }}
            rules={[
              ({ getFieldValue }) => ({
                validator: async (_, v: Dayjs | null) => {
                  const from: Dayjs | null = getFieldValue('publishAt');
                  if (v && from && !v.isAfter(from)) throw new Error(t('notice.form.endsAfter'));
                },
              }),
            ]}
          >
            <DatePicker showTime style={{ width: '100%' }} data-testid="notice-ends-at" />
          </Form.Item>
        </Flex>
        <Form.Item name="pinned" label={t('notice.form.pinned')} valuePropName="checked">
          <Switch data-testid="notice-pinned" />
        </Form.Item>
      </Form>
      <Modal
        open={!!preview}
        onCancel={() => setPreview(null)}
        footer={null}
        title={t('notice.form.preview')}
        width="min(720px, 100vw)"
      >
        {preview && (
          <div data-testid="notice-preview">
            <Typography.Title level={4}>{preview.title}</Typography.Title>
            <RichHtml html={preview.html} />
          </div>
        )}
      </Modal>
    </Drawer>
  );
}
