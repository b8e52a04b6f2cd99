import type { AppKeyState, PrintJobState, WebhookDeliveryState } from '@cpc/contracts/integration-constants';

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:mm:ss` in local time: the request log and job times need the seconds. */
export function formatSeconds(time: string | null | undefined): string {
  if (!time) return '-';
  const d = new Date(time);
  if (Number.isNaN(d.getTime())) return '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** antd Tag colours (preset names follow the theme in light and dark). */
export const JOB_STATE_COLOR: Record<PrintJobState, string> = {
  queued: 'default',
  sent: 'processing',
  delivered: 'cyan',
  printing: 'blue',
  printed: 'success',
  failed: 'error',
  timeout: 'warning',
  expired: 'orange',
  canceled: 'default',
};

export const DELIVERY_STATE_COLOR: Record<WebhookDeliveryState, string> = {
  pending: 'default',
  retrying: 'warning',
  succeeded: 'success',
  failed: 'error',
};

export const KEY_STATE_COLOR: Record<AppKeyState, string> = { active: 'success', disabled: 'default' };

/** The first part of a job id, enough to tell jobs apart in a table. */
export const shortId = (id: string) => id.slice(0, 8);
