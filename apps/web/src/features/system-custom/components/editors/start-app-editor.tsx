import { Form, InputNumber } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ProfileSettings } from '@cpc/contracts/system-custom';
import { AppSelect } from '../app-select';
import type { EditorFieldsProps, PartEditorDef } from './types';

type Out = NonNullable<ProfileSettings['defaultStartApp']>;
interface Values {
  pkg?: string;
  delaySec: number;
}

function Fields({ readOnly }: EditorFieldsProps<Out>) {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item
        name="pkg"
        label={t('systemCustom.startApp.app')}
        extra={t('systemCustom.startApp.appHint')}
        rules={[{ required: true, message: t('systemCustom.apps.required') }]}
      >
        <AppSelect disabled={readOnly} testId="start-app" />
      </Form.Item>
      <Form.Item name="delaySec" label={t('systemCustom.startApp.delay')} extra={t('systemCustom.startApp.delayHint')}>
        <InputNumber min={0} max={600} precision={0} suffix={t('systemCustom.seconds')} style={{ width: 160 }} />
      </Form.Item>
    </>
  );
}

export const startAppEditor: PartEditorDef<Out, Values, { pkg: string; delaySec: number }> = {
  initial: (v) => ({ pkg: v?.pkg, delaySec: v?.delaySec ?? 0 }),
  toInput: (v) => (v.pkg ? { pkg: v.pkg, delaySec: v.delaySec } : null),
  Fields,
};
