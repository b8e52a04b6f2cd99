import { ClockCircleOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Grid, Result, Skeleton, Steps, Tag } from 'antd';
import type { StepsProps } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useNavigate } from 'react-router';
import type { AuthenticateState } from '@cpc/contracts';
import { AUTH_STATUS } from '@cpc/contracts/constants';
import { HOME_PATH, LOGIN_PATH } from '@/config/settings';
import { useSession } from '@/lib/session';
import { useAuthenticateState } from '../api/authenticate';
import { AuthenticateFrame } from '../components/authenticate-frame';
import { IdentityForm } from '../components/identity-form';
import { SubmissionDetails } from '../components/submission-details';
import { prefillFromSubmission } from '../utils/submission';

type View = 'form' | 'waiting' | 'failed' | 'success';

function viewOf(state: AuthenticateState, editing: boolean): View {
  switch (state.status) {
    case AUTH_STATUS.authenticated:
      return 'success';
    case AUTH_STATUS.waiting:
      return 'waiting';
    case AUTH_STATUS.failed:
      return editing ? 'form' : 'failed';
    default:
      return 'form';
  }
}

export default function AuthenticatePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  const signedIn = useSession((s) => !!s.token);
  const query = useAuthenticateState(signedIn);
  const [editing, setEditing] = useState(false);
  const state = query.data;

  const enterConsole = () => {
    // The guard keeps the user info (and its status) it loaded; dropping it makes the guard load the
    // now-authenticated user and menu before showing the console.
    useSession.setState({ userInfo: null, routes: null });
    void navigate(HOME_PATH, { replace: true });
  };

  // the page is on the white list; without a session there is nothing to authenticate
  if (!signedIn) return <Navigate to={LOGIN_PATH} replace />;

  let content: ReactNode;
  let view: View | null = null;
  if (query.isPending) {
    content = <Skeleton active paragraph={{ rows: 6 }} />;
  } else if (query.isError || !state) {
    content = (
      <Result
        status="warning"
        title={t('auth.authenticate.loadFailed')}
        extra={
          <Button type="primary" icon={<ReloadOutlined />} onClick={() => void query.refetch()}>
            {t('auth.authenticate.retry')}
          </Button>
        }
      />
    );
  } else {
    view = viewOf(state, editing);
    const submission = state.submission;
    if (view === 'form') {
      const prefill = state.status === AUTH_STATUS.failed ? prefillFromSubmission(submission) : undefined;
      content = (
        <Flex vertical gap={16}>
          <div>
            <Tag color={state.type === 'individual' ? 'blue' : 'purple'}>
              {t(`auth.authenticate.type.${state.type}`)}
            </Tag>
          </div>
          <IdentityForm
            // a fresh form for every (re-)authentication, so uploads start from the prefill
            key={`${state.type}-${submission?.id ?? 'new'}-${editing}`}
            type={state.type}
            initialValues={prefill?.values}
            previews={prefill?.previews}
            onCancel={editing ? () => setEditing(false) : undefined}
          />
        </Flex>
      );
    } else if (view === 'waiting') {
      content = (
        <>
          <Result
            icon={<ClockCircleOutlined />}
            status="info"
            title={t('auth.authenticate.waiting.title')}
            subTitle={t('auth.authenticate.waiting.description')}
            extra={
              <Button icon={<ReloadOutlined />} loading={query.isFetching} onClick={() => void query.refetch()}>
                {t('auth.authenticate.waiting.refresh')}
              </Button>
            }
          />
          {submission && <SubmissionDetails submission={submission} />}
        </>
      );
    } else if (view === 'failed') {
      content = (
        <>
          <Result
            status="error"
            title={t('auth.authenticate.failed.title')}
            subTitle={
              <>
                {t('auth.authenticate.failed.description')}
                <br />
                {t('auth.authenticate.failed.reason', {
                  reason: submission?.reason || t('auth.authenticate.failed.noReason'),
                })}
              </>
            }
            extra={
              <Button type="primary" onClick={() => setEditing(true)}>
                {t('auth.authenticate.failed.reauthenticate')}
              </Button>
            }
          />
          {submission && <SubmissionDetails submission={submission} />}
        </>
      );
    } else {
      const name = submission?.realName || submission?.companyName || submission?.username || '';
      content = (
        <Result
          status="success"
          title={t('auth.authenticate.success.title')}
          subTitle={t('auth.authenticate.success.description', { name })}
          extra={
            <Button type="primary" size="large" onClick={enterConsole}>
              {t('auth.authenticate.success.enter')}
            </Button>
          }
        />
      );
    }
  }

  const steps: StepsProps['items'] = [
    { title: t('auth.authenticate.steps.submit') },
    { title: t('auth.authenticate.steps.review') },
    { title: t('auth.authenticate.steps.done') },
  ];
  const current = view === 'form' || view === null ? 0 : view === 'success' ? 2 : 1;
  const stepStatus: StepsProps['status'] = view === 'failed' ? 'error' : view === 'success' ? 'finish' : 'process';

  return (
    <AuthenticateFrame>
      <Card variant="borderless" styles={{ body: { padding: screens.md ? 32 : 16 } }}>
        <Steps
          current={current}
          status={stepStatus}
          items={steps}
          size="small"
          titlePlacement={screens.sm ? 'horizontal' : 'vertical'}
          responsive={false}
          style={{ marginBottom: 32 }}
        />
        {content}
      </Card>
    </AuthenticateFrame>
  );
}
