import { Alert, Button, Card, Col, Empty, Flex, Row, Select, Space, Spin, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { OrderDetail, PayStart } from '@cpc/contracts/order';
import { formatFen, formatMb } from '@/lib/format/money';
import { useLanguage } from '@/lib/i18n';
import { sayServerMessage, serverFieldErrors } from '@/lib/server-messages';
import { RequestError } from '@/lib/request';
import { useCancelOrder, useCreateOrder, usePackages, usePayOrder, useQuote, useSimOptions } from '../api/order';
import { iccidsFromSearch, newRequestId } from '../utils/order';
import { PackageCard } from './package-card';
import { PayModal } from './pay-modal';

/** Why the server would not price a selection, in the user's language. */
function quoteProblem(err: unknown, t: (k: string, o?: Record<string, unknown>) => string): string {
  const fields = serverFieldErrors(err);
  if (fields.length) return sayServerMessage(fields[0], t);
  if (err instanceof RequestError) return err.message;
  return t('order.mall.buyFailed');
}

/** The customer's store: pick SIMs (preselected from `?iccids=`), a package, see the server's price, buy, pay. */
export function Store() {
  const { t } = useTranslation();
  const { language } = useLanguage();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const [iccids, setIccids] = useState<string[]>(() => iccidsFromSearch(search));
  const [keyword, setKeyword] = useState('');
  const [packageId, setPackageId] = useState<number | null>(null);
  const [requestId, setRequestId] = useState(newRequestId);
  const [order, setOrder] = useState<OrderDetail | null>(null);
  const [payment, setPayment] = useState<PayStart | null>(null);

  const sims = useSimOptions({ keyword: keyword || undefined });
  const chosen = useSimOptions({ iccids: iccids.join(',') }, iccids.length > 0);
  // ICCIDs of the address that are not the caller's SIMs (another account's, mistyped) are dropped, not quoted
  const [checked, setChecked] = useState(iccids.length === 0);
  const known = chosen.isPlaceholderData ? undefined : chosen.data;
  useEffect(() => {
    if (checked || !known) return;
    const mine = new Set(known.map((x) => x.iccid));
    setIccids((cur) => cur.filter((i) => mine.has(i)));
    setChecked(true);
  }, [known, checked]);
  const packages = usePackages({ pageSize: 100, iccid: iccids.length === 1 ? iccids[0] : undefined });
  const lines = useMemo(
    () => (packageId == null ? [] : iccids.map((iccid) => ({ iccid, packageId }))),
    [iccids, packageId],
  );
  const quote = useQuote(lines);
  const create = useCreateOrder();
  const pay = usePayOrder();
  const cancel = useCancelOrder();

  const options = useMemo(() => {
    const byIccid = new Map([...(chosen.data ?? []), ...(sims.data ?? [])].map((s) => [s.iccid, s]));
    return [...byIccid.values()].map((s) => ({
      value: s.iccid,
      label: t('order.mall.simOption', {
        iccid: s.iccid,
        device: s.deviceName || s.deviceSn || t('order.mall.noDevice'),
        left: formatMb(s.leftMb),
      }),
    }));
  }, [sims.data, chosen.data, t]);

  const startPayment = async (o: OrderDetail) => {
    setPayment(null);
    const started = await pay.mutateAsync({ id: o.id, lang: language });
    setPayment(started);
  };

  const buy = async () => {
    if (!lines.length) return;
    try {
      const o = await create.mutateAsync({ clientRequestId: requestId, lines });
      setOrder(o);
      await startPayment(o);
    } catch {
      // the request layer has said why
    }
  };

  const closeModal = () => {
    setOrder(null);
    setPayment(null);
    // the next purchase is a new request
    setRequestId(newRequestId());
  };

  const list = packages.data?.list ?? [];
  return (
    <Flex vertical gap={16}>
      <Card variant="borderless">
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('order.mall.title')}
        </Typography.Title>
        <Typography.Text type="secondary">{t('order.mall.subtitle')}</Typography.Text>
      </Card>
      <Card variant="borderless" title={t('order.mall.simsLabel')}>
        <Select
          mode="multiple"
          allowClear
          showSearch
          filterOption={false}
          style={{ width: '100%' }}
          placeholder={t('order.mall.simsPlaceholder')}
          value={iccids}
          onChange={(v) => {
            setIccids(v);
            setRequestId(newRequestId());
          }}
          onSearch={setKeyword}
          options={options}
          loading={sims.isFetching}
          maxTagTextLength={24}
          data-testid="sim-picker"
          aria-label={t('order.mall.simsLabel')}
        />
      </Card>
      <Card variant="borderless" title={t('order.mall.packagesLabel')}>
        {packages.isPending ? (
          <Spin />
        ) : list.length === 0 ? (
          <Empty description={t('order.mall.noPackages')} />
        ) : (
          <Row gutter={[16, 16]} role="radiogroup" aria-label={t('order.mall.packagesLabel')}>
            {list.map((p) => (
              <Col key={p.id} xs={24} sm={12} lg={8} xxl={6}>
                <PackageCard
                  pkg={p}
                  selected={p.id === packageId}
                  onSelect={() => {
                    setPackageId(p.id);
                    setRequestId(newRequestId());
                  }}
                />
              </Col>
            ))}
          </Row>
        )}
      </Card>
      <Card variant="borderless">
        <Flex justify="space-between" align="center" gap={12} wrap>
          {!lines.length ? (
            <Typography.Text type="secondary">{t('order.mall.pickBoth')}</Typography.Text>
          ) : quote.isError ? (
            <Alert type="error" showIcon message={quoteProblem(quote.error, t)} data-testid="quote-error" />
          ) : (
            <Space size={8} align="baseline" data-testid="quote">
              <Typography.Text>{t('order.mall.quote', { n: iccids.length })}</Typography.Text>
              <Typography.Text strong style={{ fontSize: 22 }}>
                {quote.data ? formatFen(quote.data.totalFen) : '…'}
              </Typography.Text>
            </Space>
          )}
          <Button
            type="primary"
            size="large"
            disabled={!lines.length || !quote.data || quote.isError}
            loading={create.isPending || pay.isPending}
            onClick={() => void buy()}
          >
            {t('order.mall.buy')}
          </Button>
        </Flex>
      </Card>
      {order && (
        <PayModal
          order={order}
          payment={payment}
          retrying={pay.isPending}
          onRetry={() => void startPayment(order).catch(() => {})}
          onCancelOrder={() =>
            void cancel
              .mutateAsync(order.id)
              .then(closeModal)
              .catch(() => {})
          }
          onClose={closeModal}
          onRecords={() => {
            closeModal();
            void navigate('/flowRate/flowRateLog');
          }}
        />
      )}
      {create.isError && !order && <Typography.Text type="danger">{t('order.mall.buyFailed')}</Typography.Text>}
    </Flex>
  );
}
