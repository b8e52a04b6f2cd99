import { FolderOutlined } from '@ant-design/icons';
import { Flex, Progress, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ProjectItem } from '@cpc/contracts/dashboard';
import { WidgetCard } from './widget-card';

/** SPEC §2's "my project" widget: the account's groups by this month's print jobs, each opening its devices. */
export function ProjectCard({ projects, loading }: { projects: ProjectItem[] | undefined; loading: boolean }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const top = Math.max(1, ...(projects ?? []).map((p) => p.jobsMonth));
  return (
    <WidgetCard
      testId="widget-project"
      title={t('dashboard.project.title')}
      loading={loading && !projects}
      extra={<Link to="/device/index">{t('dashboard.project.more')}</Link>}
      empty={projects && projects.length === 0 ? t('dashboard.project.empty') : undefined}
    >
      <Flex vertical gap={4}>
        {(projects ?? []).map((p) => (
          <Link
            key={p.id}
            to={`/device/index?groupId=${p.id}`}
            data-testid="project-item"
            style={{ color: 'inherit', display: 'block', padding: '6px 0' }}
          >
            <Flex align="center" gap={10} wrap>
              <FolderOutlined style={{ color: token.colorPrimary }} />
              <Typography.Text strong ellipsis style={{ flex: '1 1 120px', minWidth: 0 }}>
                {p.name}
              </Typography.Text>
              <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }} data-testid="project-devices">
                {t('dashboard.project.devices', { online: p.online, n: p.devices })}
              </Typography.Text>
              <Typography.Text style={{ fontSize: token.fontSizeSM, whiteSpace: 'nowrap' }} data-testid="project-jobs">
                {t('dashboard.project.jobs', { n: p.jobsMonth })}
              </Typography.Text>
            </Flex>
            <Progress
              percent={Math.round((p.jobsMonth / top) * 100)}
              showInfo={false}
              status="normal"
              strokeColor={token.colorPrimary}
              size="small"
              style={{ margin: '2px 0 0' }}
            />
          </Link>
        ))}
      </Flex>
    </WidgetCard>
  );
}
