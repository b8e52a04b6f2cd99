import { AimOutlined } from '@ant-design/icons';
import { App, Button, Flex, Form, InputNumber, Modal, Progress, Statistic, Typography, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DASHBOARD_TARGET_MAX, type TargetWidget } from '@cpc/contracts/dashboard';
import { useFormLanguage } from '@/lib/use-form-language';
import { useSetDashboardTarget } from '../api/dashboard';
import { targetPercent } from '../utils/target';
import { WidgetCard } from './widget-card';

/** SPEC §2's "target" widget: this month's print jobs against the monthly target the account set. */
export function TargetCard({ target, loading }: { target: TargetWidget | undefined; loading: boolean }) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const [editing, setEditing] = useState(false);
  const percent = target ? targetPercent(target.jobs, target.target) : null;
  const reached = percent !== null && percent >= 100;
  return (
    <WidgetCard
      testId="widget-target"
      title={t('dashboard.target.title')}
      loading={loading && !target}
      extra={
        target?.canEdit && (
          <Button size="small" icon={<AimOutlined />} onClick={() => setEditing(true)} data-testid="target-edit">
            {target.target === null ? t('dashboard.target.set') : t('dashboard.target.change')}
          </Button>
        )
      }
    >
      {target && (
        <Flex align="center" gap={24} wrap justify="center">
          <Progress
            type="dashboard"
            percent={percent ?? 0}
            size={140}
            strokeColor={reached ? token.colorSuccess : token.colorPrimary}
            format={() => (
              <Flex vertical align="center">
                <span data-testid="target-percent">{percent === null ? '—' : `${percent}%`}</span>
                <Typography.Text type="secondary" style={{ fontSize: token.fontSizeSM }}>
                  {t('dashboard.target.ofTarget')}
                </Typography.Text>
              </Flex>
            )}
          />
          <Flex vertical gap={8} style={{ minWidth: 140 }}>
            <Statistic
              title={t('dashboard.target.jobs', { month: target.month })}
              value={target.jobs}
              suffix={target.target === null ? undefined : `/ ${target.target}`}
              data-testid="target-jobs"
            />
            <Typography.Text type="secondary">{t('dashboard.target.printed', { n: target.printed })}</Typography.Text>
            {target.target === null ? (
              <Typography.Text type="secondary" data-testid="target-none">
                {target.canEdit ? t('dashboard.target.noneYours') : t('dashboard.target.none')}
              </Typography.Text>
            ) : (
              <Typography.Text type={reached ? 'success' : 'secondary'}>
                {reached
                  ? t('dashboard.target.reached')
                  : t('dashboard.target.left', { n: target.target - target.jobs })}
              </Typography.Text>
            )}
          </Flex>
        </Flex>
      )}
      {target?.canEdit && <TargetModal open={editing} current={target.target} onClose={() => setEditing(false)} />}
    </WidgetCard>
  );
}

interface TargetValues {
  monthlyJobs: number | null;
}

function TargetModal({ open, current, onClose }: { open: boolean; current: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [form] = Form.useForm<TargetValues>();
  useFormLanguage(form);
  const save = useSetDashboardTarget();
  useEffect(() => {
    if (open) form.setFieldsValue({ monthlyJobs: current });
  }, [open, current, form]);

  const submit = async (monthlyJobs: number | null) => {
    try {
      await save.mutateAsync(monthlyJobs);
      message.success(monthlyJobs === null ? t('dashboard.target.cleared') : t('dashboard.target.saved'));
      onClose();
    } catch (err) {
      form.setFields([{ name: 'monthlyJobs', errors: [(err as Error).message] }]);
    }
  };

  return (
    <Modal
      open={open}
      title={t('dashboard.target.dialog')}
      okText={t('dashboard.target.save')}
      cancelText={t('dashboard.target.cancel')}
      confirmLoading={save.isPending}
      onOk={() => form.submit()}
      onCancel={onClose}
      forceRender
      footer={(buttons) => (
        <Flex justify="space-between" gap={8}>
          {current !== null ? (
            <Button danger onClick={() => void submit(null)} data-testid="target-clear">
              {t('dashboard.target.clear')}
            </Button>
          ) : (
            <span />
          )}
          <Flex gap={8}>{buttons}</Flex>
        </Flex>
      )}
    >
      <Form<TargetValues>
        form={form}
        name="dashboard-target"
        layout="vertical"
        onFinish={(v) => void submit(v.monthlyJobs)}
      >
        <Form.Item
          name="monthlyJobs"
          label={t('dashboard.target.monthly')}
          extra={t('dashboard.target.hint')}
          rules={[
            { required: true, message: t('dashboard.target.required') },
            {
              type: 'integer',
              min: 1,
              max: DASHBOARD_TARGET_MAX,
              message: t('dashboard.target.range', { max: DASHBOARD_TARGET_MAX }),
            },
          ]}
        >
          <InputNumber
            min={1}
            max={DASHBOARD_TARGET_MAX}
            precision={0}
            style={{ width: '100%' }}
            placeholder={t('dashboard.target.placeholder')}
            data-testid="target-input"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
