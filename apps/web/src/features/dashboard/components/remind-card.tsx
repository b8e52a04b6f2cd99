import {
  CheckCircleFilled,
  DisconnectOutlined,
  FileExclamationOutlined,
  RightOutlined,
  SignalFilled,
} from '@ant-design/icons';
import { Badge, Flex, Tag, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { DashboardOverview, RemindDevice } from '@cpc/contracts/dashboard';
import { OFFLINE_REMIND_HOURS } from '@cpc/contracts/device-constants';
import { formatRelativeTime } from '@/lib/format/relative-time';
import { useLanguage } from '@/lib/i18n';
import {
  REMIND_KINDS,
  deviceDetailPath,
  deviceLabel,
  formatMb,
  remindLink,
  type RemindKind,
} from '../utils/dashboard-data';
import { WidgetCard } from './widget-card';

/** Devices shown under each remind item; the link opens the whole list. */
const SHOWN = 3;

/** What needs a person's hands: paper, devices gone quiet, SIMs running dry. Each item opens the filtered list. */
export function RemindCard({ remind, loading }: { remind: DashboardOverview['remind'] | undefined; loading: boolean }) {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const { token } = theme.useToken();
  const icons: Record<RemindKind, ReactNode> = {
    paper: <FileExclamationOutlined style={{ color: token.colorWarning }} />,
    offline: <DisconnectOutlined style={{ color: token.colorError }} />,
    simLow: <SignalFilled style={{ color: token.purple }} />,
  };
  const detailOf = (kind: RemindKind, d: RemindDevice): string => {
    if (kind === 'paper') return t(`dashboard.remind.paperState.${d.paper}`);
    if (kind === 'simLow') return d.simDataLeftMb === null ? t('dashboard.remind.noSim') : formatMb(d.simDataLeftMb);
    return d.lastSeenAt ? formatRelativeTime(d.lastSeenAt, language) : t('dashboard.remind.neverSeen');
  };
  const nothing = !!remind && REMIND_KINDS.every((k) => remind[k].count === 0);

  return (
    <WidgetCard testId="widget-remind" loading={loading} title={t('dashboard.remind.title')}>
      {nothing ? (
        <Flex vertical align="center" gap={8} style={{ padding: '40px 0' }}>
          <CheckCircleFilled style={{ fontSize: 36, color: token.colorSuccess }} />
          <Typography.Text type="secondary">{t('dashboard.remind.allGood')}</Typography.Text>
        </Flex>
      ) : (
        <Flex vertical gap={12}>
          {REMIND_KINDS.map((kind) => {
            const list = remind?.[kind] ?? { count: 0, devices: [] };
            return (
              <div
                key={kind}
                data-remind={kind}
                style={{
                  border: `1px solid ${token.colorBorderSecondary}`,
                  borderRadius: token.borderRadiusLG,
                  padding: '10px 12px',
                }}
              >
                <Link
                  to={remindLink(kind, remind)}
                  data-testid={`remind-${kind}`}
                  data-count={list.count}
                  style={{ color: 'inherit', display: 'block' }}
                >
                  <Flex align="center" gap={10}>
                    <span style={{ fontSize: 18 }}>{icons[kind]}</span>
                    <Typography.Text strong style={{ flex: 1 }}>
                      {t(`dashboard.remind.${kind}`, { hours: OFFLINE_REMIND_HOURS })}
                    </Typography.Text>
                    <Badge
                      count={list.count}
                      showZero
                      overflowCount={9999}
                      color={list.count > 0 ? undefined : token.colorFillSecondary}
                      style={list.count > 0 ? undefined : { color: token.colorTextSecondary }}
                    />
                    <RightOutlined style={{ color: token.colorTextTertiary, fontSize: 12 }} />
                  </Flex>
                </Link>
                {list.devices.length > 0 && (
                  <Flex wrap gap={6} style={{ marginTop: 8, paddingInlineStart: 28 }}>
                    {list.devices.slice(0, SHOWN).map((d) => (
                      <Link key={d.id} to={deviceDetailPath(d.id)}>
                        <Tag style={{ marginInlineEnd: 0, cursor: 'pointer' }} title={detailOf(kind, d)}>
                          {deviceLabel(d)} · {detailOf(kind, d)}
                        </Tag>
                      </Link>
                    ))}
                    {list.count > SHOWN && (
                      <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM, alignSelf: 'center' }}>
                        {t('dashboard.remind.more', { n: list.count - SHOWN })}
                      </Typography.Text>
                    )}
                  </Flex>
                )}
              </div>
            );
          })}
        </Flex>
      )}
    </WidgetCard>
  );
}
