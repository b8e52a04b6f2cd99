import { Form, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ProfileSettings } from '@cpc/contracts/system-custom';
import { AppSelect } from '../app-select';
import { PasswordField } from '../password-field';
import type { EditorFieldsProps, PartEditorDef } from './types';

type Out = NonNullable<ProfileSettings['topScreen']>;
interface Values {
  enabled: boolean;
  pkg?: string;
  /** Write-only: empty keeps the password already set. */
  exitPassword?: string;
}

function Fields({ value, readOnly }: EditorFieldsProps<Out>) {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item
        name="enabled"
        label={t('systemCustom.kiosk.enabled')}
        valuePropName="checked"
        extra={t('systemCustom.kiosk.enabledHint')}
      >
        <Switch data-testid="kiosk-enabled" />
      </Form.Item>
      <Form.Item
        name="pkg"
        label={t('systemCustom.kiosk.app')}
        rules={[{ required: true, message: t('systemCustom.apps.required') }]}
      >
        <AppSelect disabled={readOnly} testId="kiosk-app" />
      </Form.Item>
      <PasswordField name="exitPassword" label={t('systemCustom.kiosk.password')} isSet={!!value?.passwordSet} />
    </>
  );
}

export const topScreenEditor: PartEditorDef<Out, Values, { enabled: boolean; pkg: string; exitPassword?: string }> = {
  initial: (v) => ({ enabled: v?.enabled ?? true, pkg: v?.pkg }),
  toInput: (v) =>
    v.pkg ? { enabled: v.enabled, pkg: v.pkg, ...(v.exitPassword ? { exitPassword: v.exitPassword } : {}) } : null,
  Fields,
};
