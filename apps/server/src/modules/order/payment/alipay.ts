import { AlipaySdk } from 'alipay-sdk';
import { fenToYuan } from '@cpc/contracts';
import { AppError } from '../../../plugins/errors.ts';
import { noticeOf } from './sandbox.ts';
import type { PayableOrder, PaymentGateway, VerifiedNotice } from './provider.ts';

export interface AlipaySettings {
  appId: string;
  /** The application's private key (PKCS#8 or PKCS#1 PEM, or its base64 body). */
  privateKey: string;
  /** Alipay's public key (PEM or base64 body): checks the notifications. */
  alipayPublicKey: string;
  gateway: string;
  /** The notify URL Alipay posts to; else the server's public origin (given to start()) + /pay/notify/alipay. */
  notifyUrl: string | undefined;
}

/** Real Alipay page / QR payment (`alipay.trade.page.pay`) through the official alipay-sdk. */
export class AlipayGateway implements PaymentGateway {
  readonly name = 'alipay' as const;
  private sdk: AlipaySdk;

  constructor(private settings: AlipaySettings) {
    this.sdk = new AlipaySdk({
      appId: settings.appId,
      privateKey: settings.privateKey,
      alipayPublicKey: settings.alipayPublicKey,
      gateway: settings.gateway,
      keyType: settings.privateKey.includes('BEGIN RSA PRIVATE KEY') ? 'PKCS1' : 'PKCS8',
      signType: 'RSA2',
    });
  }

  async start(order: PayableOrder, ctx: { origin: string; lang: 'zh' | 'en' }) {
    const minutes = Math.max(1, Math.floor((order.expiresAt.getTime() - Date.now()) / 60_000));
    const cashierUrl = this.sdk.pageExecute('alipay.trade.page.pay', 'GET', {
      notifyUrl: this.settings.notifyUrl ?? `${ctx.origin}/pay/notify/alipay`,
      bizContent: {
        out_trade_no: order.orderNo,
        total_amount: fenToYuan(order.totalFen),
        subject: order.subject,
        product_code: 'FAST_INSTANT_TRADE_PAY',
        timeout_express: `${minutes}m`,
        // qr_pay_mode 2: Alipay's page shows its QR code (the payer scans it, or signs in and pays)
        qr_pay_mode: '2',
        passback_params: encodeURIComponent(`tenant=${order.tenantId}`),
      },
    });
    return { cashierUrl, qrContent: cashierUrl };
  }

  verify(params: Record<string, string>): VerifiedNotice | null {
    let ok: boolean;
    try {
      // form fields arrive decoded: check the raw values
      ok = this.sdk.checkNotifySignV2(params);
    } catch {
      ok = false;
    }
    return ok ? noticeOf(params) : null;
  }

  async refund(order: { orderNo: string; totalFen: number; reason: string }): Promise<void> {
    let result: { code?: string };
    try {
      result = await this.sdk.exec('alipay.trade.refund', {
        bizContent: {
          out_trade_no: order.orderNo,
          refund_amount: fenToYuan(order.totalFen),
          refund_reason: order.reason.slice(0, 200),
          out_request_no: `R${order.orderNo}`,
        },
      });
    } catch {
      throw new AppError(502, 'order.providerFailed');
    }
    if (result.code !== '10000') throw new AppError(502, 'order.refundFailed');
  }
}
