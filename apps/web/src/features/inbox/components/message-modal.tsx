import { ArrowRightOutlined } from '@ant-design/icons';
import { Button, Flex, Modal, Skeleton, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatDateTime } from '@/lib/format/relative-time';
import { useMessage } from '../api/inbox';
import { isConsolePath } from '../utils/kinds';
import { GroupTag } from './group-tag';

/** One message, opened: reading it marks it read (the server does, on `/message/detail`); its link leads to its page. */
export function MessageModal({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const message = useMessage(id);
  const m = message.data;
  const link = m && isConsolePath(m.link) ? m.link : null;
  return (
    <Modal
      open={id !== null}
      onCancel={onClose}
      title={m?.title ?? t('inbox.detail.title')}
      destroyOnHidden
      footer={
        <Flex justify="end" gap={8}>
          <Button onClick={onClose}>{t('inbox.detail.close')}</Button>
          {link && (
            <Button
              type="primary"
              icon={<ArrowRightOutlined />}
              iconPosition="end"
              data-testid="message-open-link"
              onClick={() => {
                onClose();
                void navigate(link);
              }}
            >
              {t('inbox.detail.open')}
            </Button>
          )}
        </Flex>
      }
    >
      {message.isPending ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : message.isError || !m ? (
        <Typography.Text type="danger">{t('inbox.detail.failed')}</Typography.Text>
      ) : (
        <Flex vertical gap={12} data-testid="message-detail">
          <Flex gap={8} align="center" wrap>
            <GroupTag kind={m.kind} />
            <Typography.Text type="secondary">{formatDateTime(m.createdAt)}</Typography.Text>
          </Flex>
          {m.body ? (
            <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', margin: 0 }}>
              {m.body}
            </Typography.Paragraph>
          ) : (
            <Typography.Text type="secondary">{t('inbox.detail.noBody')}</Typography.Text>
          )}
        </Flex>
      )}
    </Modal>
  );
}
