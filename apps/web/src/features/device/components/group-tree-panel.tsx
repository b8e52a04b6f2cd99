import { ApartmentOutlined, DeleteOutlined, EditOutlined, MoreOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Dropdown, Flex, Skeleton, Tooltip, Tree, Typography, type TreeDataNode } from 'antd';
import { useMemo, useState, type Key, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { GroupNode } from '@cpc/contracts/device';
import { useDeleteGroup, useGroupTree } from '../api/groups';
import { ALL_KEY, UNGROUPED_KEY, groupIdOfKey, groupKey, keyOfGroupId, pathTo } from '../utils/group-tree';
import { GroupModal, type GroupDialog } from './group-modal';

interface GroupTreePanelProps {
  /** The list's group filter: undefined = every device, 0 = ungrouped. */
  selected: number | undefined;
  onSelect: (groupId: number | undefined) => void;
  canManage: boolean;
}

/** One node's title: name, the online / total count, and (for groups) the actions. */
function NodeTitle({
  name,
  online,
  total,
  actions,
}: {
  name: string;
  online?: number;
  total: number;
  actions?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Flex align="center" gap={6} style={{ minWidth: 0 }} data-group-name={name}>
      <Typography.Text ellipsis style={{ flex: 1, minWidth: 0 }}>
        {name}
      </Typography.Text>
      <Tooltip title={t('device.groups.count', { online: online ?? 0, total })}>
        <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }} data-count={total}>
          {online === undefined ? total : `${online}/${total}`}
        </Typography.Text>
      </Tooltip>
      {actions}
    </Flex>
  );
}

/** The groups as a tree with device counts (a group counts its subgroups' devices); choosing one filters the list. */
export function GroupTreePanel({ selected, onSelect, canManage }: GroupTreePanelProps) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const tree = useGroupTree();
  const remove = useDeleteGroup();
  const [dialog, setDialog] = useState<GroupDialog | null>(null);
  const [expanded, setExpanded] = useState<Key[] | null>(null);

  const confirmDelete = (g: GroupNode) => {
    modal.confirm({
      title: t('device.groups.deleteTitle', { name: g.name }),
      content: t('device.groups.deleteContent'),
      okText: t('device.groups.deleteOk'),
      cancelText: t('device.groups.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          const r = await remove.mutateAsync(g.id);
          message.success(t('device.groups.deleted', { count: r.ungroupedDevices }));
          if (selected !== undefined && selected > 0 && pathTo([g], selected).length) onSelect(undefined);
        } catch {
          // the request layer has said why
        }
      },
    });
  };

  const data = tree.data;
  const nodes = useMemo<TreeDataNode[]>(() => {
    if (!data) return [];
    const toNode = (g: GroupNode): TreeDataNode => ({
      key: groupKey(g.id),
      title: (
        <NodeTitle
          name={g.name}
          online={g.onlineCount}
          total={g.deviceCount}
          actions={
            canManage && (
              <span onClick={(e) => e.stopPropagation()}>
                <Dropdown
                  trigger={['click']}
                  menu={{
                    items: [
                      { key: 'add', icon: <PlusOutlined />, label: t('device.groups.addChild') },
                      { key: 'rename', icon: <EditOutlined />, label: t('device.groups.rename') },
                      { type: 'divider' },
                      { key: 'delete', icon: <DeleteOutlined />, danger: true, label: t('device.groups.delete') },
                    ],
                    onClick: ({ key, domEvent }) => {
                      domEvent.stopPropagation();
                      if (key === 'add') setDialog({ mode: 'add', parentId: g.id });
                      else if (key === 'rename') setDialog({ mode: 'rename', group: g });
                      else confirmDelete(g);
                    },
                  }}
                >
                  <Button
                    type="text"
                    size="small"
                    icon={<MoreOutlined />}
                    aria-label={`${t('device.groups.actions')} ${g.name}`}
                  />
                </Dropdown>
              </span>
            )
          }
        />
      ),
      children: g.children.map(toNode),
    });
    return [
      { key: ALL_KEY, title: <NodeTitle name={t('device.groups.all')} total={data.total} />, isLeaf: true },
      ...data.tree.map(toNode),
      { key: UNGROUPED_KEY, title: <NodeTitle name={t('device.ungrouped')} total={data.ungrouped} />, isLeaf: true },
    ];
    // eslint-disable-next-line react-hooks/exhaustive-deps -- confirmDelete only closes over stable values and `selected`
  }, [data, canManage, t, selected]);

  const allGroupKeys = useMemo(() => {
    const keys: string[] = [];
    const walk = (g: GroupNode) => {
      if (g.children.length) keys.push(groupKey(g.id));
      g.children.forEach(walk);
    };
    data?.tree.forEach(walk);
    return keys;
  }, [data]);

  return (
    <Flex vertical gap={8} data-testid="group-tree">
      <Flex justify="space-between" align="center">
        <Typography.Text strong>
          <ApartmentOutlined /> {t('device.groups.title')}
        </Typography.Text>
        {canManage && (
          <Button
            size="small"
            type="link"
            icon={<PlusOutlined />}
            onClick={() => setDialog({ mode: 'add', parentId: null })}
          >
            {t('device.groups.add')}
          </Button>
        )}
      </Flex>
      {tree.isPending ? (
        <Skeleton active paragraph={{ rows: 4 }} title={false} />
      ) : (
        <Tree
          blockNode
          showLine={false}
          treeData={nodes}
          selectedKeys={[keyOfGroupId(selected)]}
          // every group with subgroups starts open; the user may fold them
          expandedKeys={expanded ?? allGroupKeys}
          onExpand={(keys) => setExpanded(keys)}
          onSelect={(keys, info) => onSelect(groupIdOfKey(String(keys[0] ?? info.node.key)))}
        />
      )}
      {data && !data.tree.length && (
        <Typography.Text type="secondary" style={{ fontSize: 12, paddingInlineStart: 4 }}>
          {t('device.groups.empty')}
        </Typography.Text>
      )}
      <GroupModal dialog={dialog} onClose={() => setDialog(null)} />
    </Flex>
  );
}
