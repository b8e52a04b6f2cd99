import { Button, Checkbox, Divider, Flex, Form, Input, Popconfirm, Radio, Select, Space } from 'antd';
import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { ADMIN_ROLE, PERMISSIONS } from '@cpc/contracts/permissions';
import { GUARD_MODES, LIVE_SOURCES, ROUTE_COMPONENTS } from '@cpc/contracts/menu';
import { MENU_ICON_NAMES, MenuIcon } from '@/layout/menu-icon';
import { useFormLanguage } from '@/lib/use-form-language';
import { FLAGS, type MenuFormValues } from '../utils/menu-tree';

const PERMISSION_OPTIONS = Object.values(PERMISSIONS).map((p) => ({ value: p, label: p }));
const ROLE_OPTIONS = [{ value: ADMIN_ROLE, label: ADMIN_ROLE }];

interface MenuFormProps {
  form: FormInstance<MenuFormValues>;
  /** Adding a new record (else editing the selected one). */
  creating: boolean;
  saving: boolean;
  onSubmit: () => void;
  onDelete?: () => void;
  onCancel?: () => void;
  /** The record's name as the tree shows it, for the delete confirmation. */
  label: string;
}

/** Every field of a route record (SPEC §3): path, page, titles, icon, flags, guard, badge and dot. */
export function MenuForm({ form, creating, saving, onSubmit, onDelete, onCancel, label }: MenuFormProps) {
  const { t } = useTranslation();
  useFormLanguage(form);
  const guardKind = Form.useWatch('guardKind', form);
  const badgeKind = Form.useWatch('badgeKind', form);
  const dotKind = Form.useWatch('dotKind', form);
  const sources = LIVE_SOURCES.map((s) => ({ value: s, label: t(`menuAdmin.form.source.${s}`) }));
  const marks = (literal: string) => [
    { value: 'none', label: t('menuAdmin.form.markNone') },
    { value: 'literal', label: literal },
    { value: 'live', label: t('menuAdmin.form.markLive') },
  ];

  return (
    <Form<MenuFormValues> name="menuRecord" form={form} layout="vertical" onFinish={onSubmit} size="middle">
      <Form.Item
        name="path"
        label={t('menuAdmin.form.path')}
        extra={t('menuAdmin.form.pathHint')}
        rules={[{ required: true }]}
      >
        <Input maxLength={300} autoComplete="off" />
      </Form.Item>
      <Form.Item name="name" label={t('menuAdmin.form.name')} rules={[{ required: true }]}>
        <Input maxLength={60} autoComplete="off" />
      </Form.Item>
      <Form.Item name="component" label={t('menuAdmin.form.component')} extra={t('menuAdmin.form.componentHint')}>
        <Select allowClear showSearch options={ROUTE_COMPONENTS.map((c) => ({ value: c, label: c }))} />
      </Form.Item>
      <Form.Item name="redirect" label={t('menuAdmin.form.redirect')}>
        <Input maxLength={300} autoComplete="off" />
      </Form.Item>
      <Form.Item name="title" label={t('menuAdmin.form.titleKey')} extra={t('menuAdmin.form.titleKeyHint')}>
        <Input maxLength={100} autoComplete="off" />
      </Form.Item>
      <Flex gap={12} wrap>
        <Form.Item name="zh" label={t('menuAdmin.form.zh')} style={{ flex: '1 1 140px' }}>
          <Input maxLength={100} />
        </Form.Item>
        <Form.Item name="en" label={t('menuAdmin.form.en')} style={{ flex: '1 1 140px' }}>
          <Input maxLength={100} />
        </Form.Item>
      </Flex>
      <Form.Item name="icon" label={t('menuAdmin.form.icon')}>
        <Select
          allowClear
          showSearch
          options={MENU_ICON_NAMES.map((name) => ({
            value: name,
            label: (
              <Space>
                <MenuIcon name={name} />
                {name}
              </Space>
            ),
          }))}
          optionFilterProp="value"
        />
      </Form.Item>
      <Form.Item name="activeMenu" label={t('menuAdmin.form.activeMenu')}>
        <Input maxLength={300} autoComplete="off" />
      </Form.Item>
      <Form.Item name="target" label={t('menuAdmin.form.target')}>
        <Select
          allowClear
          options={[
            { value: '_self', label: t('menuAdmin.form.targetSelf') },
            { value: '_blank', label: t('menuAdmin.form.targetBlank') },
          ]}
        />
      </Form.Item>
      <Form.Item name="flags" label={t('menuAdmin.form.flags')}>
        <Checkbox.Group options={FLAGS.map((f) => ({ value: f, label: t(`menuAdmin.form.flag.${f}`) }))} />
      </Form.Item>

      <Divider plain>{t('menuAdmin.form.guard')}</Divider>
      <Form.Item name="guardKind">
        <Radio.Group
          options={[
            { value: 'none', label: t('menuAdmin.form.guardNone') },
            { value: 'list', label: t('menuAdmin.form.guardList') },
            { value: 'object', label: t('menuAdmin.form.guardObject') },
          ]}
        />
      </Form.Item>
      {guardKind === 'list' && (
        <Form.Item name="guardList">
          <Select mode="tags" options={[...ROLE_OPTIONS, ...PERMISSION_OPTIONS]} />
        </Form.Item>
      )}
      {guardKind === 'object' && (
        <>
          <Form.Item name="guardMode" label={t('menuAdmin.form.guardMode')}>
            <Radio.Group
              optionType="button"
              options={GUARD_MODES.map((m) => ({ value: m, label: t(`menuAdmin.form.mode.${m}`) }))}
            />
          </Form.Item>
          <Form.Item name="guardRoles" label={t('menuAdmin.form.guardRoles')}>
            <Select mode="tags" options={ROLE_OPTIONS} />
          </Form.Item>
          <Form.Item name="guardPermissions" label={t('menuAdmin.form.guardPermissions')}>
            <Select mode="tags" options={PERMISSION_OPTIONS} />
          </Form.Item>
        </>
      )}

      <Divider plain>
        {t('menuAdmin.form.badge')} / {t('menuAdmin.form.dot')}
      </Divider>
      <Form.Item name="badgeKind" label={t('menuAdmin.form.badge')}>
        <Radio.Group options={marks(t('menuAdmin.form.markLiteral'))} />
      </Form.Item>
      {badgeKind === 'literal' && (
        <Form.Item name="badgeText" label={t('menuAdmin.form.badgeText')}>
          <Input maxLength={20} />
        </Form.Item>
      )}
      {badgeKind === 'live' && (
        <Form.Item name="badgeSource">
          <Select options={sources} />
        </Form.Item>
      )}
      <Form.Item name="dotKind" label={t('menuAdmin.form.dot')}>
        <Radio.Group options={marks(t('menuAdmin.form.dotOn'))} />
      </Form.Item>
      {dotKind === 'live' && (
        <Form.Item name="dotSource">
          <Select options={sources} />
        </Form.Item>
      )}

      <Space wrap>
        <Button type="primary" htmlType="submit" loading={saving}>
          {creating ? t('menuAdmin.form.create') : t('menuAdmin.form.save')}
        </Button>
        {creating && onCancel && <Button onClick={onCancel}>{t('menuAdmin.form.cancel')}</Button>}
        {!creating && onDelete && (
          <Popconfirm
            title={t('menuAdmin.form.deleteConfirm', { name: label })}
            okText={t('menuAdmin.form.deleteOk')}
            cancelText={t('menuAdmin.form.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={onDelete}
          >
            <Button danger>{t('menuAdmin.form.delete')}</Button>
          </Popconfirm>
        )}
      </Space>
    </Form>
  );
}
