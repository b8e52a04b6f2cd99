import {
  ApartmentOutlined,
  DeleteOutlined,
  EditOutlined,
  PlusOutlined,
  ReloadOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { App, Button, Card, Empty, Flex, Form, Input, Modal, Space, Spin, Tag, Tooltip, Tree, Typography } from 'antd';
import type { TreeDataNode, TreeProps } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEPARTMENT_NAME_MAX, PERMISSIONS, type DepartmentNode } from '@cpc/contracts';
import { useDepartmentTree } from '@/lib/department-api';
import { useDepartmentReach } from '@/lib/department-reach';
import { sayServerMessage, serverFieldErrors, type Wording } from '@/lib/server-messages';
import { usePermission } from '@/lib/session';
import { useFormLanguage } from '@/lib/use-form-language';
import { useAddDepartment, useDeleteDepartment, useEditDepartment, useMoveDepartment } from '../api/department';
import { dropEdits, dropTarget, isWithin } from '../utils/drop';

/** The server's field messages in this screen's words. */
const WORDING: Wording = { 'department.nameTaken': 'department.form.nameTaken' };

type Editing = { mode: 'add'; parent: DepartmentNode | null } | { mode: 'rename'; node: DepartmentNode };

interface Node extends TreeDataNode {
  key: number;
  dept: DepartmentNode;
  children: Node[];
}

const toNodes = (nodes: DepartmentNode[]): Node[] =>
  nodes.map((d) => ({ key: d.id, title: d.name, dept: d, children: toNodes(d.children) }));

const allIds = (nodes: DepartmentNode[]): number[] => nodes.flatMap((n) => [n.id, ...allIds(n.children)]);

/** The parent of each department (null: top level). */
const parentsOf = (nodes: DepartmentNode[], parent: number | null = null, out = new Map<number, number | null>()) => {
  for (const n of nodes) {
    out.set(n.id, parent);
    parentsOf(n.children, n.id, out);
  }
  return out;
};

/**
 * Departments (issue 12): the tenant's tree. Drag a department onto another to move it under it, or between
 * two to reorder; add a sub-department, rename or delete (only an empty one: the server says what is left).
 * Each node shows how many users belong to it. Only what the user's data scope lets it change is offered
 * (`useDepartmentReach`): a department-scoped user works below its own department, an own-scoped one only looks.
 */
export default function DepartmentManagementPage() {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const canEdit = usePermission(PERMISSIONS.departmentEdit);
  const tree = useDepartmentTree();
  const move = useMoveDepartment();
  const remove = useDeleteDepartment();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [expanded, setExpanded] = useState<number[] | null>(null);
  const data = useMemo(() => tree.data ?? [], [tree.data]);
  const nodes = useMemo(() => toNodes(data), [data]);
  const reach = useDepartmentReach(data);
  const parents = useMemo(() => parentsOf(data), [data]);
  /** Whether a department may be put under `parentId` (null: the top level). */
  const canPlaceUnder = (parentId: number | null) =>
    parentId === null ? reach.canAddTop : reach.canAddUnder(parentId);
  const readOnly = !canEdit || reach.scope === 'own';
  // everything open at first; a department added later opens with its parent
  const expandedKeys = expanded ?? allIds(data);

  const onDrop: TreeProps<Node>['onDrop'] = (info) => {
    const dragId = info.dragNode.key;
    const targetId = info.node.key;
    const pos = info.node.pos.split('-');
    const relative = Math.sign(info.dropPosition - Number(pos[pos.length - 1])) as -1 | 0 | 1;
    const target = dropTarget(data, dragId, targetId, info.dropToGap, relative);
    if (!reach.canChange(dragId) || !canPlaceUnder(target.parentId)) return;
    if (target.parentId !== null && isWithin(data, target.parentId, dragId)) {
      void message.warning(t('department.cycle'));
      return;
    }
    const edits = dropEdits(data, target);
    if (!edits.length) return;
    move.mutate(edits, {
      onSuccess: () => {
        void message.success(t('department.done.moved'));
      },
    });
  };

  const confirmDelete = (d: DepartmentNode) =>
    modal.confirm({
      title: t('department.confirm.deleteTitle', { name: d.name }),
      content: t('department.confirm.deleteContent'),
      okText: t('department.action.delete'),
      cancelText: t('department.form.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await remove.mutateAsync(d.id);
        } catch {
          return;
        }
        message.success(t('department.done.deleted'));
      },
    });

  const title = (n: Node) => {
    const d = n.dept;
    return (
      <Flex align="center" justify="space-between" gap={8} wrap style={{ minHeight: 32 }}>
        <Space size={8}>
          <Typography.Text strong>{d.name}</Typography.Text>
          <Tooltip title={t('department.members', { count: d.userCount })}>
            <Tag icon={<TeamOutlined />} bordered={false} aria-label={t('department.members', { count: d.userCount })}>
              {d.userCount}
            </Tag>
          </Tooltip>
        </Space>
        {canEdit && (reach.canAddUnder(d.id) || reach.canChange(d.id)) && (
          // the buttons act on this row only: a click never selects or drags it
          <Space size={0} onClick={(e) => e.stopPropagation()}>
            {reach.canAddUnder(d.id) && (
              <Tooltip title={t('department.action.addChild')}>
                <Button
                  type="text"
                  size="small"
                  icon={<PlusOutlined />}
                  aria-label={`${t('department.action.addChild')} ${d.name}`}
                  onClick={() => setEditing({ mode: 'add', parent: d })}
                />
              </Tooltip>
            )}
            {reach.canChange(d.id) && (
              <>
                <Tooltip title={t('department.action.rename')}>
                  <Button
                    type="text"
                    size="small"
                    icon={<EditOutlined />}
                    aria-label={`${t('department.action.rename')} ${d.name}`}
                    onClick={() => setEditing({ mode: 'rename', node: d })}
                  />
                </Tooltip>
                <Tooltip title={t('department.action.delete')}>
                  <Button
                    type="text"
                    size="small"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={`${t('department.action.delete')} ${d.name}`}
                    onClick={() => confirmDelete(d)}
                  />
                </Tooltip>
              </>
            )}
          </Space>
        )}
      </Flex>
    );
  };

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div style={{ flex: '1 1 320px' }}>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('department.title')}
            </Typography.Title>
            <Typography.Text type="secondary">
              {t(
                !canEdit
                  ? 'department.readOnly'
                  : reach.scope === 'own'
                    ? 'department.ownScope'
                    : reach.scope === 'department'
                      ? 'department.departmentScope'
                      : 'department.subtitle',
              )}
            </Typography.Text>
          </div>
          <Space>
            <Tooltip title={t('department.refresh')}>
              <Button
                icon={<ReloadOutlined />}
                aria-label={t('department.refresh')}
                loading={tree.isFetching && !tree.isPending}
                onClick={() => void tree.refetch()}
              />
            </Tooltip>
            {canEdit && reach.canAddTop && (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ mode: 'add', parent: null })}>
                {t('department.add')}
              </Button>
            )}
          </Space>
        </Flex>
        {tree.isPending ? (
          <Flex justify="center" style={{ padding: 48 }}>
            <Spin />
          </Flex>
        ) : nodes.length === 0 ? (
          <Empty image={<ApartmentOutlined style={{ fontSize: 48 }} />} description={t('department.empty')} />
        ) : (
          <Spin spinning={move.isPending}>
            <Tree<Node>
              blockNode
              showLine
              draggable={readOnly ? false : { icon: false, nodeDraggable: (n) => reach.canChange(n.key as number) }}
              allowDrop={({ dropNode, dropPosition }) =>
                canPlaceUnder(dropPosition === 0 ? dropNode.key : (parents.get(dropNode.key) ?? null))
              }
              treeData={nodes}
              titleRender={title}
              expandedKeys={expandedKeys}
              onExpand={(keys) => setExpanded(keys as number[])}
              onDrop={onDrop}
              selectable={false}
            />
          </Spin>
        )}
      </Flex>
      <NameModal
        editing={editing}
        onClose={() => setEditing(null)}
        onAdded={(parentId) => {
          if (parentId !== null && expanded) setExpanded([...expanded, parentId]);
        }}
      />
    </Card>
  );
}

/** Add a department (at the top or under one) or rename one: a name unique among its siblings. */
function NameModal({
  editing,
  onClose,
  onAdded,
}: {
  editing: Editing | null;
  onClose: () => void;
  onAdded: (parentId: number | null) => void;
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ name: string }>();
  useFormLanguage(form);
  const add = useAddDepartment();
  const edit = useEditDepartment();

  useEffect(() => {
    if (!editing) return;
    form.resetFields();
    if (editing.mode === 'rename') form.setFieldsValue({ name: editing.node.name });
  }, [editing, form]);

  const submit = async () => {
    if (!editing) return;
    let name: string;
    try {
      name = (await form.validateFields()).name.trim();
    } catch {
      return;
    }
    try {
      if (editing.mode === 'add') {
        const parentId = editing.parent?.id ?? null;
        await add.mutateAsync({ name, parentId });
        onAdded(parentId);
        message.success(t('department.done.added'));
      } else {
        await edit.mutateAsync({ id: editing.node.id, name });
        message.success(t('department.done.renamed'));
      }
    } catch (err) {
      const about = serverFieldErrors(err).filter((f) => f.field === 'name');
      if (about.length)
        form.setFields([{ name: 'name', errors: about.map((f) => sayServerMessage(f, t, WORDING, 'name')) }]);
      return;
    }
    onClose();
  };

  const title = !editing
    ? ''
    : editing.mode === 'rename'
      ? t('department.form.renameTitle', { name: editing.node.name })
      : editing.parent
        ? t('department.form.addChildTitle', { name: editing.parent.name })
        : t('department.form.addTitle');

  return (
    <Modal
      open={!!editing}
      title={title}
      okText={t('department.form.save')}
      cancelText={t('department.form.cancel')}
      confirmLoading={add.isPending || edit.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Form form={form} name="department" layout="vertical" onFinish={() => void submit()}>
        <Form.Item
          name="name"
          label={t('department.form.name')}
          rules={[
            { required: true, whitespace: true, message: t('department.form.nameRequired') },
            { max: DEPARTMENT_NAME_MAX, message: t('department.form.nameMax', { n: DEPARTMENT_NAME_MAX }) },
          ]}
        >
          <Input maxLength={DEPARTMENT_NAME_MAX + 5} placeholder={t('department.form.namePlaceholder')} autoFocus />
        </Form.Item>
      </Form>
    </Modal>
  );
}
