import { Form, Radio } from 'antd';
import { useTranslation } from 'react-i18next';
import { APP_LOCK_MODES, type ProfileSettings } from '@cpc/contracts/system-custom';
import { AppSelect } from '../app-select';
import { PasswordField } from '../password-field';
import type { EditorFieldsProps, PartEditorDef } from './types';

type Out = NonNullable<ProfileSettings['appLock']>;
type Mode = (typeof APP_LOCK_MODES)[number];
interface Values {
  mode: Mode;
  packages: string[];
  /** Write-only: empty keeps the password already set. */
  unlockPassword?: string;
}

function Fields({ form, value, readOnly }: EditorFieldsProps<Out>) {
  const { t } = useTranslation();
  const mode = (Form.useWatch('mode', form) as Mode | undefined) ?? 'allow';
  return (
    <>
      <Form.Item name="mode" label={t('systemCustom.lock.mode')} extra={t(`systemCustom.lock.modeHint.${mode}`)}>
        <Radio.Group
          optionType="button"
          options={APP_LOCK_MODES.map((m) => ({ value: m, label: t(`systemCustom.lock.modes.${m}`) }))}
        />
      </Form.Item>
      <Form.Item
        name="packages"
        label={t(`systemCustom.lock.packages.${mode}`)}
        extra={t('systemCustom.lock.packagesHint')}
        rules={[{ required: true, type: 'array', min: 1, message: t('systemCustom.lock.packagesRequired') }]}
      >
        <AppSelect multiple disabled={readOnly} testId="lock-packages" />
      </Form.Item>
      <PasswordField name="unlockPassword" label={t('systemCustom.lock.password')} isSet={!!value?.passwordSet} />
    </>
  );
}

export const appLockEditor: PartEditorDef<Out, Values, { mode: Mode; packages: string[]; unlockPassword?: string }> = {
  initial: (v) => ({ mode: v?.mode ?? 'allow', packages: v?.packages ?? [] }),
  toInput: (v) => ({
    mode: v.mode,
    packages: v.packages,
    ...(v.unlockPassword ? { unlockPassword: v.unlockPassword } : {}),
  }),
  Fields,
};
