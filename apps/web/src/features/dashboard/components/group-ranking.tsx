import { useTranslation } from 'react-i18next';
import type { GroupRank } from '@cpc/contracts/dashboard';
import { rankRows } from '../utils/dashboard-data';
import type { ChartTheme } from '@/lib/charts/chart';
import { RankList } from './device-ranking';
import { WidgetCard } from './widget-card';

/** Top-level groups by devices (with their subgroups'), the online part of each bar in green. */
export function GroupRanking({
  groups,
  loading,
  chart,
}: {
  groups: GroupRank[] | undefined;
  loading: boolean;
  chart: ChartTheme;
}) {
  const { t } = useTranslation();
  const rows = rankRows(groups ?? [], (g) => g.devices);
  return (
    <WidgetCard
      testId="widget-group-rank"
      loading={loading}
      title={t('dashboard.groupRank.title')}
      empty={rows.length === 0 ? t('dashboard.groupRank.empty') : undefined}
    >
      <RankList
        color={chart.tokens.colorPrimaryBorder}
        rows={rows.map(({ item, percent }) => ({
          key: item.id ?? 'none',
          label: item.id === null ? t('dashboard.groupRank.ungrouped') : item.name,
          value: t('dashboard.groupRank.value', { online: item.online, n: item.devices }),
          percent,
          // the online devices as the bar's leading part, on the same scale as the total
          success: item.devices > 0 ? Math.round((percent * item.online) / item.devices) : 0,
        }))}
      />
    </WidgetCard>
  );
}
