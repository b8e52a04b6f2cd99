import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import QRCode from 'qrcode';
import { fenToYuan, yuanToFen } from '@cpc/contracts';
import type { PayableOrder, PaymentGateway, VerifiedNotice } from './provider.ts';

/** The content Alipay-style gateways sign: the parameters but `sign` and `sign_type`, sorted, `k=v` joined by `&`. */
export function signContent(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('base64');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What the sandbox cashier shows and pays: signed by the server, so the page cannot be handed another amount. */
export interface SandboxTrade {
  orderNo: string;
  tenantId: number;
  totalFen: number;
  subject: string;
  /** ms since the epoch: the trade's end (the order's close). */
  exp: number;
  notifyUrl: string;
  lang: 'zh' | 'en';
}

/**
 * The built-in stand-in gateway (`PAYMENT_PROVIDER=sandbox`, refused with NODE_ENV=production). It signs like
 * Alipay's notifications do (sorted `k=v&…`), with HMAC-SHA256 under a secret of this installation.
 */
export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox' as const;

  constructor(
    private secret: string,
    /** PAYMENT_NOTIFY_URL, or PUBLIC_URL + /pay/notify/sandbox; else the server's public origin given to start(). */
    private notifyUrl: string | undefined,
  ) {}

  /** A trade token for the cashier page: base64url JSON and its HMAC. */
  tradeToken(t: SandboxTrade): string {
    const body = Buffer.from(JSON.stringify(t)).toString('base64url');
    return `${body}.${hmac(this.secret, `trade:${body}`).replace(/=+$/, '')}`;
  }

  /** The trade a token carries, or null when it was not signed here (or is malformed). */
  readTrade(token: string): SandboxTrade | null {
    const [body, mac] = token.split('.');
    if (!body || !mac || !sameText(mac, hmac(this.secret, `trade:${body}`).replace(/=+$/, ''))) return null;
    try {
      const t = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SandboxTrade;
      return typeof t.orderNo === 'string' && Number.isInteger(t.totalFen) ? t : null;
    } catch {
      return null;
    }
  }

  async start(order: PayableOrder, ctx: { origin: string; lang: 'zh' | 'en' }) {
    const token = this.tradeToken({
      orderNo: order.orderNo,
      tenantId: order.tenantId,
      totalFen: order.totalFen,
      subject: order.subject,
      exp: order.expiresAt.getTime(),
      notifyUrl: this.notifyUrl ?? `${ctx.origin}/pay/notify/sandbox`,
      lang: ctx.lang,
    });
    const cashierUrl = `${ctx.origin}/pay/sandbox/cashier?trade=${encodeURIComponent(token)}`;
    return { cashierUrl, qrContent: cashierUrl };
  }

  /** Signs a notification's parameters as the gateway does (also what the tests use to forge one). */
  sign(params: Record<string, string>): Record<string, string> {
    const all = { ...params, sign_type: 'HMAC-SHA256' };
    return { ...all, sign: hmac(this.secret, signContent(all)) };
  }

  /** The notification the gateway posts when a trade is paid (`TRADE_SUCCESS`) or fails (`TRADE_CLOSED`). */
  notification(t: SandboxTrade, outcome: 'pay' | 'fail'): Record<string, string> {
    return this.sign({
      app_id: 'sandbox',
      notify_id: randomBytes(12).toString('hex'),
      notify_time: new Date().toISOString(),
      out_trade_no: t.orderNo,
      trade_no: `SBX${t.orderNo}`,
      trade_status: outcome === 'pay' ? 'TRADE_SUCCESS' : 'TRADE_CLOSED',
      total_amount: fenToYuan(t.totalFen),
      passback_params: `tenant=${t.tenantId}`,
      subject: t.subject,
    });
  }

  verify(params: Record<string, string>): VerifiedNotice | null {
    const sign = params.sign;
    if (!sign || params.sign_type !== 'HMAC-SHA256' || !sameText(sign, hmac(this.secret, signContent(params)))) {
      return null;
    }
    return noticeOf(params);
  }

  async refund(): Promise<void> {
    // the sandbox's money is not real: a refund always succeeds
  }

  /** Renders the cashier page (zh/en): amount, a QR code of this page, and Pay / Fail. */
  async cashierPage(token: string, t: SandboxTrade | null, lang: 'zh' | 'en', selfUrl: string): Promise<string> {
    const T = CASHIER_TEXT[lang];
    if (!t) return page(lang, T.title, `<p class="bad">${T.invalid}</p>`);
    const qr = await QRCode.toString(selfUrl, { type: 'svg', margin: 1, width: 180 });
    const expired = Date.now() > t.exp;
    return page(
      lang,
      T.title,
      `<p class="muted">${T.merchant}</p>
      <p>${T.orderNo}: <b>${esc(t.orderNo)}</b></p>
      <p>${esc(t.subject)}</p>
      <p class="amount" data-testid="amount">¥${fenToYuan(t.totalFen)}</p>
      <div class="qr" aria-label="${T.scan}">${qr}</div>
      <p class="muted">${T.scan}</p>
      ${
        expired
          ? `<p class="bad">${T.expired}</p>`
          : `<form method="post" action="/pay/sandbox/submit">
        <input type="hidden" name="trade" value="${esc(token)}">
        <input type="hidden" name="lang" value="${lang}">
        <button name="action" value="pay" class="pay">${T.pay}</button>
        <button name="action" value="fail" class="fail">${T.fail}</button>
      </form>`
      }`,
    );
  }

  resultPage(lang: 'zh' | 'en', outcome: 'pay' | 'fail' | 'invalid'): string {
    const T = CASHIER_TEXT[lang];
    const text = outcome === 'pay' ? T.paid : outcome === 'fail' ? T.failed : T.invalid;
    return page(
      lang,
      T.title,
      `<p class="${outcome === 'pay' ? 'good' : 'bad'}" data-testid="result">${text}</p>
      <p class="muted">${T.close}</p>`,
    );
  }
}

/** A notice from Alipay-style parameters (shared by the sandbox and Alipay). */
export function noticeOf(params: Record<string, string>): VerifiedNotice {
  const tenant = /(?:^|&)tenant=(\d{1,18})(?:&|$)/.exec(decodeURIComponentSafe(params.passback_params ?? ''));
  const status = params.trade_status;
  return {
    orderNo: params.out_trade_no ?? '',
    tradeNo: params.trade_no ?? '',
    amountFen: yuanToFen(params.total_amount ?? ''),
    tenantId: tenant ? Number(tenant[1]) : null,
    status:
      status === 'TRADE_SUCCESS' || status === 'TRADE_FINISHED'
        ? 'paid'
        : status === 'TRADE_CLOSED'
          ? 'failed'
          : 'other',
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const CASHIER_TEXT = {
  zh: {
    title: '沙箱收银台',
    merchant: '云打印控制台 · 测试支付，不产生真实扣款',
    orderNo: '订单号',
    scan: '用手机扫码打开本页，或直接点击下方按钮',
    pay: '支付',
    fail: '支付失败',
    paid: '支付成功，正在通知商户。可以关闭此页面。',
    failed: '支付失败。可以关闭此页面，在控制台重新支付。',
    invalid: '交易无效或已被篡改。',
    expired: '交易已超时关闭。',
    close: '结果会在控制台中显示。',
  },
  en: {
    title: 'Sandbox cashier',
    merchant: 'Cloud Print Console · test payment, no real money is taken',
    orderNo: 'Order number',
    scan: 'Scan to open this page on a phone, or use the buttons below',
    pay: 'Pay',
    fail: 'Fail',
    paid: 'Paid; the merchant is being notified. You can close this page.',
    failed: 'Payment failed. You can close this page and pay again in the console.',
    invalid: 'The trade is invalid or was tampered with.',
    expired: 'The trade timed out and is closed.',
    close: 'The console shows the result.',
  },
} as const;

function page(lang: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif;background:#f5f5f5;margin:0;padding:24px;color:#1f1f1f}
main{max-width:420px;margin:0 auto;background:#fff;border-radius:8px;padding:24px;text-align:center;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:20px;margin:0 0 12px}.muted{color:#8c8c8c;font-size:13px}.amount{font-size:32px;font-weight:600;color:#1677ff;margin:8px 0}
.qr svg{width:180px;height:180px}button{font-size:16px;padding:8px 28px;margin:8px;border-radius:6px;border:1px solid #d9d9d9;cursor:pointer}
.pay{background:#1677ff;color:#fff;border-color:#1677ff}.fail{background:#fff;color:#ff4d4f;border-color:#ff4d4f}
.good{color:#52c41a;font-size:18px}.bad{color:#ff4d4f;font-size:18px}
@media (prefers-color-scheme: dark){body{background:#141414;color:#e8e8e8}main{background:#1f1f1f;box-shadow:none}.qr svg{background:#fff}.fail{background:#1f1f1f}}
</style></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}
