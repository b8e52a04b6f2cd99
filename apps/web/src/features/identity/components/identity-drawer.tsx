import { CheckOutlined, CloseOutlined } from '@ant-design/icons';
import { Button, Descriptions, Drawer, Empty, Flex, Grid, Image, Tag, Typography, theme } from 'antd';
import type { DescriptionsProps } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { IdentityView } from '@cpc/contracts';
import { AUTH_STATUS } from '@cpc/contracts/constants';
import { imageLabelKey, orderedImages } from '../utils/images';
import { IdentityStatusTag } from './status-tag';

interface IdentityDrawerProps {
  record: IdentityView | null;
  canReview: boolean;
  approving: boolean;
  onClose: () => void;
  onApprove: (record: IdentityView) => void;
  onReject: (record: IdentityView) => void;
}

const when = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm:ss') : '-');

/** Everything a reviewer needs to decide: the submitted text in full and the documents, opening large. */
export function IdentityDrawer({ record, canReview, approving, onClose, onApprove, onReject }: IdentityDrawerProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const screens = Grid.useBreakpoint();
  const none = t('identity.none');

  const items: DescriptionsProps['items'] = record
    ? [
        { key: 'account', label: t('identity.detail.account'), children: record.username },
        { key: 'mobile', label: t('identity.detail.mobile'), children: record.mobile ?? none },
        {
          key: 'type',
          label: t('identity.detail.type'),
          children: (
            <Tag color={record.type === 'individual' ? 'blue' : 'purple'}>{t(`identity.type.${record.type}`)}</Tag>
          ),
        },
        { key: 'status', label: t('identity.detail.status'), children: <IdentityStatusTag status={record.status} /> },
        ...(record.type === 'individual'
          ? [
              { key: 'realName', label: t('identity.detail.realName'), children: record.realName ?? none },
              {
                key: 'idNumber',
                label: t('identity.detail.idNumber'),
                children: <Typography.Text copyable={!!record.idNumber}>{record.idNumber ?? none}</Typography.Text>,
              },
            ]
          : [
              { key: 'companyName', label: t('identity.detail.companyName'), children: record.companyName ?? none },
              {
                key: 'creditCode',
                label: t('identity.detail.creditCode'),
                children: <Typography.Text copyable={!!record.creditCode}>{record.creditCode ?? none}</Typography.Text>,
              },
              { key: 'legalPerson', label: t('identity.detail.legalPerson'), children: record.legalPerson ?? none },
            ]),
        { key: 'submittedAt', label: t('identity.detail.submittedAt'), children: when(record.submittedAt) },
        { key: 'reviewedAt', label: t('identity.detail.reviewedAt'), children: when(record.reviewedAt) },
        ...(record.status === AUTH_STATUS.failed
          ? [{ key: 'reason', label: t('identity.detail.reason'), children: record.reason || none }]
          : []),
      ]
    : [];

  const images = record ? orderedImages(record.images ?? {}) : [];
  const waiting = record?.status === AUTH_STATUS.waiting;

  return (
    <Drawer
      open={!!record}
      onClose={onClose}
      title={t('identity.detail.title')}
      size={screens.md ? 720 : '100%'}
      destroyOnHidden
      footer={
        record && waiting && canReview ? (
          <Flex justify="flex-end" gap={8}>
            <Button danger icon={<CloseOutlined />} onClick={() => onReject(record)}>
              {t('identity.action.reject')}
            </Button>
            <Button type="primary" icon={<CheckOutlined />} loading={approving} onClick={() => onApprove(record)}>
              {t('identity.action.approve')}
            </Button>
          </Flex>
        ) : null
      }
    >
      {record && (
        <Flex vertical gap={24}>
          <Descriptions bordered size="small" column={1} items={items} styles={{ label: { width: 160 } }} />
          <div>
            <Flex justify="space-between" align="baseline" wrap gap={8} style={{ marginBottom: 12 }}>
              <Typography.Title level={5} style={{ margin: 0 }}>
                {t('identity.detail.images')}
              </Typography.Title>
              {images.length > 0 && (
                <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
                  {t('identity.detail.openHint')}
                </Typography.Text>
              )}
            </Flex>
            {images.length === 0 ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('identity.detail.noImages')} />
            ) : (
              <Image.PreviewGroup>
                <Flex gap={16} wrap>
                  {images.map(({ name, url }) => {
                    const key = imageLabelKey(name);
                    const label = key ? t(`identity.detail.image.${key}`) : t('identity.detail.image.other', { name });
                    return (
                      <Flex key={name} vertical gap={6} style={{ flex: '1 1 300px', maxWidth: '100%' }}>
                        <Image
                          src={url}
                          alt={label}
                          width="100%"
                          style={{
                            aspectRatio: '1.58 / 1',
                            objectFit: 'contain',
                            background: token.colorFillTertiary,
                            borderRadius: token.borderRadiusLG,
                          }}
                        />
                        <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM, textAlign: 'center' }}>
                          {label}
                        </Typography.Text>
                      </Flex>
                    );
                  })}
                </Flex>
              </Image.PreviewGroup>
            )}
          </div>
        </Flex>
      )}
    </Drawer>
  );
}
