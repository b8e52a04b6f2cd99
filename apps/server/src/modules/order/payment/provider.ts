import type { PaymentProvider as ProviderName } from '@cpc/contracts';

/** An order as a gateway needs it. */
export interface PayableOrder {
  orderNo: string;
  tenantId: number;
  totalFen: number;
  /** What the payer sees ("3 × 1 GB monthly"). */
  subject: string;
  expiresAt: Date;
}

/** A gateway's notification after its signature checked out, in the server's terms. */
export interface VerifiedNotice {
  orderNo: string;
  /** The gateway's own trade number. */
  tradeNo: string;
  /** Integer fen, parsed from the gateway's yuan string; null when it is not an amount. */
  amountFen: number | null;
  /** The tenant the trade was started for (passed through the gateway), when it says one. */
  tenantId: number | null;
  status: 'paid' | 'failed' | 'other';
}

/**
 * A payment gateway: starts a payment (where the browser goes, what the QR code says), checks the signature of
 * its asynchronous notifications, and refunds. `sandbox` (a stand-in served by this server, refused in
 * production) and `alipay` (alipay-sdk) implement it.
 */
export interface PaymentGateway {
  /** `off`: payments are not set up (PAYMENT_PROVIDER=off): nothing can be bought. */
  readonly name: ProviderName | 'off';
  /** `origin`: the server's public origin from configuration (never a request's Host): cashier and notify URLs. */
  start(
    order: PayableOrder,
    ctx: { origin: string; lang: 'zh' | 'en' },
  ): Promise<{ cashierUrl: string; qrContent: string }>;
  /** The notification's parameters as posted (form fields): the verified notice, or null when the signature fails. */
  verify(params: Record<string, string>): VerifiedNotice | null;
  refund(order: { orderNo: string; tradeNo: string | null; totalFen: number; reason: string }): Promise<void>;
}

/** Parameters that never reach the notification log. */
export const withoutSecrets = (params: Record<string, string>) => {
  const { sign: _sign, ...rest } = params;
  return rest;
};
