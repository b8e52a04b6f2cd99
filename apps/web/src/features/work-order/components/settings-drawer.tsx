import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  Checkbox,
  Drawer,
  Empty,
  Flex,
  Form,
  Grid,
  Input,
  InputNumber,
  List,
  Modal,
  Popconfirm,
  Table,
  Tabs,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import type { CannedReply, WorkOrderPriority, WorkOrderTarget } from '@cpc/contracts/work-order';
import { RichHtml } from '@/components/rich-html';
import { RichTextEditor } from '@/components/rich-text-editor';
import { usePermission } from '@/lib/session';
import { useFormLanguage } from '@/lib/use-form-language';
import { useCannedCall, useCannedReplies, useSaveTargets, useTargets } from '../api/work-order';
import { hasRichContent } from '../utils/attachment';
import { PriorityTag } from './tags';

type TargetHours = Record<WorkOrderPriority, { response: number | null; resolve: number | null }>;

const hours = (minutes: number) => Math.round((minutes / 60) * 100) / 100;

/** Targets per priority (in hours; stored in minutes), editable with workOrder:settings. */
function TargetsPane() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const canEdit = usePermission(PERMISSIONS.workOrderSettings);
  const targets = useTargets(true);
  const save = useSaveTargets();
  const [form] = Form.useForm<TargetHours>();
  useFormLanguage(form);

  useEffect(() => {
    if (!targets.data) return;
    form.setFieldsValue(
      Object.fromEntries(
        targets.data.map((x) => [x.priority, { response: hours(x.responseMinutes), resolve: hours(x.resolveMinutes) }]),
      ) as TargetHours,
    );
  }, [targets.data, form]);

  const submit = async (v: TargetHours) => {
    const list: WorkOrderTarget[] = (targets.data ?? []).map((x) => ({
      priority: x.priority,
      responseMinutes: Math.max(1, Math.round((v[x.priority]?.response ?? 0) * 60)),
      resolveMinutes: Math.max(1, Math.round((v[x.priority]?.resolve ?? 0) * 60)),
    }));
    await save.mutateAsync(list);
    message.success(t('workOrder.settings.saved'));
  };

  const cell = (priority: WorkOrderPriority, field: 'response' | 'resolve') => (
    <Form.Item
      name={[priority, field]}
      noStyle
      rules={[{ required: true, message: t('workOrder.settings.hoursRequired') }]}
    >
      <InputNumber
        min={0.1}
        max={8760}
        step={0.5}
        disabled={!canEdit}
        suffix={t('workOrder.settings.hours')}
        style={{ width: 140 }}
        aria-label={`${priority} ${field}`}
        data-testid={`work-order-target-${priority}-${field}`}
      />
    </Form.Item>
  );

  return (
    <Form form={form} onFinish={(v) => void submit(v).catch(() => {})}>
      <Typography.Paragraph type="secondary">{t('workOrder.settings.targetsHint')}</Typography.Paragraph>
      <Table<WorkOrderTarget>
        rowKey="priority"
        size="small"
        pagination={false}
        loading={targets.isLoading}
        dataSource={targets.data ?? []}
        scroll={{ x: 420 }}
        columns={[
          {
            key: 'priority',
            title: t('workOrder.column.priority'),
            render: (_: unknown, x) => <PriorityTag priority={x.priority} />,
          },
          {
            key: 'response',
            title: t('workOrder.settings.response'),
            render: (_: unknown, x) => cell(x.priority, 'response'),
          },
          {
            key: 'resolve',
            title: t('workOrder.settings.resolve'),
            render: (_: unknown, x) => cell(x.priority, 'resolve'),
          },
        ]}
      />
      {canEdit && (
        <Button type="primary" htmlType="submit" loading={save.isPending} style={{ marginTop: 16 }}>
          {t('workOrder.settings.save')}
        </Button>
      )}
    </Form>
  );
}

interface CannedValues {
  title: string;
  bodyHtml: string;
  shared: boolean;
}

/** One's own canned replies, and the shared ones (written with workOrder:settings). */
function CannedPane() {
  const { t } = useTranslation();
  const canShare = usePermission(PERMISSIONS.workOrderSettings);
  const canned = useCannedReplies(true);
  const call = useCannedCall();
  const [editing, setEditing] = useState<CannedReply | 'new' | null>(null);
  const [form] = Form.useForm<CannedValues>();
  useFormLanguage(form);

  useEffect(() => {
    if (editing === 'new') form.setFieldsValue({ title: '', bodyHtml: '', shared: false });
    else if (editing) form.setFieldsValue({ title: editing.title, bodyHtml: editing.bodyHtml, shared: editing.shared });
  }, [editing, form]);

  const submit = async () => {
    const v = await form.validateFields();
    if (editing === 'new') await call.mutateAsync({ kind: 'create', body: v });
    else if (editing)
      await call.mutateAsync({ kind: 'update', body: { id: editing.id, title: v.title, bodyHtml: v.bodyHtml } });
    setEditing(null);
  };

  return (
    <Flex vertical gap={12}>
      <Button icon={<PlusOutlined />} onClick={() => setEditing('new')} style={{ alignSelf: 'start' }}>
        {t('workOrder.canned.add')}
      </Button>
      <List<CannedReply>
        loading={canned.isLoading}
        dataSource={canned.data ?? []}
        locale={{ emptyText: <Empty description={t('workOrder.canned.empty')} /> }}
        renderItem={(c) => {
          const mine = !c.shared || canShare;
          return (
            <List.Item
              actions={
                mine
                  ? [
                      <Button key="e" type="link" size="small" icon={<EditOutlined />} onClick={() => setEditing(c)}>
                        {t('workOrder.canned.edit')}
                      </Button>,
                      <Popconfirm
                        key="d"
                        title={t('workOrder.canned.deleteConfirm')}
                        onConfirm={() => call.mutateAsync({ kind: 'delete', id: c.id })}
                      >
                        <Button type="link" size="small" danger icon={<DeleteOutlined />}>
                          {t('workOrder.canned.delete')}
                        </Button>
                      </Popconfirm>,
                    ]
                  : []
              }
            >
              <List.Item.Meta
                title={
                  <Flex gap={8} align="center">
                    {c.title}
                    {c.shared && <Tag>{t('workOrder.canned.shared')}</Tag>}
                  </Flex>
                }
                description={<RichHtml html={c.bodyHtml} />}
              />
            </List.Item>
          );
        }}
      />
      <Modal
        open={editing !== null}
        title={t(editing === 'new' ? 'workOrder.canned.add' : 'workOrder.canned.edit')}
        onCancel={() => setEditing(null)}
        onOk={() => void submit().catch(() => {})}
        confirmLoading={call.isPending}
        okText={t('workOrder.settings.save')}
        destroyOnHidden
        width={640}
      >
        <Form form={form} layout="vertical">
          <Form.Item
            name="title"
            label={t('workOrder.canned.title')}
            rules={[{ required: true, whitespace: true, message: t('workOrder.canned.titleRequired') }]}
          >
            <Input maxLength={50} />
          </Form.Item>
          <Form.Item
            name="bodyHtml"
            label={t('workOrder.canned.body')}
            rules={[
              {
                validator: (_, v: string) =>
                  hasRichContent(v) ? Promise.resolve() : Promise.reject(new Error(t('workOrder.canned.bodyRequired'))),
              },
            ]}
          >
            <RichTextEditor minHeight={120} aria-label={t('workOrder.canned.body')} />
          </Form.Item>
          {canShare && editing === 'new' && (
            <Form.Item name="shared" valuePropName="checked">
              <Checkbox>{t('workOrder.canned.shareWithAll')}</Checkbox>
            </Form.Item>
          )}
        </Form>
      </Modal>
    </Flex>
  );
}

/** Staff settings of the queue: targets per priority and canned replies. */
export function SettingsDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const narrow = !Grid.useBreakpoint().md;
  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('workOrder.settings.title')}
      size={narrow ? '100%' : 640}
      destroyOnHidden
    >
      <Tabs
        items={[
          { key: 'targets', label: t('workOrder.settings.targets'), children: <TargetsPane /> },
          { key: 'canned', label: t('workOrder.settings.canned'), children: <CannedPane /> },
        ]}
      />
    </Drawer>
  );
}
