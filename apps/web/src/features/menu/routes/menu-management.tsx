import { HistoryOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Card, Col, Empty, Form, Row, Space, Spin, Tag, Tree, Typography } from 'antd';
import type { TreeDataNode, TreeProps } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { MenuNode } from '@cpc/contracts/menu';
import { MenuIcon } from '@/layout/menu-icon';
import { routeTitle } from '@/lib/menu-routes';
import { sayServerMessage, serverFieldErrors } from '@/lib/server-messages';
import { useAddMenu, useDeleteMenu, useEditMenu, useMenuTree, useMoveMenu } from '../api/menu';
import { MenuForm } from '../components/menu-form';
import { MenuPreview } from '../components/menu-preview';
import { VersionsDrawer } from '../components/versions-drawer';
import {
  EMPTY_FORM,
  dropToMove,
  findNode,
  formFieldOf,
  replaceNode,
  toFormValues,
  toRecordBody,
  type MenuFormValues,
} from '../utils/menu-tree';

/** A new record not saved yet: where it goes. */
interface Draft {
  parentId: number | null;
}
const DRAFT_ID = -1;

/**
 * Menu management (platform staff): the route records every user's menu is built from, as a tree to drag,
 * the selected record's form, and a live preview of the menu they make; every change is a version.
 */
export default function MenuManagementPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const tree = useMenuTree();
  const [form] = Form.useForm<MenuFormValues>();
  const [selected, setSelected] = useState<number | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [versionsOpen, setVersionsOpen] = useState(false);
  const add = useAddMenu();
  const edit = useEditMenu();
  const remove = useDeleteMenu();
  const move = useMoveMenu();
  const values = Form.useWatch([], form) as MenuFormValues | undefined;

  const nodes = useMemo(() => tree.data ?? [], [tree.data]);
  const current = selected === null ? undefined : findNode(nodes, selected);
  const label = (n: Pick<MenuNode, 'meta' | 'name'>) => routeTitle(n.meta, t) || n.name;

  const treeData = useMemo((): TreeDataNode[] => {
    const toData = (list: MenuNode[]): TreeDataNode[] =>
      list.map((n) => ({
        key: n.id,
        title: (
          <Space size={4} wrap data-testid={`menu-node-${n.name}`}>
            <MenuIcon name={n.meta.icon} />
            <span>{routeTitle(n.meta, t) || n.name}</span>
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {n.fullPath}
            </Typography.Text>
            {n.meta.hidden && <Tag>{t('menuAdmin.hiddenTag')}</Tag>}
          </Space>
        ),
        children: n.children ? toData(n.children) : undefined,
      }));
    return toData(nodes);
  }, [nodes, t]);

  // the live preview: the tree with the form's unsaved values in place
  const previewTree = useMemo(() => {
    if (!values || (selected === null && !draft)) return nodes;
    let body;
    try {
      body = toRecordBody({ ...EMPTY_FORM, ...values });
    } catch {
      return nodes;
    }
    const fields = { ...body, component: body.component, redirect: body.redirect };
    if (draft) {
      const node: MenuNode = { id: DRAFT_ID, fullPath: '', ...fields, name: fields.name || 'Draft' };
      if (draft.parentId === null) return [...nodes, node];
      const parent = findNode(nodes, draft.parentId);
      return parent ? replaceNode(nodes, parent.id, { children: [...(parent.children ?? []), node] }) : nodes;
    }
    return selected === null ? nodes : replaceNode(nodes, selected, fields);
  }, [nodes, values, selected, draft]);

  const select = (id: number | null) => {
    setDraft(null);
    setSelected(id);
    const node = id === null ? undefined : findNode(nodes, id);
    form.resetFields();
    if (node) form.setFieldsValue(toFormValues(node));
  };

  const startDraft = (parentId: number | null) => {
    setSelected(null);
    setDraft({ parentId });
    form.resetFields();
    form.setFieldsValue({ ...EMPTY_FORM, component: parentId === null ? 'Layout' : undefined });
  };

  const showErrors = (err: unknown) => {
    const fields = serverFieldErrors(err).flatMap((f) => {
      const name = formFieldOf(f.field);
      return name ? [{ name, errors: [sayServerMessage(f, t)] }] : [];
    });
    if (fields.length) form.setFields(fields);
    else message.error(err instanceof Error ? err.message : String(err));
  };

  const submit = async () => {
    const body = toRecordBody({ ...EMPTY_FORM, ...form.getFieldsValue(true) });
    try {
      if (draft) {
        const res = await add.mutateAsync({ parentId: draft.parentId, ...body });
        message.success(t('menuAdmin.created'));
        setDraft(null);
        setSelected(res.id);
      } else if (selected !== null) {
        await edit.mutateAsync({ id: selected, ...body });
        message.success(t('menuAdmin.saved'));
      }
    } catch (err) {
      showErrors(err);
    }
  };

  const onDrop: TreeProps['onDrop'] = (info) => {
    const pos = info.node.pos.split('-');
    const side = info.dropPosition - Number(pos[pos.length - 1]) < 0 ? -1 : 1;
    const change = dropToMove(nodes, Number(info.dragNode.key), Number(info.node.key), info.dropToGap, side);
    if (!change) return;
    move.mutate(change, { onSuccess: () => void message.success(t('menuAdmin.moved')) });
  };

  const deleteSelected = async () => {
    if (selected === null) return;
    try {
      await remove.mutateAsync(selected);
    } catch {
      return; // the request layer has said why
    }
    message.success(t('menuAdmin.deleted'));
    select(null);
  };

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }} data-testid="menu-management">
      <div>
        <Typography.Title level={4} style={{ marginTop: 0 }}>
          {t('menuAdmin.title')}
        </Typography.Title>
        <Typography.Text type="secondary">{t('menuAdmin.subtitle')}</Typography.Text>
      </div>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={9}>
          <Card
            size="small"
            title={t('menuAdmin.tree')}
            extra={
              <Button size="small" icon={<HistoryOutlined />} onClick={() => setVersionsOpen(true)}>
                {t('menuAdmin.versions')}
              </Button>
            }
          >
            <Space wrap style={{ marginBottom: 8 }}>
              <Button size="small" icon={<PlusOutlined />} onClick={() => startDraft(null)}>
                {t('menuAdmin.addTop')}
              </Button>
              <Button size="small" icon={<PlusOutlined />} disabled={!current} onClick={() => startDraft(selected)}>
                {t('menuAdmin.addChild')}
              </Button>
            </Space>
            <Spin spinning={tree.isLoading || move.isPending}>
              <Tree
                draggable={{ icon: false }}
                blockNode
                defaultExpandAll
                key={nodes.length ? 'loaded' : 'empty'}
                treeData={treeData}
                selectedKeys={selected === null ? [] : [selected]}
                onSelect={(keys) => select(keys.length ? Number(keys[0]) : null)}
                onDrop={onDrop}
              />
            </Spin>
          </Card>
        </Col>
        <Col xs={24} lg={9}>
          <Card
            size="small"
            title={draft ? t('menuAdmin.newRecord') : current ? label(current) : t('menuAdmin.form.basic')}
          >
            {!current && !draft && <Empty description={t('menuAdmin.empty')} />}
            {/* always mounted: the page watches its values for the preview */}
            <div hidden={!current && !draft}>
              <MenuForm
                form={form}
                creating={!!draft}
                saving={add.isPending || edit.isPending}
                onSubmit={() => void submit()}
                onDelete={() => void deleteSelected()}
                onCancel={() => select(null)}
                label={current ? label(current) : ''}
              />
            </div>
          </Card>
        </Col>
        <Col xs={24} lg={6}>
          <Card size="small" title={t('menuAdmin.preview.title')}>
            <MenuPreview tree={previewTree} />
          </Card>
        </Col>
      </Row>
      <VersionsDrawer open={versionsOpen} onClose={() => setVersionsOpen(false)} />
    </Space>
  );
}
