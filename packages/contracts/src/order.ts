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
