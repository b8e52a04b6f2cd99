import { Alert, Button, Drawer, Form, Grid, Select, TreeSelect } from 'antd';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeviceListItem, GroupNode, GroupTree } from '@cpc/contracts/device';
import type { Paged } from '@cpc/contracts/envelope';
import { messageApi } from '@/lib/feedback';
import { request } from '@/lib/request';
import { useDebounced } from '@/lib/use-debounced';
import { useFormLanguage } from '@/lib/use-form-language';
import { useAssignProfile } from '../api/system-custom';
import { applyServerError } from '../utils/server-error';

interface Values {
  groupIds: number[];
  deviceIds: number[];
}

type TreeOption = { value: number; title: string; children: TreeOption[] };
const toTree = (nodes: GroupNode[]): TreeOption[] =>
  nodes.map((n) => ({ value: n.id, title: `${n.name} (${n.deviceCount})`, children: toTree(n.children) }));

/** Assign the profile to groups and devices; a target that had another profile of its own gets this one instead. */
export function AssignDrawer({ profileId, open, onClose }: { profileId: number; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const narrow = !Grid.useBreakpoint().sm;
  const assign = useAssignProfile();
  const [error, setError] = useState('');
  const [keyword, setKeyword] = useState('');
  const search = useDebounced(keyword, 300);
  const groups = useQuery({
    queryKey: ['system-custom', 'groups'],
    queryFn: () => request<GroupTree>({ url: '/device/group/tree', method: 'get' }),
    enabled: open,
    staleTime: 60_000,
  });
  const devices = useQuery({
    queryKey: ['system-custom', 'device-search', search],
    queryFn: () =>
      request<Paged<DeviceListItem>>({
        url: '/device/list',
        method: 'get',
        params: { pageNo: 1, pageSize: 50, ...(search ? { keyword: search } : {}) },
      }),
    enabled: open,
    placeholderData: keepPreviousData,
  });

  const submit = async (v: Values) => {
    setError('');
    if (!v.groupIds?.length && !v.deviceIds?.length) {
      form.setFields([{ name: 'deviceIds', errors: [t('systemCustom.assign.required')] }]);
      return;
    }
    try {
      const r = await assign.mutateAsync({ id: profileId, groupIds: v.groupIds ?? [], deviceIds: v.deviceIds ?? [] });
      messageApi().success(t('systemCustom.assign.done', { affected: r.affected, queued: r.queued }));
      form.resetFields();
      onClose();
    } catch (e) {
      setError(applyServerError(form, e));
    }
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('systemCustom.assign.title')}
      size={narrow ? '100%' : 480}
      destroyOnHidden
      footer={
        <Button
          type="primary"
          block
          loading={assign.isPending}
          onClick={() => form.submit()}
          data-testid="assign-submit"
        >
          {t('systemCustom.assign.submit')}
        </Button>
      }
    >
      <Form<Values>
        form={form}
        layout="vertical"
        name="assign"
        initialValues={{ groupIds: [], deviceIds: [] }}
        onFinish={(v) => void submit(v)}
      >
        <Alert type="info" showIcon title={t('systemCustom.rule.text')} style={{ marginBottom: 16 }} />
        {error && <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} />}
        <Form.Item name="groupIds" label={t('systemCustom.assign.groups')} extra={t('systemCustom.assign.groupsHint')}>
          <TreeSelect
            multiple
            treeDefaultExpandAll
            treeData={toTree(groups.data?.tree ?? [])}
            loading={groups.isPending}
            treeNodeFilterProp="title"
            data-testid="assign-groups"
          />
        </Form.Item>
        <Form.Item name="deviceIds" label={t('systemCustom.assign.devices')}>
          <Select
            mode="multiple"
            showSearch={{ filterOption: false, onSearch: setKeyword }}
            loading={devices.isFetching}
            placeholder={t('systemCustom.assign.devicesPlaceholder')}
            options={(devices.data?.list ?? []).map((d) => ({
              value: d.id,
              label: d.name ? `${d.name} (${d.sn})` : d.sn,
            }))}
            data-testid="assign-devices"
          />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
