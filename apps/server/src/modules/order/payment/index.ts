import type { Config } from '../../../config.ts';
import { AlipayGateway } from './alipay.ts';
import { SandboxGateway } from './sandbox.ts';
import type { PaymentGateway } from './provider.ts';
import { AppError } from '../../../plugins/errors.ts';

/** PAYMENT_PROVIDER=off: a server that takes no money sells nothing; no notification is ever taken. */
class PaymentsOff implements PaymentGateway {
  readonly name = 'off' as const;
  start(): Promise<never> {
    return Promise.reject(new AppError(503, 'order.paymentOff'));
  }
  verify(): null {
    return null;
  }
  refund(): Promise<never> {
    return Promise.reject(new AppError(503, 'order.paymentOff'));
  }
}

export type { PaymentGateway, PayableOrder, VerifiedNotice } from './provider.ts';
export { SandboxGateway } from './sandbox.ts';
export { AlipayGateway } from './alipay.ts';

/**
 * The notify URL a provider's notifications go to when configured; else the gateway uses the server's public
 * origin, passed with each payment (the address it listens on, when PUBLIC_URL is unset outside production).
 */
export function notifyUrlOf(config: Config, provider: string): string | undefined {
  if (config.PAYMENT_NOTIFY_URL) return config.PAYMENT_NOTIFY_URL;
  return config.PUBLIC_URL ? `${config.PUBLIC_URL.replace(/\/+$/, '')}/pay/notify/${provider}` : undefined;
}

/** The gateways this server answers notifications of: the configured one, and the sandbox outside production. */
export function createGateway(config: Config, sandboxSecret: string): PaymentGateway {
  if (config.PAYMENT_PROVIDER === 'off') return new PaymentsOff();
  if (config.PAYMENT_PROVIDER === 'alipay') {
    return new AlipayGateway({
      appId: config.ALIPAY_APP_ID!,
      privateKey: config.ALIPAY_PRIVATE_KEY!,
      alipayPublicKey: config.ALIPAY_PUBLIC_KEY!,
      gateway: config.ALIPAY_GATEWAY,
      notifyUrl: notifyUrlOf(config, 'alipay'),
    });
  }
  return new SandboxGateway(sandboxSecret, notifyUrlOf(config, 'sandbox'));
}
