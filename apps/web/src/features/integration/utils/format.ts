import type { AppKeyState, PrintJobState, WebhookDeliveryState } from '@cpc/contracts/integration-constants';

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
