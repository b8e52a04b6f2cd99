import { Button, Checkbox, Drawer, Flex, Form, Input, InputNumber, Switch } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { CARRIERS, yuanToFen, fenToYuan, type PackageView } from '@cpc/contracts/order';
import { useFormLanguage } from '@/lib/use-form-language';
import { serverFieldErrors, sayServerMessage } from '@/lib/server-messages';
import { useCreatePackage, useUpdatePackage } from '../api/order';

interface Values {
  name: string;
  dataMb: number | null;
  validityDays: number | null;
  price: string;
  onShelf: boolean;
  perSimLimit: number | null;
  carriers: string[];
  planMinMb: number | null;
  planMaxMb: number | null;
  sort: number | null;
}
const DEFAULTS: Values = {
  name: '',
  dataMb: 1024,
  validityDays: 30,
  price: '',
  onShelf: true,
  perSimLimit: null,
  carriers: [],
  planMinMb: null,
  planMaxMb: null,
  sort: 0,
};
const FIELD_OF: Record<string, keyof Values> = { priceFen: 'price' };

interface PackageDrawerProps {
  open: boolean;
  record: PackageView | null;
  onClose: () => void;
  onSaved: (p: PackageView, created: boolean) => void;
}

/** Add or edit a package (staff). The price is typed in yuan and sent as integer fen, parsed without floats. */
export function PackageDrawer({ open, record, onClose, onSaved }: PackageDrawerProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  useFormLanguage(form);
  const create = useCreatePackage();
  const update = useUpdatePackage();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue(
      record
        ? {
            name: record.name,
            dataMb: record.dataMb,
            validityDays: record.validityDays,
            price: fenToYuan(record.priceFen),
            onShelf: record.onShelf,
            perSimLimit: record.perSimLimit,
            carriers: record.carriers,
            planMinMb: record.planMinMb,
            planMaxMb: record.planMaxMb,
            sort: record.sort,
          }
        : DEFAULTS,
    );
  }, [open, record, form]);

  const submit = async () => {
    let v: Values;
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    const body = {
      name: v.name.trim(),
      dataMb: v.dataMb ?? 0,
      validityDays: v.validityDays ?? 0,
      priceFen: yuanToFen(v.price) ?? 0,
      onShelf: v.onShelf,
      perSimLimit: v.perSimLimit ?? null,
      carriers: v.carriers as Array<(typeof CARRIERS)[number]>,
      planMinMb: v.planMinMb ?? null,
      planMaxMb: v.planMaxMb ?? null,
      sort: v.sort ?? 0,
    };
    try {
      const saved = record ? await update.mutateAsync({ id: record.id, ...body }) : await create.mutateAsync(body);
      onSaved(saved, !record);
    } catch (err) {
      form.setFields(
        serverFieldErrors(err).map((f) => ({
          name: FIELD_OF[f.field.split('.')[0]] ?? (f.field.split('.')[0] as keyof Values),
          errors: [sayServerMessage(f, t)],
        })),
      );
    }
  };

  const required = { required: true, message: t('order.goods.form.required') };
  return (
    <Drawer
      open={open}
      size={440}
      title={record ? t('order.goods.form.editTitle') : t('order.goods.form.createTitle')}
      onClose={onClose}
      forceRender
      footer={
        <Flex justify="flex-end" gap={8}>
          <Button onClick={onClose}>{t('order.goods.form.cancel')}</Button>
          <Button type="primary" loading={create.isPending || update.isPending} onClick={() => void submit()}>
            {t('order.goods.form.save')}
          </Button>
        </Flex>
      }
    >
      <Form<Values> name="trafficPackage" form={form} layout="vertical" initialValues={DEFAULTS}>
        <Form.Item name="name" label={t('order.goods.form.name')} rules={[{ ...required, whitespace: true }]}>
          <Input maxLength={50} />
        </Form.Item>
        <Flex gap={12}>
          <Form.Item name="dataMb" label={t('order.goods.form.dataMb')} rules={[required]} style={{ flex: 1 }}>
            <InputNumber min={1} max={100000000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item
            name="validityDays"
            label={t('order.goods.form.validityDays')}
            rules={[required]}
            style={{ flex: 1 }}
          >
            <InputNumber min={1} max={3650} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Flex>
        <Form.Item
          name="price"
          label={t('order.goods.form.price')}
          extra={t('order.goods.form.priceHint')}
          rules={[
            required,
            {
              validator: async (_, v: string) => {
                if (v && (yuanToFen(v) == null || yuanToFen(v)! > 100_000_000)) {
                  throw new Error(t('order.goods.form.priceInvalid'));
                }
              },
            },
          ]}
        >
          <Input prefix="¥" inputMode="decimal" maxLength={12} placeholder="19.90" />
        </Form.Item>
        <Form.Item name="onShelf" label={t('order.goods.form.onShelf')} valuePropName="checked">
          <Switch />
        </Form.Item>
        <Form.Item
          name="perSimLimit"
          label={t('order.goods.form.perSimLimit')}
          extra={t('order.goods.form.perSimLimitHint')}
        >
          <InputNumber min={1} max={1000} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="carriers" label={t('order.goods.form.carriers')} extra={t('order.goods.form.carriersHint')}>
          <Checkbox.Group options={CARRIERS.map((c) => ({ value: c, label: t(`order.carrier.${c}`) }))} />
        </Form.Item>
        <Flex gap={12}>
          <Form.Item name="planMinMb" label={t('order.goods.form.planMinMb')} style={{ flex: 1 }}>
            <InputNumber min={0} max={100000000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Form.Item name="planMaxMb" label={t('order.goods.form.planMaxMb')} style={{ flex: 1 }}>
            <InputNumber min={0} max={100000000} precision={0} style={{ width: '100%' }} />
          </Form.Item>
        </Flex>
        <Form.Item name="sort" label={t('order.goods.form.sort')}>
          <InputNumber min={0} max={100000} precision={0} style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
