import { CheckCircleFilled } from '@ant-design/icons';
import { Card, Flex, Tag, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import type { PackageView } from '@cpc/contracts/order';
import { formatFen, formatMb } from '@/lib/format/money';

interface PackageCardProps {
  pkg: PackageView;
  selected: boolean;
  onSelect: () => void;
}

/** One package of the store: data, validity, price (from fen), and what it fits. */
export function PackageCard({ pkg, selected, onSelect }: PackageCardProps) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  return (
    <Card
      hoverable
      role="radio"
      aria-checked={selected}
      tabIndex={0}
      data-testid={`package-${pkg.id}`}
      onClick={onSelect}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onSelect();
        }
      }}
      style={{
        height: '100%',
        borderColor: selected ? token.colorPrimary : undefined,
        boxShadow: selected ? `0 0 0 1px ${token.colorPrimary}` : undefined,
      }}
      styles={{ body: { padding: 16 } }}
    >
      <Flex vertical gap={6}>
        <Flex justify="space-between" align="flex-start" gap={8}>
          <Typography.Text strong ellipsis={{ tooltip: pkg.name }}>
            {pkg.name}
          </Typography.Text>
          {selected && <CheckCircleFilled style={{ color: token.colorPrimary }} />}
        </Flex>
        <Typography.Title level={3} style={{ margin: 0 }}>
          {formatMb(pkg.dataMb)}
        </Typography.Title>
        <Typography.Text type="secondary">{t('order.mall.validity', { n: pkg.validityDays })}</Typography.Text>
        <Typography.Text style={{ fontSize: 20, color: token.colorError }}>{formatFen(pkg.priceFen)}</Typography.Text>
        <Flex wrap gap={4}>
          <Tag style={{ marginInlineEnd: 0 }}>
            {pkg.carriers.length
              ? t('order.mall.carriers', {
                  list: pkg.carriers.map((c) => t(`order.carrier.${c as 'cmcc' | 'cucc' | 'ctcc'}`)).join(' / '),
                })
              : t('order.mall.allCarriers')}
          </Tag>
          {pkg.perSimLimit != null && (
            <Tag color="orange" style={{ marginInlineEnd: 0 }}>
              {t('order.mall.perSimLimit', { n: pkg.perSimLimit })}
            </Tag>
          )}
        </Flex>
      </Flex>
    </Card>
  );
}
