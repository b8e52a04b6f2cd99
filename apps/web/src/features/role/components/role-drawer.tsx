import { Alert, Button, Drawer, Flex, Form, Grid, Input, Select, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DATA_SCOPES, type DataScope } from '@cpc/contracts';
import type { RoleView } from '@cpc/contracts/role';
import { useFormLanguage } from '@/lib/use-form-language';
import { useSession } from '@/lib/session';
import { useCatalogue, useCreateRole, useUpdateRole } from '../api/role';
import { CODE_MAX, DESCRIPTION_MAX, NAME_MAX, checkCode, checkName, formFieldErrors, toRule } from '../utils/rules';
import { PermissionTree } from './permission-tree';

interface Values {
  name: string;
  code: string;
  dataScope: DataScope;
  description: string;
  permissions: string[];
}
const FIELDS = ['name', 'code', 'dataScope', 'description', 'permissions'] as const;
const DEFAULTS: Values = { name: '', code: '', dataScope: 'all', description: '', permissions: [] };
/** The scopes from narrowest to widest: nobody gives one wider than their own (the server refuses it). */
const RANK: Record<DataScope, number> = { own: 0, department: 1, all: 2 };

interface RoleDrawerProps {
  open: boolean;
  /** The role to edit; none creates one. */
  record: RoleView | null;
  onClose: () => void;
  onSaved: (role: RoleView, created: boolean) => void;
}

/** Create or edit a role: name, code, data scope, description and the permission tree. */
export function RoleDrawer({ open, record, onClose, onSaved }: RoleDrawerProps) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const catalogue = useCatalogue();
  const create = useCreateRole();
  const update = useUpdateRole();
  const [problem, setProblem] = useState<string | null>(null);
  const locked = record?.locked ?? false;
  const mine = useSession((s) => s.userInfo?.dataScope ?? 'all');

  useEffect(() => {
    if (!open) return;
    setProblem(null);
    form.resetFields();
    form.setFieldsValue(
      record
        ? {
            name: record.name,
            code: record.code,
            dataScope: record.dataScope,
            description: record.description,
            permissions: record.permissions,
          }
        : { ...DEFAULTS, dataScope: mine },
    );
  }, [open, record, form, mine]);

  const submit = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    setProblem(null);
    const body = {
      name: values.name.trim(),
      code: values.code.trim(),
      dataScope: values.dataScope,
      description: (values.description ?? '').trim(),
      permissions: values.permissions ?? [],
    };
    try {
      const saved = record ? await update.mutateAsync({ id: record.id, ...body }) : await create.mutateAsync(body);
      onSaved(saved, !record);
    } catch (err) {
      const { fields, rest } = formFieldErrors(err, FIELDS, t);
      form.setFields(fields);
      setProblem(rest);
    }
  };

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size={screens.sm ? 560 : '100%'}
      title={record ? t('role.form.editTitle', { name: record.name }) : t('role.form.createTitle')}
      forceRender
      extra={
        <Flex gap={8}>
          <Button onClick={onClose}>{t('role.cancel')}</Button>
          <Button type="primary" loading={create.isPending || update.isPending} onClick={() => void submit()}>
            {record ? t('role.form.save') : t('role.form.create')}
          </Button>
        </Flex>
      }
    >
      <Form<Values> name="role" form={form} layout="vertical" initialValues={DEFAULTS} onFinish={() => void submit()}>
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Form.Item name="name" label={t('role.form.name')} rules={[toRule(checkName, t)]} required>
          <Input maxLength={NAME_MAX + 10} placeholder={t('role.form.namePlaceholder')} />
        </Form.Item>
        <Form.Item
          name="code"
          label={t('role.form.code')}
          extra={t('role.form.codeHint')}
          rules={[toRule(checkCode, t)]}
          required
        >
          <Input maxLength={CODE_MAX} autoComplete="off" placeholder="printer" disabled={locked} />
        </Form.Item>
        <Form.Item name="dataScope" label={t('role.form.dataScope')} extra={t('role.form.dataScopeHint')}>
          <Select
            disabled={locked}
            options={DATA_SCOPES.map((s) => ({
              value: s,
              label: t(`role.scope.${s}`),
              disabled: RANK[s] > RANK[mine],
            }))}
          />
        </Form.Item>
        <Form.Item name="description" label={t('role.form.description')}>
          <Input.TextArea maxLength={DESCRIPTION_MAX} rows={2} showCount />
        </Form.Item>
        <Form.Item
          name="permissions"
          label={t('role.form.permissions')}
          extra={locked ? t('role.form.lockedHint') : t('role.form.permissionsHint')}
        >
          {catalogue.data ? (
            <PermissionTree sections={catalogue.data} kept={record?.permissions} disabled={locked} />
          ) : (
            <Typography.Text type="secondary">{t('role.loading')}</Typography.Text>
          )}
        </Form.Item>
        <button type="submit" hidden aria-hidden tabIndex={-1} />
      </Form>
    </Drawer>
  );
}
