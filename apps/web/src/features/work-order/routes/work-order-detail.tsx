import {
  CheckCircleOutlined,
  EditOutlined,
  RollbackOutlined,
  StarOutlined,
  UndoOutlined,
  UserAddOutlined,
  UserSwitchOutlined,
} from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Divider, Flex, Popconfirm, Rate, Result, Skeleton, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { WORK_ORDER_DONE_STATES, type WorkOrderDetail, type WorkOrderReplyBody } from '@cpc/contracts/work-order';
import { RichHtml } from '@/components/rich-html';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { usePageTitle } from '@/lib/page-title';
import { usePermission } from '@/lib/session';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import {
  markRead,
  useAssign,
  useAssignees,
  useRate,
  useReply,
  useSimpleAction,
  useWorkOrder,
  workOrderKeys,
  type SimpleAction,
} from '../api/work-order';
import { AssignModal, RateModal } from '../components/action-modals';
import { AttachmentList } from '../components/attachments';
import { Conversation } from '../components/conversation';
import { ReplyBox } from '../components/reply-box';
import { DueTime, PriorityTag, StateTag } from '../components/tags';

const LIST_PATH = '/workOrder/workOrderIndex';
const idOf = (v: string | null): number => (v && /^\d{1,15}$/.test(v) ? Number(v) : 0);

/** The header: who, what, state, targets and what the order is about. */
function Header({ o, staff, now }: { o: WorkOrderDetail; staff: boolean; now: number }) {
  const { t } = useTranslation();
  const open = !WORK_ORDER_DONE_STATES.includes(o.state) && o.state !== 'resolved';
  return (
    <Descriptions
      size="small"
      column={{ xs: 1, sm: 2, lg: 3 }}
      data-testid="work-order-header"
      items={[
        { key: 'state', label: t('workOrder.column.state'), children: <StateTag state={o.state} /> },
        { key: 'type', label: t('workOrder.column.type'), children: t(`workOrder.type.${o.type}`) },
        { key: 'priority', label: t('workOrder.column.priority'), children: <PriorityTag priority={o.priority} /> },
        ...(staff ? [{ key: 'account', label: t('workOrder.column.account'), children: o.tenantName }] : []),
        { key: 'opener', label: t('workOrder.field.openedBy'), children: o.openedBy?.name ?? '–' },
        {
          key: 'assignee',
          label: t('workOrder.column.assignee'),
          children: o.assignee?.name ?? <Typography.Text type="secondary">{t('workOrder.unassigned')}</Typography.Text>,
        },
        { key: 'created', label: t('workOrder.field.createdAt'), children: formatDateTime(o.createdAt) },
        {
          key: 'response',
          label: t('workOrder.field.responseDue'),
          children: o.firstResponseAt ? (
            t('workOrder.field.answeredAt', { at: formatDateTime(o.firstResponseAt) })
          ) : (
            <DueTime at={o.responseDueAt} now={now} done={!open} />
          ),
        },
        {
          key: 'resolve',
          label: t('workOrder.field.resolveDue'),
          children: o.resolvedAt ? (
            t('workOrder.field.resolvedAt', { at: formatDateTime(o.resolvedAt) })
          ) : (
            <DueTime at={o.resolveDueAt} now={now} done={!open} />
          ),
        },
        ...(o.devices.length
          ? [
              {
                key: 'devices',
                label: t('workOrder.field.devices'),
                children: (
                  <Space wrap size={4} data-testid="work-order-devices-links">
                    {o.devices.map((d) =>
                      staff ? (
                        <span key={d.id}>{d.name ? `${d.name} (${d.sn})` : d.sn}</span>
                      ) : (
                        <Link key={d.id} to={`/device/detail?id=${d.id}`}>
                          {d.name ? `${d.name} (${d.sn})` : d.sn}
                        </Link>
                      ),
                    )}
                  </Space>
                ),
              },
            ]
          : []),
        ...(o.orders.length
          ? [
              {
                key: 'orders',
                label: t('workOrder.field.orders'),
                children: (
                  <Space wrap size={4}>
                    {o.orders.map((x) =>
                      staff ? (
                        <span key={x.id}>{x.orderNo}</span>
                      ) : (
                        <Link key={x.id} to="/flowRate/flowRateLog">
                          {x.orderNo}
                        </Link>
                      ),
                    )}
                  </Space>
                ),
              },
            ]
          : []),
        ...(o.rating
          ? [
              {
                key: 'rating',
                label: t('workOrder.field.rating'),
                children: (
                  <Flex vertical>
                    <Rate disabled value={o.rating} style={{ fontSize: 14 }} />
                    {o.ratingComment && <Typography.Text>{o.ratingComment}</Typography.Text>}
                  </Flex>
                ),
              },
            ]
          : []),
      ]}
    />
  );
}

/**
 * One work order (`/workOrder/detail?id=N`, a tab per order): the header, the description, the conversation and
 * the reply box, and the actions the server allows now (`can`). Opening it marks it read; it follows live changes.
 */
export default function WorkOrderDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [search] = useSearchParams();
  const id = idOf(search.get('id'));
  const now = useNow(RELATIVE_TIME_INTERVAL);
  const staff = usePermission(PERMISSIONS.workOrderHandle);
  const order = useWorkOrder(id);
  const o = order.data;
  const reply = useReply();
  const simple = useSimpleAction();
  const rate = useRate();
  const assign = useAssign();
  const assignees = useAssignees(staff && !!o?.can.assign);
  const [rating, setRating] = useState(false);
  const [assigning, setAssigning] = useState(false);
  usePageTitle(o?.orderNo);

  useLiveEvents({
    workOrder: (e) => {
      if (e.id === id) void client.invalidateQueries({ queryKey: workOrderKeys.detail(id) });
    },
    onGap: () => void client.invalidateQueries({ queryKey: workOrderKeys.detail(id) }),
  });

  // opening the order, and every new reply while it is open, marks it read for the caller's side
  const unread = !!o?.unread;
  const seen = o?.updatedAt;
  useEffect(() => {
    if (!id || !seen) return;
    void markRead(id)
      .then(() => client.invalidateQueries({ queryKey: ['work-order', 'list'] }))
      .catch(() => {});
  }, [id, seen, unread, client]);

  if (!id || order.isError) {
    const missing = !id || Number((order.error as { code?: unknown } | null)?.code) === 404;
    return (
      <Card variant="borderless">
        <Result
          status={missing ? '404' : 'error'}
          title={missing ? t('workOrder.detail.notFound') : order.error?.message}
          extra={
            <Button type="primary" onClick={() => navigate(LIST_PATH)}>
              {t('workOrder.detail.back')}
            </Button>
          }
        />
      </Card>
    );
  }
  if (!o)
    return (
      <Card variant="borderless">
        <Skeleton active />
      </Card>
    );

  const act = (action: SimpleAction) => simple.mutate({ action, id });
  const busy = (action: SimpleAction) => simple.isPending && simple.variables?.action === action;
  const send = (body: WorkOrderReplyBody) => reply.mutateAsync(body);

  const actions = (
    <Space wrap data-testid="work-order-actions">
      {o.can.take && (
        <Button
          type="primary"
          icon={<UserAddOutlined />}
          loading={busy('take')}
          onClick={() => act('take')}
          data-testid="work-order-take"
        >
          {t('workOrder.action.take')}
        </Button>
      )}
      {o.can.assign && (
        <Button icon={<UserSwitchOutlined />} onClick={() => setAssigning(true)} data-testid="work-order-assign">
          {t('workOrder.action.assign')}
        </Button>
      )}
      {o.can.edit && (
        <Button
          icon={<EditOutlined />}
          onClick={() => navigate(`/workOrder/edit?id=${id}`)}
          data-testid="work-order-edit"
        >
          {t('workOrder.action.edit')}
        </Button>
      )}
      {o.can.withdraw && (
        <Popconfirm title={t('workOrder.action.withdrawConfirm')} onConfirm={() => act('withdraw')}>
          <Button danger icon={<RollbackOutlined />} loading={busy('withdraw')} data-testid="work-order-withdraw">
            {t('workOrder.action.withdraw')}
          </Button>
        </Popconfirm>
      )}
      {o.can.reopen && (
        <Popconfirm title={t('workOrder.action.reopenConfirm')} onConfirm={() => act('reopen')}>
          <Button icon={<UndoOutlined />} loading={busy('reopen')} data-testid="work-order-reopen">
            {t('workOrder.action.reopen')}
          </Button>
        </Popconfirm>
      )}
      {o.can.close && (
        <Popconfirm title={t('workOrder.action.closeConfirm')} onConfirm={() => act('close')}>
          <Button icon={<CheckCircleOutlined />} loading={busy('close')} data-testid="work-order-close">
            {t('workOrder.action.close')}
          </Button>
        </Popconfirm>
      )}
      {o.can.rate && (
        <Button type="primary" icon={<StarOutlined />} onClick={() => setRating(true)} data-testid="work-order-rate">
          {t('workOrder.action.rate')}
        </Button>
      )}
    </Space>
  );

  return (
    <Flex vertical gap={16}>
      <Card variant="borderless">
        <Flex vertical gap={12}>
          <Flex justify="space-between" align="start" gap={8} wrap>
            <div style={{ minWidth: 0 }}>
              <Typography.Text type="secondary" copyable data-testid="work-order-no">
                {o.orderNo}
              </Typography.Text>
              <Typography.Title
                level={4}
                style={{ margin: 0, overflowWrap: 'anywhere' }}
                data-testid="work-order-title-text"
              >
                {o.title}
              </Typography.Title>
            </div>
            {actions}
          </Flex>
          {o.state === 'resolved' && o.reopenUntil && !staff && (
            <Typography.Text type="secondary">
              {t('workOrder.detail.reopenUntil', { at: formatDateTime(o.reopenUntil) })}
            </Typography.Text>
          )}
          <Header o={o} staff={staff} now={now} />
        </Flex>
      </Card>
      <Card variant="borderless" title={t('workOrder.field.description')}>
        {o.descriptionHtml ? (
          <RichHtml html={o.descriptionHtml} data-testid="work-order-description-html" />
        ) : (
          <Typography.Text type="secondary">{t('workOrder.detail.noDescription')}</Typography.Text>
        )}
        {o.attachments.length > 0 && (
          <>
            <Divider style={{ margin: '12px 0' }} />
            <AttachmentList items={o.attachments} />
          </>
        )}
      </Card>
      <Card variant="borderless" title={t('workOrder.detail.conversation')}>
        <Conversation events={o.events} viewerSide={staff ? 'staff' : 'customer'} now={now} />
        {o.can.reply && (
          <>
            <Divider />
            <ReplyBox orderId={id} staff={staff} canResolve={o.can.resolve} sending={reply.isPending} onSend={send} />
          </>
        )}
      </Card>
      <RateModal
        open={rating}
        saving={rate.isPending}
        onCancel={() => setRating(false)}
        onRate={async (v) => {
          await rate.mutateAsync({ id, ...v });
          setRating(false);
        }}
      />
      {o.can.assign && (
        <AssignModal
          open={assigning}
          current={o.assignee?.id ?? null}
          assignees={assignees.data ?? []}
          saving={assign.isPending}
          onCancel={() => setAssigning(false)}
          onAssign={async (assigneeId) => {
            await assign.mutateAsync({ id, assigneeId });
            setAssigning(false);
          }}
        />
      )}
    </Flex>
  );
}
