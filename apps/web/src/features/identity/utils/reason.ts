/** The reject reason the server accepts (contracts identityRejectBody): 2–200 characters after trimming. */
export const REASON_MIN = 2;
export const REASON_MAX = 200;

export function checkReason(value: unknown): string | null {
  const s = typeof value === 'string' ? value.trim() : '';
  if (!s) return 'identity.reject.required';
  if (s.length < REASON_MIN || s.length > REASON_MAX) return 'identity.reject.length';
  return null;
}
