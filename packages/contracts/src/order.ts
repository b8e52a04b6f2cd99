import { z } from 'zod';
import { id, keywordField, pageFields, queryId, textLine } from './device.ts';

/**
 * Traffic packages ("mall goods"), orders, payment and top-up records (issue 13; `/flowRate/flowRateLog`).
 * Money is integer fen everywhere, never floating point.
 */

/** An order's life: pending payment → paid → fulfilled; or canceled / closed unpaid; or refunded by staff. */
export const ORDER_STATES = ['pending', 'paid', 'fulfilled', 'canceled', 'closed', 'refunded'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
/** An unpaid order closes after this many minutes. */
export const ORDER_CLOSE_MINUTES = 15;
/** The payment providers: the built-in sandbox gateway (refused in production) and Alipay. */
export const PAYMENT_PROVIDERS = ['sandbox', 'alipay'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

/** The carriers a package can be limited to (the codes `carrierOfIccid` gives). */
export const CARRIERS = ['cmcc', 'cucc', 'ctcc'] as const;
export type Carrier = (typeof CARRIERS)[number];
/** The most lines (package × SIM) one order holds. */
export const ORDER_MAX_LINES = 200;

/** Formats integer fen as yuan with two decimals ("12.34"), by integer arithmetic only. */
export function fenToYuan(fen: number): string {
  const sign = fen < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(fen));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
/** Parses a yuan amount string ("12.34", "12.3", "12") to integer fen; null when it is not one. */
export function yuanToFen(yuan: string): number | null {
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(yuan.trim());
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

export const orderState = z.enum(ORDER_STATES);
export const paymentProvider = z.enum(PAYMENT_PROVIDERS);
const carrier = z.enum(CARRIERS);
const iccidField = z
  .string()
  .trim()
  .regex(/^\d{19,20}$/, 'rule.iccid');
const mbField = z.number().int().min(0).max(100_000_000);

/**
 * Traffic packages ("mall goods"), orders and payment. Paths are under /apiAdmin.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /order/package/list | flowRate:goods (staff: all) or flowRate:buy (on shelf, fitting `iccid`) | packageListQuery | { list: PackageView[], total } |
 * | POST /order/package/create, /update, /shelf, /delete | flowRate:goods (staff) | packageBody, packageEditBody, packageShelfBody, { id } | PackageView / null |
 * | GET /order/sim/options | flowRate:buy | simOptionsQuery | SimOption[] |
 * | POST /order/quote | flowRate:buy | orderLinesBody | OrderQuote |
 * | POST /order/create | flowRate:buy | orderCreateBody | OrderDetail |
 * | POST /order/pay | flowRate:buy | orderPayBody | PayStart |
 * | POST /order/cancel | flowRate:buy | { id } | OrderDetail |
 * | GET /order/list, /order/detail | flowRate:view, :buy or :refund (staff: every tenant) | orderListQuery, { id } | { list: OrderView[], total }, OrderDetail |
 * | POST /order/refund | flowRate:refund (staff) | orderRefundBody | OrderDetail |
 *
 * The gateway side (no console token): `POST /pay/notify/:provider` (form-encoded, answers `success` / `fail`),
 * the sandbox cashier `GET /pay/sandbox/cashier?trade=…` and its `POST /pay/sandbox/submit`.
 */
const packageFields = {
  name: textLine(50).min(1, 'rule.nameRequired'),
  dataMb: mbField.min(1),
  validityDays: z.number().int().min(1).max(3650),
  /** Integer fen (¥1 = 100). */
  priceFen: z.number().int().min(0).max(100_000_000),
  onShelf: z.boolean(),
  /** How many times one SIM may buy this package (orders not canceled, closed or refunded); null: no limit. */
  perSimLimit: z.number().int().min(1).max(1000).nullable(),
  /** The carriers it fits; empty: every carrier. */
  carriers: z
    .array(carrier)
    .max(CARRIERS.length)
    .refine((c) => new Set(c).size === c.length, 'rule.entryRepeat'),
  /** The SIM plans it fits: the SIM's plan total (MB) within [planMinMb, planMaxMb]; null: no bound. */
  planMinMb: mbField.nullable(),
  planMaxMb: mbField.nullable(),
  sort: z.number().int().min(0).max(100000),
};
export const packageBody = z
  .object({
    ...packageFields,
    onShelf: packageFields.onShelf.default(false),
    perSimLimit: packageFields.perSimLimit.default(null),
    carriers: packageFields.carriers.default([]),
    planMinMb: packageFields.planMinMb.default(null),
    planMaxMb: packageFields.planMaxMb.default(null),
    sort: packageFields.sort.default(0),
  })
  .strict()
  .refine((b) => b.planMinMb == null || b.planMaxMb == null || b.planMinMb <= b.planMaxMb, {
    message: 'rule.planBounds',
    path: ['planMaxMb'],
  });
export type PackageBody = z.input<typeof packageBody>;

export const packageEditBody = z
  .object({
    id,
    name: packageFields.name.optional(),
    dataMb: packageFields.dataMb.optional(),
    validityDays: packageFields.validityDays.optional(),
    priceFen: packageFields.priceFen.optional(),
    onShelf: packageFields.onShelf.optional(),
    perSimLimit: packageFields.perSimLimit.optional(),
    carriers: packageFields.carriers.optional(),
    planMinMb: packageFields.planMinMb.optional(),
    planMaxMb: packageFields.planMaxMb.optional(),
    sort: packageFields.sort.optional(),
  })
  .strict();
export type PackageEditBody = z.input<typeof packageEditBody>;

export const packageShelfBody = z.object({ id, onShelf: z.boolean() }).strict();

export const packageView = z.object({
  id: z.number().int(),
  name: z.string(),
  dataMb: z.number().int(),
  validityDays: z.number().int(),
  priceFen: z.number().int(),
  onShelf: z.boolean(),
  perSimLimit: z.number().int().nullable(),
  carriers: z.array(z.string()),
  planMinMb: z.number().int().nullable(),
  planMaxMb: z.number().int().nullable(),
  sort: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PackageView = z.infer<typeof packageView>;

export const packageListQuery = z
  .object({
    ...pageFields,
    pageSize: z.coerce.number().int().min(1).max(100).default(100),
    keyword: keywordField,
    /** Customers: only the packages that fit this SIM. */
    iccid: iccidField.optional(),
  })
  .strict();
export type PackageListQuery = z.input<typeof packageListQuery>;

/** The SIM picker: the caller's SIMs (tenant and data scope), by keyword or by a list of ICCIDs. */
export const simOptionsQuery = z
  .object({
    keyword: keywordField,
    /** Comma-separated ICCIDs (the traffic query's selection). */
    iccids: z
      .string()
      .max(21 * ORDER_MAX_LINES)
      .regex(/^[\d,\s]*$/, 'rule.iccid')
      .optional(),
  })
  .strict();
export type SimOptionsQuery = z.input<typeof simOptionsQuery>;

export const simOption = z.object({
  iccid: z.string(),
  deviceId: z.number().int().nullable(),
  deviceName: z.string(),
  deviceSn: z.string(),
  carrier: z.string(),
  planMb: z.number(),
  usedMb: z.number(),
  leftMb: z.number(),
  expiresAt: z.string().nullable(),
  state: z.string(),
});
export type SimOption = z.infer<typeof simOption>;

const orderLineInput = z.object({ iccid: iccidField, packageId: id }).strict();
export const orderLinesBody = z
  .object({ lines: z.array(orderLineInput).min(1, 'rule.linesRequired').max(ORDER_MAX_LINES) })
  .strict();
export type OrderLinesBody = z.input<typeof orderLinesBody>;

/** Creation: only what to buy and the client's request id; the server prices it (a price field is refused). */
export const orderCreateBody = z
  .object({
    clientRequestId: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'rule.requestId'),
    lines: orderLinesBody.shape.lines,
  })
  .strict();
export type OrderCreateBody = z.input<typeof orderCreateBody>;

export const quoteLine = z.object({
  iccid: z.string(),
  packageId: z.number().int(),
  packageName: z.string(),
  dataMb: z.number().int(),
  validityDays: z.number().int(),
  priceFen: z.number().int(),
});
export const orderQuote = z.object({ lines: z.array(quoteLine), totalFen: z.number().int() });
export type OrderQuote = z.infer<typeof orderQuote>;

export const orderView = z.object({
  id: z.number().int(),
  orderNo: z.string(),
  tenantId: z.number().int(),
  tenantName: z.string(),
  userName: z.string(),
  state: orderState,
  totalFen: z.number().int(),
  lineCount: z.number().int(),
  /** The package names of its lines, distinct. */
  packages: z.array(z.string()),
  provider: z.string().nullable(),
  tradeNo: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  paidAt: z.string().nullable(),
  fulfilledAt: z.string().nullable(),
  closedAt: z.string().nullable(),
  refundedAt: z.string().nullable(),
  refundReason: z.string().nullable(),
  /** The last payment attempt the gateway reported as failed, when after the last success. */
  payFailedAt: z.string().nullable(),
});
export type OrderView = z.infer<typeof orderView>;

export const orderLineView = quoteLine.extend({
  id: z.number().int(),
  fulfilledAt: z.string().nullable(),
  planBefore: z.number().nullable(),
  planAfter: z.number().nullable(),
  expiresBefore: z.string().nullable(),
  expiresAfter: z.string().nullable(),
});
export type OrderLineView = z.infer<typeof orderLineView>;

export const orderDetail = orderView.extend({
  lines: z.array(orderLineView),
  refundedBy: z.string().nullable(),
});
export type OrderDetail = z.infer<typeof orderDetail>;

export const orderListQuery = z
  .object({
    ...pageFields,
    state: orderState.optional(),
    from: z.string().datetime({ offset: true }).optional(),
    to: z.string().datetime({ offset: true }).optional(),
    iccid: z
      .string()
      .trim()
      .regex(/^\d{1,20}$/, 'rule.iccidDigits')
      .optional(),
    packageId: queryId.optional(),
    orderNo: keywordField,
    /** Staff: one tenant's orders. */
    tenantId: queryId.optional(),
  })
  .strict();
export type OrderListQuery = z.input<typeof orderListQuery>;

export const orderIdQuery = z.object({ id: queryId }).strict();
export const orderPayBody = z.object({ id, lang: z.enum(['zh', 'en']).optional() }).strict();
export const payStart = z.object({
  provider: paymentProvider,
  /** Where the browser pays: the sandbox cashier, or Alipay's page. */
  cashierUrl: z.string(),
  /** What the QR code says (a URL the phone opens). */
  qrContent: z.string(),
});
export type PayStart = z.infer<typeof payStart>;
export const orderRefundBody = z.object({ id, reason: textLine(200).min(1, 'rule.reasonRequired') }).strict();

/** The dashboard's order widget: the latest orders and this month's spend (paid, not refunded). */
export const orderWidget = z.object({
  recent: z.array(
    z.object({
      id: z.number().int(),
      orderNo: z.string(),
      state: orderState,
      totalFen: z.number().int(),
      createdAt: z.string(),
      lineCount: z.number().int(),
    }),
  ),
  monthSpendFen: z.number().int(),
  monthOrders: z.number().int(),
});
export type OrderWidget = z.infer<typeof orderWidget>;
