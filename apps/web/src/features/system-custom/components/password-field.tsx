import { LockOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Input, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PROFILE_PASSWORD_MAX, PROFILE_PASSWORD_MIN } from '@cpc/contracts/system-custom';

/**
 * A write-only password (kiosk exit, app-lock unlock): the server only says whether one is set. Set: "set" and a
 * "change" button that opens an empty field (leaving it keeps the current one). Not set: an empty field, required.
 */
export function PasswordField({ name, label, isSet }: { name: string; label: string; isSet: boolean }) {
  const { t } = useTranslation();
  const [changing, setChanging] = useState(!isSet);
  const form = Form.useFormInstance();
  if (!changing)
    return (
      <Form.Item label={label}>
        <Flex gap={8} align="center" wrap>
          <Tag icon={<LockOutlined />} color="green" data-testid={`${name}-set`}>
            {t('systemCustom.password.isSet')}
          </Tag>
          <Button size="small" onClick={() => setChanging(true)} data-testid={`${name}-change`}>
            {t('systemCustom.password.change')}
          </Button>
        </Flex>
      </Form.Item>
    );
  return (
    <Form.Item label={label} required={!isSet} extra={t('systemCustom.password.hint', { min: PROFILE_PASSWORD_MIN })}>
      <Flex gap={8} align="flex-start">
        <Form.Item
          name={name}
          noStyle
          rules={[
            { required: !isSet, message: t('systemCustom.password.required') },
            { min: PROFILE_PASSWORD_MIN, max: PROFILE_PASSWORD_MAX },
          ]}
        >
          <Input.Password autoComplete="new-password" style={{ flex: 1 }} data-testid={`${name}-input`} />
        </Form.Item>
        {isSet && (
          <Button
            onClick={() => {
              form.setFieldValue(name, undefined);
              setChanging(false);
            }}
          >
            {t('systemCustom.password.keep')}
          </Button>
        )}
      </Flex>
    </Form.Item>
  );
}
