import { Form, Input, Modal, Select, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { DataScope, SubAccountView } from '@cpc/contracts';
import { EMAIL_MAX, NICKNAME_MAX } from '@cpc/contracts/validators';
import { useCreateSubAccount, useSubAccountRoles, useUpdateSubAccount } from '../api/sub-account';
import { toFormFieldErrors } from '../utils/field-errors';
import { roleHint, roleLabel } from '../utils/role-label';
import { checkConfirm, checks, toRule } from '../utils/rules';
import { useFormLanguage } from '@/lib/use-form-language';
import { DepartmentTreeSelect } from '@/components/department-tree-select';
import { useDepartmentTree } from '@/lib/department-api';
import { useDepartmentReach } from '@/lib/department-reach';
import { useSession } from '@/lib/session';

interface Values {
  username: string;
  nickname: string;
  mobile: string;
  email: string;
  password: string;
  confirmPassword: string;
  roleIds: number[];
  departmentId: number | null;
}
const FIELDS = [
  'username',
  'nickname',
  'mobile',
  'email',
  'password',
  'confirmPassword',
  'roleIds',
  'departmentId',
] as const;

/** own < department < all: the server refuses to give a role whose scope is wider than the giver's own. */
const RANK: Record<DataScope, number> = { own: 0, department: 1, all: 2 };

interface SubAccountModalProps {
  open: boolean;
  /** The sub-account to edit; none creates a new one. */
  record: SubAccountView | null;
  onClose: () => void;
  onSaved: (created: boolean) => void;
}

/** Create (user name, initial password, …) or edit (nickname, mobile, e-mail, roles) a sub-account. */
export function SubAccountModal({ open, record, onClose, onSaved }: SubAccountModalProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const roles = useSubAccountRoles();
  const mine = useSession((s) => s.userInfo?.dataScope ?? 'all');
  const ownDepartment = useSession((s) => s.userInfo?.departmentId ?? null);
  const reach = useDepartmentReach(useDepartmentTree().data);
  const create = useCreateSubAccount();
  const update = useUpdateSubAccount();
  const editing = !!record;

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (record) {
      form.setFieldsValue({
        nickname: record.nickname,
        mobile: record.mobile ?? '',
        email: record.email,
        roleIds: record.roles.map((r) => r.id),
        departmentId: record.departmentId,
      });
    } else if (mine === 'department') {
      // a department-scoped user cannot leave a new user in no department: its own is the nearest choice
      form.setFieldsValue({ departmentId: ownDepartment });
    }
  }, [open, record, form, mine, ownDepartment]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const common = {
      nickname: (values.nickname ?? '').trim(),
      mobile: (values.mobile ?? '').trim(),
      email: (values.email ?? '').trim(),
      roleIds: values.roleIds ?? [],
      departmentId: values.departmentId ?? null,
    };
    try {
      if (record) await update.mutateAsync({ id: record.id, ...common });
      else
        await create.mutateAsync({
          ...common,
          username: values.username.trim(),
          password: values.password,
          confirmPassword: values.confirmPassword,
        });
    } catch (err) {
      form.setFields(toFormFieldErrors(err, FIELDS, t));
      return;
    }
    onSaved(!record);
  };

  return (
    <Modal
      open={open}
      title={
        record ? t('user.subAccount.form.editTitle', { name: record.username }) : t('user.subAccount.form.createTitle')
      }
      okText={record ? t('user.subAccount.form.save') : t('user.subAccount.form.create')}
      cancelText={t('user.subAccount.form.cancel')}
      confirmLoading={create.isPending || update.isPending}
      onOk={() => void submit()}
      onCancel={onClose}
      forceRender
    >
      <Form<Values>
        name="subAccount"
        form={form}
        layout="vertical"
        initialValues={{ nickname: '', mobile: '', email: '', roleIds: [], departmentId: null }}
        onFinish={() => void submit()}
      >
        {editing ? (
          <Form.Item label={t('user.subAccount.form.username')}>
            <Typography.Text strong>{record.username}</Typography.Text>
          </Form.Item>
        ) : (
          <Form.Item
            name="username"
            label={t('user.subAccount.form.username')}
            extra={t('user.subAccount.form.usernameHint')}
            rules={[toRule(checks.username, t)]}
            required
          >
            <Input maxLength={20} autoComplete="off" placeholder={t('user.subAccount.form.usernamePlaceholder')} />
          </Form.Item>
        )}
        <Form.Item name="nickname" label={t('user.subAccount.form.nickname')} rules={[toRule(checks.nickname, t)]}>
          <Input maxLength={NICKNAME_MAX + 10} placeholder={t('user.subAccount.form.nicknamePlaceholder')} />
        </Form.Item>
        <Form.Item name="mobile" label={t('user.subAccount.form.mobile')} rules={[toRule(checks.optionalMobile, t)]}>
          <Input maxLength={11} inputMode="numeric" placeholder={t('user.subAccount.form.mobilePlaceholder')} />
        </Form.Item>
        <Form.Item name="email" label={t('user.subAccount.form.email')} rules={[toRule(checks.email, t)]}>
          <Input type="email" maxLength={EMAIL_MAX + 10} placeholder={t('user.subAccount.form.emailPlaceholder')} />
        </Form.Item>
        {!editing && (
          <>
            <Form.Item
              name="password"
              label={t('user.subAccount.form.password')}
              rules={[toRule(checks.strongPassword, t)]}
              required
            >
              <Input.Password
                maxLength={16}
                autoComplete="new-password"
                placeholder={t('user.subAccount.form.passwordPlaceholder')}
              />
            </Form.Item>
            <Form.Item
              name="confirmPassword"
              label={t('user.subAccount.form.confirmPassword')}
              dependencies={['password']}
              rules={[({ getFieldValue }) => toRule(checkConfirm(getFieldValue('password')), t)]}
              required
            >
              <Input.Password
                maxLength={16}
                autoComplete="new-password"
                placeholder={t('user.subAccount.form.confirmPlaceholder')}
              />
            </Form.Item>
          </>
        )}
        <Form.Item name="departmentId" label={t('user.subAccount.form.department')}>
          <DepartmentTreeSelect
            placeholder={t('user.subAccount.form.departmentPlaceholder')}
            selectable={reach.canPlaceIn}
            allowClear={reach.canPlaceInNone}
          />
        </Form.Item>
        <Form.Item name="roleIds" label={t('user.subAccount.form.roles')} extra={t('user.subAccount.form.rolesHint')}>
          <Select
            mode="multiple"
            allowClear
            loading={roles.isPending}
            placeholder={t('user.subAccount.form.rolesPlaceholder')}
            optionFilterProp="label"
            options={(roles.data ?? []).map((r) => {
              const tooWide = RANK[r.dataScope] > RANK[mine];
              return {
                value: r.id,
                label: roleLabel(r, t),
                disabled: tooWide,
                hint: tooWide ? t('user.subAccount.form.roleTooWide') : roleHint(r, t),
              };
            })}
            optionRender={(o) => (
              <span title={o.data.disabled ? o.data.hint : undefined}>
                {o.label}
                {o.data.hint && (
                  <Typography.Text type="secondary" style={{ marginInlineStart: 8, fontSize: 12 }}>
                    {o.data.hint}
                  </Typography.Text>
                )}
              </span>
            )}
          />
        </Form.Item>
        {/* Enter in a field submits the form */}
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
