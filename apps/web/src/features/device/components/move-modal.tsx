import { App, Form, Modal, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useMoveDevices } from '../api/devices';
import { useGroupTree } from '../api/groups';
import { groupOptions } from '../utils/group-tree';
import { useFormLanguage } from '@/lib/use-form-language';

/** "No group" in the picker; the server takes null for it. */
const UNGROUP = -1;

/** Moves one or many devices into a group, or out of every group. */
export function MoveModal({
  ids,
  currentGroupId,
  onClose,
  onMoved,
}: {
  ids: number[] | null;
  currentGroupId?: number | null;
  onClose: () => void;
  onMoved?: () => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ groupId: number }>();
  useFormLanguage(form);
  const move = useMoveDevices();
  const groups = useGroupTree();
  const open = !!ids?.length;

  useEffect(() => {
    if (open) form.setFieldsValue({ groupId: currentGroupId ?? undefined });
  }, [open, currentGroupId, form]);

  const submit = async ({ groupId }: { groupId: number }) => {
    if (!ids) return;
    try {
      const { moved } = await move.mutateAsync({ ids, groupId: groupId === UNGROUP ? null : groupId });
      message.success(t('device.move.done', { count: moved }));
      onMoved?.();
      onClose();
    } catch {
      // the request layer has said why
    }
  };

  return (
    <Modal
      open={open}
      title={ids && ids.length > 1 ? t('device.move.titleMany', { count: ids.length }) : t('device.move.title')}
      okText={t('device.move.submit')}
      cancelText={t('device.move.cancel')}
      confirmLoading={move.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      forceRender
    >
      <Form form={form} name="deviceMove" layout="vertical" onFinish={submit}>
        <Form.Item
          name="groupId"
          label={t('device.move.target')}
          rules={[{ required: true, message: t('device.move.targetRequired') }]}
        >
          <TreeSelect
            treeDefaultExpandAll
            loading={groups.isPending}
            placeholder={t('device.move.targetRequired')}
            treeData={[
              { value: UNGROUP, title: t('device.move.ungroup'), children: [] },
              ...groupOptions(groups.data?.tree ?? []),
            ]}
            fieldNames={{ label: 'title', value: 'value', children: 'children' }}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
