import { DatePicker, Flex, Input, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { PUSH_KINDS, PUSH_STATES, type PushKind, type PushState } from '@cpc/contracts/push';
import { ListPage } from '@/components/list-page';
import { usePermission } from '@/lib/session';
import { useDebounced } from '@/lib/use-debounced';
import { usePushes } from '../api/push';
import { DeliveriesDrawer } from '../components/deliveries-drawer';
import { usePushLive } from '../components/live';
import { PushTable } from '../components/push-table';

/** Push query: the account's pushes with filters; a push opens its per-device delivery (`?id=`), live. */
export default function PushQuery() {
  const { t } = useTranslation();
  usePushLive();
  const canEdit = usePermission(PERMISSIONS.pushEdit);
  const [search, setSearch] = useSearchParams();
  const openId = Number(search.get('id')) || null;
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [state, setState] = useState<PushState | undefined>();
  const [kind, setKind] = useState<PushKind | undefined>();
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const [keyword, setKeyword] = useState('');
  const keywordNow = useDebounced(keyword.trim(), 300);
  const list = usePushes({
    ...page,
    state,
    kind,
    ...(range?.[0] ? { from: range[0].startOf('day').toISOString() } : {}),
    ...(range?.[1] ? { to: range[1].endOf('day').toISOString() } : {}),
    ...(keywordNow ? { keyword: keywordNow } : {}),
  });
  const first = () => setPage((p) => ({ ...p, pageNo: 1 }));
  const open = (id: number | null) =>
    setSearch(
      (s) => {
        const next = new URLSearchParams(s);
        if (id) next.set('id', String(id));
        else next.delete('id');
        return next;
      },
      { replace: true },
    );

  return (
    <ListPage
      title={t('push.query.title')}
      subtitle={t('push.query.subtitle')}
      toolbar={
        <Flex gap={8} wrap>
          <Input.Search
            allowClear
            style={{ width: 220, maxWidth: '100%' }}
            placeholder={t('push.query.keyword')}
            value={keyword}
            onChange={(e) => {
              setKeyword(e.target.value);
              first();
            }}
            data-testid="push-keyword"
          />
          <Select<PushState | ''>
            style={{ width: 150 }}
            value={state ?? ''}
            onChange={(v) => {
              setState(v || undefined);
              first();
            }}
            options={[
              { value: '', label: t('push.query.allStates') },
              ...PUSH_STATES.map((s) => ({ value: s, label: t(`push.state.${s}`) })),
            ]}
            data-testid="push-state-filter"
          />
          <Select<PushKind | ''>
            style={{ width: 150 }}
            value={kind ?? ''}
            onChange={(v) => {
              setKind(v || undefined);
              first();
            }}
            options={[
              { value: '', label: t('push.query.allKinds') },
              ...PUSH_KINDS.map((k) => ({ value: k, label: t(`push.kind.${k}`) })),
            ]}
          />
          <DatePicker.RangePicker
            style={{ maxWidth: '100%' }}
            value={range}
            onChange={(v) => {
              setRange(v);
              first();
            }}
          />
        </Flex>
      }
      overlays={<DeliveriesDrawer id={openId} onClose={() => open(null)} canEdit={canEdit} />}
    >
      <PushTable
        data={list.data}
        loading={list.isLoading}
        page={page}
        onPage={(pageNo, pageSize) => setPage({ pageNo, pageSize })}
        onOpen={open}
        canEdit={canEdit}
      />
    </ListPage>
  );
}
