import type { ReactNode } from 'react';
import { CheckCircleOutlined, ClockCircleOutlined, CloseCircleOutlined, MinusCircleOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

const LOOK: Record<number, { color: string; icon: ReactNode }> = {
  0: { color: 'default', icon: <MinusCircleOutlined /> },
  1: { color: 'success', icon: <CheckCircleOutlined /> },
  2: { color: 'processing', icon: <ClockCircleOutlined /> },
  3: { color: 'error', icon: <CloseCircleOutlined /> },
};

export function IdentityStatusTag({ status }: { status: number }) {
  const { t } = useTranslation();
  const look = LOOK[status] ?? LOOK[0];
  return (
    <Tag color={look.color} icon={look.icon}>
      {t(`identity.status.${status}`, { defaultValue: String(status) })}
    </Tag>
  );
}
