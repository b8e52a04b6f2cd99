import { PlusOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Result, Segmented, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { PERMISSIONS, type SubAccountState, type SubAccountView } from '@cpc/contracts';
import { DepartmentTreeSelect } from '@/components/department-tree-select';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { useTableHeight } from '@/lib/format/table-height';
import { usePermission, useSession } from '@/lib/session';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
import {
  useDeleteSubAccount,
  useLogoutSubAccount,
  useSetSubAccountState,
  useSubAccountRoles,
  useSubAccounts,
} from '../api/sub-account';
import { roleLabel } from '../utils/role-label';
import { ResetPasswordModal } from '../components/reset-password-modal';
import { SubAccountModal } from '../components/sub-account-modal';
import { SubAccountTable, type SubAccountAction } from '../components/sub-account-table';

const PERSON_INFO_PATH = '/person/info';
// the title and the filter bar take one row more than SPEC §9's base
const EXTRA_ROWS = 1;
const MIN_TABLE_HEIGHT = 240;

type StateFilter = SubAccountState | 'all';

/**
 * Users (DESIGN §3, issue 12): a customer's sub-accounts, or the platform's staff users, listed with search by
 * name, mobile, state, department (and below) and role, paged by the server; created, edited (department and
 * roles too), disabled, reset, logged out and deleted. Needs `system:user:edit` (a main account holds it); a
 * user without it is told so and the page never calls the server. Also the page of /person/subAccount.
 */
export default function SubAccountPage() {
  const isMain = useSession((s) => (s.userInfo?.is_super ?? s.is_super) === 1 && s.userInfo?.tenantKind !== 'platform');
  const allowed = usePermission(PERMISSIONS.userEdit);
  return isMain || allowed ? <SubAccountManager /> : <MainAccountOnly />;
}

function MainAccountOnly() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <Card variant="borderless">
      <Result
        status="403"
        title={t('user.subAccount.forbidden.title')}
        subTitle={t('user.subAccount.forbidden.description')}
        extra={
          <Button type="primary" onClick={() => navigate(PERSON_INFO_PATH)}>
            {t('user.subAccount.forbidden.back')}
          </Button>
        }
      />
    </Card>
  );
}

function SubAccountManager() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const staff = useSession((s) => s.userInfo?.tenantKind === 'platform');
  const [state, setState] = useState<StateFilter>('all');
  const [keyword, setKeyword] = useState('');
  const [departmentId, setDepartmentId] = useState<number | null>(null);
  const [roleId, setRoleId] = useState<number | null>(null);
  const roles = useSubAccountRoles();
  const paging = usePaging();
  const { page } = paging;
  const [editing, setEditing] = useState<{ record: SubAccountView | null } | null>(null);
  const [resetting, setResetting] = useState<SubAccountView | null>(null);
  const scrollY = useTableHeight(EXTRA_ROWS, MIN_TABLE_HEIGHT);
  const selfId = useSession((s) => s.userInfo?.id ?? null);

  const list = useSubAccounts({
    ...page,
    keyword: keyword || undefined,
    state: state === 'all' ? undefined : state,
    departmentId: departmentId ?? undefined,
    roleId: roleId ?? undefined,
  });
  const toggle = useSetSubAccountState();
  const remove = useDeleteSubAccount();
  const logout = useLogoutSubAccount();
  const firstPage = paging.toFirst;

  useStepBackWhenEmpty(list, paging);
  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;

  const confirmToggle = (r: SubAccountView) => {
    const disabling = r.state === 'active';
    modal.confirm({
      title: t(disabling ? 'user.subAccount.confirm.disableTitle' : 'user.subAccount.confirm.enableTitle', {
        name: r.username,
      }),
      content: t(disabling ? 'user.subAccount.confirm.disableContent' : 'user.subAccount.confirm.enableContent'),
      okText: t('user.subAccount.confirm.ok'),
      cancelText: t('user.subAccount.confirm.cancel'),
      okButtonProps: disabling ? { danger: true } : undefined,
      onOk: async () => {
        try {
          await toggle.mutateAsync({ id: r.id, state: disabling ? 'disabled' : 'active' });
        } catch {
          return;
        }
        message.success(t(disabling ? 'user.subAccount.done.disabled' : 'user.subAccount.done.enabled'));
      },
    });
  };

  const confirmDelete = (r: SubAccountView) => {
    modal.confirm({
      title: t('user.subAccount.confirm.deleteTitle', { name: r.username }),
      content: t('user.subAccount.confirm.deleteContent'),
      okText: t('user.subAccount.action.delete'),
      cancelText: t('user.subAccount.confirm.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await remove.mutateAsync(r.id);
        } catch {
          return;
        }
        message.success(t('user.subAccount.done.deleted'));
      },
    });
  };

  const confirmLogout = (r: SubAccountView) => {
    modal.confirm({
      title: t('user.subAccount.confirm.logoutTitle', { name: r.username }),
      content: t('user.subAccount.confirm.logoutContent'),
      okText: t('user.subAccount.confirm.ok'),
      cancelText: t('user.subAccount.confirm.cancel'),
      onOk: async () => {
        let ended: { sessions: number };
        try {
          ended = await logout.mutateAsync(r.id);
        } catch {
          return;
        }
        message.success(t('user.subAccount.done.loggedOut', { count: ended.sessions }));
      },
    });
  };

  const onAction = (action: SubAccountAction, r: SubAccountView) => {
    if (action === 'edit') setEditing({ record: r });
    else if (action === 'resetPassword') setResetting(r);
    else if (action === 'toggle') confirmToggle(r);
    else if (action === 'logout') confirmLogout(r);
    else confirmDelete(r);
  };

  return (
    <ListPage
      title={t(staff ? 'user.subAccount.staffTitle' : 'user.subAccount.title')}
      subtitle={t(staff ? 'user.subAccount.staffSubtitle' : 'user.subAccount.subtitle')}
      action={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ record: null })}>
          {t(staff ? 'user.subAccount.staffCreate' : 'user.subAccount.create')}
        </Button>
      }
      toolbar={
        <Flex gap={12} wrap justify="space-between" align="center">
          <Segmented<StateFilter>
            aria-label={t('user.subAccount.filter.state')}
            value={state}
            onChange={(v) => {
              setState(v);
              firstPage();
            }}
            options={[
              { value: 'all', label: t('user.subAccount.filter.all') },
              { value: 'active', label: t('user.subAccount.state.active') },
              { value: 'disabled', label: t('user.subAccount.state.disabled') },
            ]}
          />
          <DepartmentTreeSelect
            aria-label={t('user.subAccount.filter.department')}
            placeholder={t('user.subAccount.filter.department')}
            value={departmentId}
            onChange={(v) => {
              setDepartmentId(v);
              firstPage();
            }}
            style={{ flex: '1 1 160px', maxWidth: 220 }}
          />
          <Select<number>
            aria-label={t('user.subAccount.filter.role')}
            placeholder={t('user.subAccount.filter.role')}
            allowClear
            value={roleId ?? undefined}
            onChange={(v) => {
              setRoleId(v ?? null);
              firstPage();
            }}
            options={(roles.data ?? []).map((r) => ({ value: r.id, label: roleLabel(r, t) }))}
            style={{ flex: '1 1 140px', maxWidth: 200 }}
          />
          <SearchAndRefresh
            placeholder={t('user.subAccount.filter.keyword')}
            refreshLabel={t('user.subAccount.filter.refresh')}
            onSearch={(v) => {
              setKeyword(v);
              firstPage();
            }}
            refreshing={list.isFetching && !list.isPending}
            onRefresh={() => void list.refetch()}
            style={{ flex: '1 1 260px', maxWidth: 420 }}
          />
        </Flex>
      }
      overlays={
        <>
          <SubAccountModal
            open={!!editing}
            record={editing?.record ?? null}
            onClose={() => setEditing(null)}
            onSaved={(created) => {
              message.success(t(created ? 'user.subAccount.done.created' : 'user.subAccount.done.updated'));
              setEditing(null);
            }}
          />
          <ResetPasswordModal
            record={resetting}
            onClose={() => setResetting(null)}
            onDone={() => {
              message.success(t('user.subAccount.done.passwordReset'));
              setResetting(null);
            }}
          />
        </>
      }
    >
      <SubAccountTable
        data={data}
        total={total}
        pageNo={page.pageNo}
        pageSize={page.pageSize}
        // a background refresh keeps the rows readable; a new page or filter shows the spinner
        loading={list.isPending || list.isPlaceholderData}
        scrollY={data.length ? scrollY : undefined}
        onPageChange={paging.onPageChange}
        onAction={onAction}
        selfId={selfId}
        staff={staff}
      />
    </ListPage>
  );
}
