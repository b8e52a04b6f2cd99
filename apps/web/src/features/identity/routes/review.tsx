import { ReloadOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Input, Segmented, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { IdentityView } from '@cpc/contracts';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { usePermission } from '@/lib/session';
import {
  useApproveIdentity,
  useIdentityList,
  useLiveIdentityList,
  useRejectIdentity,
  type ReviewStatus,
} from '../api/identity';
import { IdentityDrawer } from '../components/identity-drawer';
import { IdentityTable } from '../components/identity-table';
import { RejectModal } from '../components/reject-modal';

type StatusFilter = ReviewStatus | 'all';

const nameOf = (r: IdentityView) => (r.type === 'individual' ? r.realName : r.companyName) || r.username;

/** Staff review of identity submissions (DESIGN §3): filter, inspect, approve or reject with a reason. */
export default function IdentityReviewPage() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const canReview = usePermission(PERMISSIONS.identityReview);
  const [status, setStatus] = useState<StatusFilter>(2);
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [detail, setDetail] = useState<IdentityView | null>(null);
  const [rejecting, setRejecting] = useState<IdentityView | null>(null);

  const list = useIdentityList({
    ...page,
    status: status === 'all' ? undefined : status,
    keyword: keyword || undefined,
  });
  useLiveIdentityList();
  const approve = useApproveIdentity();
  const reject = useRejectIdentity();

  const confirmApprove = (record: IdentityView) => {
    modal.confirm({
      title: t('identity.approve.title'),
      content: t('identity.approve.content', { name: nameOf(record) }),
      okText: t('identity.approve.ok'),
      cancelText: t('identity.cancel'),
      onOk: async () => {
        try {
          await approve.mutateAsync(record.id);
        } catch {
          // the request layer has shown why; keep the dialog's promise settled
          return;
        }
        message.success(t('identity.approve.success'));
        setDetail(null);
      },
    });
  };

  const submitReject = async (reason: string) => {
    if (!rejecting) return;
    try {
      await reject.mutateAsync({ id: rejecting.id, reason });
    } catch {
      return;
    }
    message.success(t('identity.reject.success'));
    setRejecting(null);
    setDetail(null);
  };

  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;
  const emptyPage = !!list.data && data.length === 0 && total > 0 && page.pageNo > 1 && !list.isPlaceholderData;
  // the last item of a page was reviewed away: step back instead of showing an empty page
  useEffect(() => {
    if (emptyPage) setPage((p) => ({ ...p, pageNo: Math.max(1, Math.ceil(total / p.pageSize)) }));
  }, [emptyPage, total]);

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('identity.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('identity.subtitle')}</Typography.Text>
        </div>
        <Flex gap={12} wrap justify="space-between" align="center">
          <Segmented<StatusFilter>
            aria-label={t('identity.filter.status')}
            value={status}
            onChange={(v) => {
              setStatus(v);
              setPage((p) => ({ ...p, pageNo: 1 }));
            }}
            options={[
              { value: 2, label: t('identity.status.2') },
              { value: 1, label: t('identity.status.1') },
              { value: 3, label: t('identity.status.3') },
              { value: 'all', label: t('identity.filter.all') },
            ]}
          />
          <Flex gap={8} style={{ flex: '1 1 260px', maxWidth: 420 }}>
            <Input.Search
              allowClear
              maxLength={50}
              placeholder={t('identity.filter.keyword')}
              onSearch={(v) => {
                setKeyword(v.trim());
                setPage((p) => ({ ...p, pageNo: 1 }));
              }}
            />
            <Tooltip title={t('identity.filter.refresh')}>
              <Button
                icon={<ReloadOutlined />}
                aria-label={t('identity.filter.refresh')}
                loading={list.isFetching && !list.isPending}
                onClick={() => void list.refetch()}
              />
            </Tooltip>
          </Flex>
        </Flex>
        <IdentityTable
          data={data}
          total={total}
          pageNo={page.pageNo}
          pageSize={page.pageSize}
          loading={list.isFetching}
          canReview={canReview}
          onPageChange={(pageNo, pageSize) => setPage({ pageNo: pageSize === page.pageSize ? pageNo : 1, pageSize })}
          onDetail={setDetail}
          onApprove={confirmApprove}
          onReject={setRejecting}
        />
      </Flex>
      <IdentityDrawer
        record={detail}
        canReview={canReview}
        approving={approve.isPending}
        onClose={() => setDetail(null)}
        onApprove={confirmApprove}
        onReject={setRejecting}
      />
      <RejectModal
        open={!!rejecting}
        name={rejecting ? nameOf(rejecting) : undefined}
        confirming={reject.isPending}
        onCancel={() => setRejecting(null)}
        onSubmit={submitReject}
      />
    </Card>
  );
}
