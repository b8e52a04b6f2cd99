import { BIND_KEY_RULE, ICCID_RULE, SECRET_RULE, SN_RULE, isImei } from '@cpc/contracts/device-constants';

type T = (key: string) => string;

/** The registration's field rules (the server's, from contracts), as message keys; optional fields may be empty. */
export const checks = {
  sn: (v?: string) =>
    !v?.trim() ? 'deviceRegistry.message.snRequired' : SN_RULE.test(v.trim()) ? null : 'deviceRegistry.message.sn',
  model: (v?: string) => (v?.trim() ? null : 'deviceRegistry.message.modelRequired'),
  bindKey: (v?: string) => (!v?.trim() || BIND_KEY_RULE.test(v.trim()) ? null : 'deviceRegistry.message.bindKey'),
  secret: (v?: string) => (!v?.trim() || SECRET_RULE.test(v.trim()) ? null : 'deviceRegistry.message.secret'),
  iccid: (v?: string) => (!v?.trim() || ICCID_RULE.test(v.trim()) ? null : 'deviceRegistry.message.iccid'),
  imei: (v?: string) => (!v?.trim() || isImei(v.trim()) ? null : 'deviceRegistry.message.imei'),
};

export const toRule = (check: (v?: string) => string | null, t: T) => ({
  validator: async (_: unknown, value?: string) => {
    const key = check(value);
    if (key) throw new Error(t(key));
  },
});

/** The body of a single registration: empty optional fields are left out, so the server generates them. */
export function registerBody(
  values: Partial<Record<'sn' | 'model' | 'bindKey' | 'secret' | 'iccid' | 'imei', string>>,
) {
  const opt = (v?: string) => (v?.trim() ? v.trim() : undefined);
  return {
    sn: (values.sn ?? '').trim(),
    model: (values.model ?? '').trim(),
    bindKey: opt(values.bindKey),
    secret: opt(values.secret),
    iccid: opt(values.iccid),
    imei: opt(values.imei),
  };
}
