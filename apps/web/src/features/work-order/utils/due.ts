/** How far a target time is from now, in the largest whole unit: minutes under 1 h, hours under 2 days, else days. */
export function dueIn(at: string, now: number): { late: boolean; n: number; unit: 'minutes' | 'hours' | 'days' } {
  const ms = Date.parse(at) - now;
  const late = ms < 0;
  const minutes = Math.max(1, Math.floor(Math.abs(ms) / 60_000));
  if (minutes < 60) return { late, n: minutes, unit: 'minutes' };
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return { late, n: hours, unit: 'hours' };
  return { late, n: Math.floor(hours / 24), unit: 'days' };
}

/** The key of an uploaded object from its signed URL (`…/objects/<key>?exp=…&sig=…`), when the view gives no key. */
export function objectKeyOf(attachment: { url: string; key?: unknown }): string | null {
  if (typeof attachment.key === 'string' && attachment.key) return attachment.key;
  const m = /\/objects\/([^?#]+)/.exec(attachment.url);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}
