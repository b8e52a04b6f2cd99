import { App, Form, Input, Modal, TreeSelect } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { GroupNode } from '@cpc/contracts/device';
import { useAddGroup, useEditGroup, useGroupTree } from '../api/groups';
import { findGroup, groupOptions, subtreeIds } from '../utils/group-tree';
import { explainError, splitErrors } from '../utils/server-errors';
import { useFormLanguage } from '@/lib/use-form-language';

/** Top level in the parent picker; the server takes null for it. */
const TOP = -1;

export type GroupDialog = { mode: 'add'; parentId: number | null } | { mode: 'rename'; group: GroupNode };

interface GroupValues {
  name: string;
  parentId: number;
}

/** Adds a group (under a parent) or renames and re-parents one. */
export function GroupModal({ dialog, onClose }: { dialog: GroupDialog | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<GroupValues>();
  useFormLanguage(form);
  const add = useAddGroup();
  const edit = useEditGroup();
  const tree = useGroupTree().data?.tree ?? [];

  useEffect(() => {
    if (!dialog) return;
    form.resetFields();
    if (dialog.mode === 'add') form.setFieldsValue({ name: '', parentId: dialog.parentId ?? TOP });
    else form.setFieldsValue({ name: dialog.group.name, parentId: dialog.group.parentId ?? TOP });
  }, [dialog, form]);

  // a group cannot go under itself or one of its subgroups
  const moving = dialog?.mode === 'rename' ? findGroup(tree, dialog.group.id) : undefined;
  const exclude = new Set(moving ? subtreeIds(moving) : []);

  const submit = async (values: GroupValues) => {
    if (!dialog) return;
    const parentId = values.parentId === TOP ? null : values.parentId;
    try {
      if (dialog.mode === 'add') {
        await add.mutateAsync({ name: values.name.trim(), parentId });
        message.success(t('device.groups.created'));
      } else {
        await edit.mutateAsync({ id: dialog.group.id, name: values.name.trim(), parentId });
        message.success(t('device.groups.saved'));
      }
      onClose();
    } catch (err) {
      const { fields, general } = splitErrors(explainError(err), ['name', 'parentId'], t);
      form.setFields([
        ...fields.map((f) => ({ name: f.name as keyof GroupValues, errors: f.errors })),
        ...(general.length ? [{ name: 'name' as const, errors: general }] : []),
      ]);
    }
  };

  return (
    <Modal
      open={!!dialog}
      title={dialog?.mode === 'rename' ? t('device.groups.dialogRename') : t('device.groups.dialogAdd')}
      okText={t('device.groups.save')}
      cancelText={t('device.groups.cancel')}
      confirmLoading={add.isPending || edit.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      forceRender
    >
      <Form<GroupValues> form={form} name="group" layout="vertical" onFinish={submit}>
        <Form.Item
          name="name"
          label={t('device.groups.name')}
          rules={[
            { required: true, whitespace: true, message: t('device.groups.nameRequired') },
            { max: 30, message: t('device.groups.nameMax') },
          ]}
        >
          <Input placeholder={t('device.groups.namePlaceholder')} maxLength={30} showCount />
        </Form.Item>
        <Form.Item name="parentId" label={t('device.groups.parent')}>
          <TreeSelect
            treeDefaultExpandAll
            treeData={[
              { value: TOP, title: t('device.groups.parentNone'), children: [] },
              ...groupOptions(tree, exclude),
            ]}
            fieldNames={{ label: 'title', value: 'value', children: 'children' }}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
