import { Alert, Button, Descriptions, Flex, Modal, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { AppKeyWithSecret } from '@cpc/contracts/integration';
import { CopyButton } from './code-block';

interface SecretModalProps {
  /** The answer of create or rotate. */
  shown: { key: AppKeyWithSecret; rotated: boolean };
  onClose: () => void;
}

/**
 * The one time a secret is on screen: copy it now. The parent unmounts this on close rather than animating it
 * out, so the secret leaves the page at once (a closing antd modal keeps its last content until it is hidden).
 */
export function SecretModal({ shown, onClose }: SecretModalProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { key, rotated } = shown;
  return (
    <Modal
      open
      title={rotated ? t('integration.secret.rotatedTitle') : t('integration.secret.createdTitle')}
      onCancel={onClose}
      maskClosable={false}
      keyboard={false}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose}>
          {t('integration.secret.done')}
        </Button>
      }
      data-testid="secret-modal"
    >
      <Flex vertical gap={16}>
        <Alert
          type="warning"
          showIcon
          title={t('integration.secret.warningTitle')}
          description={rotated ? t('integration.secret.warningRotated') : t('integration.secret.warning')}
        />
        <Descriptions column={1} size="small" bordered>
          <Descriptions.Item label={t('integration.column.name')}>{key.name}</Descriptions.Item>
          <Descriptions.Item label={t('integration.column.appId')}>
            <Typography.Text code copyable={{ text: key.appId }}>
              {key.appId}
            </Typography.Text>
          </Descriptions.Item>
        </Descriptions>
        <div>
          <Typography.Text strong>{t('integration.secret.label')}</Typography.Text>
          <Flex gap={8} align="center" style={{ marginTop: 6 }}>
            <code
              data-testid="secret-value"
              style={{
                flex: 1,
                minWidth: 0,
                padding: '8px 10px',
                fontFamily: token.fontFamilyCode,
                fontSize: 13,
                wordBreak: 'break-all',
                background: token.colorFillTertiary,
                borderRadius: token.borderRadius,
                userSelect: 'all',
              }}
            >
              {key.secret}
            </code>
            <CopyButton text={key.secret} label={t('integration.secret.copy')} testId="secret-copy" />
          </Flex>
        </div>
      </Flex>
    </Modal>
  );
}
