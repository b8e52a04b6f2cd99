import { Descriptions, Flex, Image, Tag, Typography, theme } from 'antd';
import type { DescriptionsProps } from 'antd';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { IdentityView } from '@cpc/contracts';
import { imageUrl, type ImageField } from '../utils/submission';
import { maskCreditCode, maskIdNumber } from '@/lib/format/mask';

const when = (v: string | null) => (v ? dayjs(v).format('YYYY-MM-DD HH:mm') : '-');

/** What the tenant submitted for review, with its images opening large on click. */
export function SubmissionDetails({ submission }: { submission: IdentityView }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const individual = submission.type === 'individual';

  const images: Array<{ field: ImageField; label: string }> = individual
    ? [
        { field: 'idFrontKey', label: t('auth.authenticate.form.idFront') },
        { field: 'idBackKey', label: t('auth.authenticate.form.idBack') },
      ]
    : [{ field: 'licenceKey', label: t('auth.authenticate.form.licenceImage') }];
  const shown = images.map((i) => ({ ...i, url: imageUrl(submission.images, i.field) })).filter((i) => i.url);

  const items: DescriptionsProps['items'] = [
    { key: 'account', label: t('auth.authenticate.details.account'), children: submission.username },
    {
      key: 'type',
      label: t('auth.authenticate.details.type'),
      children: <Tag color={individual ? 'blue' : 'purple'}>{t(`auth.authenticate.type.${submission.type}`)}</Tag>,
    },
    ...(individual
      ? [
          { key: 'realName', label: t('auth.authenticate.form.realName'), children: submission.realName ?? '-' },
          { key: 'idNumber', label: t('auth.authenticate.form.idNumber'), children: maskIdNumber(submission.idNumber) },
        ]
      : [
          {
            key: 'companyName',
            label: t('auth.authenticate.form.companyName'),
            children: submission.companyName ?? '-',
          },
          {
            key: 'creditCode',
            label: t('auth.authenticate.form.creditCode'),
            children: maskCreditCode(submission.creditCode),
          },
          {
            key: 'legalPerson',
            label: t('auth.authenticate.form.legalPerson'),
            children: submission.legalPerson ?? '-',
          },
        ]),
    { key: 'submittedAt', label: t('auth.authenticate.details.submittedAt'), children: when(submission.submittedAt) },
    ...(submission.reviewedAt
      ? [{ key: 'reviewedAt', label: t('auth.authenticate.details.reviewedAt'), children: when(submission.reviewedAt) }]
      : []),
  ];

  return (
    <Flex vertical gap={16}>
      <Descriptions
        title={t('auth.authenticate.details.title')}
        bordered
        size="small"
        column={{ xs: 1, sm: 1, md: 2 }}
        items={items}
      />
      {shown.length > 0 && (
        <Image.PreviewGroup>
          <Flex gap={16} wrap>
            {shown.map((i) => (
              <Flex key={i.field} vertical gap={6} align="center">
                <Image
                  src={i.url}
                  alt={i.label}
                  width={200}
                  height={126}
                  style={{ objectFit: 'cover', borderRadius: token.borderRadiusLG }}
                />
                <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
                  {i.label}
                </Typography.Text>
              </Flex>
            ))}
          </Flex>
        </Image.PreviewGroup>
      )}
    </Flex>
  );
}
