import { App, Flex, Segmented } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { IdentityView } from '@cpc/contracts';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { usePermission } from '@/lib/session';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
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
  const paging = usePaging();
  const { page } = paging;
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

  useStepBackWhenEmpty(list, paging);
  const data = list.data?.list ?? [];
  const total = list.data?.total ?? 0;

  return (
    <ListPage
      title={t('identity.title')}
      subtitle={t('identity.subtitle')}
      toolbar={
        <Flex gap={12} wrap justify="space-between" align="center">
          <Segmented<StatusFilter>
            aria-label={t('identity.filter.status')}
            value={status}
            onChange={(v) => {
              setStatus(v);
              paging.toFirst();
            }}
            options={[
              { value: 2, label: t('identity.status.2') },
              { value: 1, label: t('identity.status.1') },
              { value: 3, label: t('identity.status.3') },
              { value: 'all', label: t('identity.filter.all') },
            ]}
          />
          <SearchAndRefresh
            placeholder={t('identity.filter.keyword')}
            refreshLabel={t('identity.filter.refresh')}
            onSearch={(v) => {
              setKeyword(v);
              paging.toFirst();
            }}
            refreshing={list.isFetching && !list.isPending}
            onRefresh={() => void list.refetch()}
            style={{ flex: '1 1 260px', maxWidth: 420 }}
          />
        </Flex>
      }
      overlays={
        <>
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
        </>
      }
    >
      <IdentityTable
        data={data}
        total={total}
        pageNo={page.pageNo}
        pageSize={page.pageSize}
        loading={list.isFetching}
        canReview={canReview}
        onPageChange={paging.onPageChange}
        onDetail={setDetail}
        onApprove={confirmApprove}
        onReject={setRejecting}
      />
    </ListPage>
  );
}
