import { Alert, App, Button, Card, Flex, Form, Space, Typography } from 'antd';
import { useState, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import type { ProfileDetail, ProfileSettings, SystemCustomPart } from '@cpc/contracts/system-custom';
import { messageApi } from '@/lib/feedback';
import { usePermission } from '@/lib/session';
import { useFormLanguage } from '@/lib/use-form-language';
import { useUpdateProfile } from '../api/system-custom';
import { applyServerError } from '../utils/server-error';
import { EDITORS } from './editors/registry';
import type { EditorFieldsProps } from './editors/types';

/**
 * This page's part of the chosen profile: the draft's value when there is one, else the latest published version's.
 * Saving writes the draft (devices keep what they run until it is published); "save and publish" sends it to every
 * device the profile governs; "remove" takes the part out of the profile. A refusal stands beside its field, or above
 * the form when it names none.
 */
export function PartEditor({ profile, part }: { profile: ProfileDetail; part: SystemCustomPart }) {
  const shown = profile.draft ?? profile.current;
  const value = shown?.settings[part] ?? null;
  // a new draft or a new version (saved here or elsewhere) starts the form again from what the server holds
  return (
    <PartForm
      key={`${profile.id}:${shown?.id ?? 0}:${shown?.hash ?? ''}`}
      profile={profile}
      part={part}
      value={value}
    />
  );
}

function PartForm({
  profile,
  part,
  value,
}: {
  profile: ProfileDetail;
  part: SystemCustomPart;
  value: ProfileSettings[SystemCustomPart];
}) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const canEdit = usePermission(PERMISSIONS.systemCustomEdit);
  const [form] = Form.useForm<Record<string, unknown>>();
  useFormLanguage(form);
  const update = useUpdateProfile();
  const [error, setError] = useState('');
  const [pending, setPending] = useState<'save' | 'publish' | 'remove' | null>(null);
  const editor = EDITORS[part];
  const Fields = editor.Fields as ComponentType<EditorFieldsProps<unknown>>;

  const send = async (input: unknown, publish: boolean, kind: 'save' | 'publish' | 'remove') => {
    setError('');
    setPending(kind);
    try {
      await update.mutateAsync({ id: profile.id, [part]: input, publish });
      messageApi().success(
        kind === 'remove'
          ? t('systemCustom.editor.removed')
          : publish
            ? t('systemCustom.editor.savedPublished')
            : t('systemCustom.editor.saved'),
      );
    } catch (e) {
      setError(applyServerError(form, e));
    } finally {
      setPending(null);
    }
  };
  const save = async (publish: boolean) => {
    const v = await form.validateFields().catch(() => null);
    if (!v) return;
    const input = editor.toInput(form.getFieldsValue(true) as never, value as never);
    if (input === null) return;
    await send(input, publish, publish ? 'publish' : 'save');
  };
  const remove = () =>
    modal.confirm({
      title: t('systemCustom.editor.removeTitle', { part: t(`systemCustom.part.${part}`) }),
      content: t('systemCustom.editor.removeText'),
      okText: t('systemCustom.editor.remove'),
      okButtonProps: { danger: true },
      cancelText: t('systemCustom.form.cancel'),
      onOk: () => send(null, false, 'remove'),
    });

  return (
    <Card
      variant="borderless"
      title={t(`systemCustom.part.${part}`)}
      data-testid="part-editor"
      data-part={part}
      extra={
        <Typography.Text type={value ? 'success' : 'secondary'} data-testid="part-state">
          {value ? t('systemCustom.editor.isSet') : t('systemCustom.editor.notSet')}
        </Typography.Text>
      }
    >
      <Flex vertical gap={16}>
        <Typography.Text type="secondary">{t(`systemCustom.editor.hint.${part}`)}</Typography.Text>
        {error && (
          <Alert
            type="error"
            showIcon
            title={error}
            closable={{ onClose: () => setError('') }}
            data-testid="editor-error"
          />
        )}
        <Form
          form={form}
          layout="vertical"
          name={`part-${part}`}
          disabled={!canEdit}
          initialValues={editor.initial(value as never) as Record<string, unknown>}
        >
          <Fields form={form} value={value} readOnly={!canEdit} />
        </Form>
        {canEdit && (
          <Space wrap>
            <Button onClick={() => void save(false)} loading={pending === 'save'} data-testid="part-save">
              {t('systemCustom.editor.save')}
            </Button>
            <Button
              type="primary"
              onClick={() => void save(true)}
              loading={pending === 'publish'}
              data-testid="part-save-publish"
            >
              {t('systemCustom.editor.saveAndPublish')}
            </Button>
            {value && (
              <Button danger type="text" onClick={remove} loading={pending === 'remove'}>
                {t('systemCustom.editor.remove')}
              </Button>
            )}
          </Space>
        )}
      </Flex>
    </Card>
  );
}
