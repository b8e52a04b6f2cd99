import type { OpenDevice, OpenPrintJob } from '@cpc/contracts/open-api';
import type { PrintMsg } from '@cpc/contracts/device-protocol';
import type { JobRow, SendRow } from './repository/index.ts';

const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

/** A job as the open API answers it. */
export function toOpenJob(r: JobRow): OpenPrintJob {
  return {
    id: r.id,
    originId: r.origin_id,
    deviceSn: r.sn,
    state: r.state,
    error: r.error,
    copies: r.copies,
    attempts: r.attempts,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    sentAt: iso(r.sent_at),
    deliveredAt: iso(r.delivered_at),
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    expireAt: iso(r.expire_at)!,
  };
}

const FAULT = { out: 'paper_out', 'cover-open': 'cover_open', overheat: 'overheat' } as const;

/** A job as it is sent to the printer (its payload base64 for ESC/POS, text for markup). */
export function printMsg(r: SendRow): PrintMsg {
  return {
    id: r.id,
    format: r.format,
    content:
      r.format === 'escpos' ? Buffer.from(r.payload).toString('base64') : Buffer.from(r.payload).toString('utf8'),
    copies: r.copies,
    expireAt: iso(r.expire_at)!,
    attempt: Math.max(1, r.attempts),
  };
}

/** A device as the open API shows it: a fault only while online. */
export function openDevice(d: {
  sn: string;
  name: string;
  status: 'online' | 'offline';
  paper: keyof typeof FAULT | 'ok';
  last_seen_at: Date | null;
  model: string;
  kind: 'printer' | 'android-terminal';
  paper_width_mm: number;
}): OpenDevice {
  const fault = d.status === 'online' && d.paper !== 'ok' ? FAULT[d.paper] : null;
  return {
    sn: d.sn,
    name: d.name,
    model: d.model,
    kind: d.kind,
    paperWidthMm: d.paper_width_mm,
    status: d.status,
    state: d.status === 'offline' ? 'offline' : fault ? 'fault' : 'ok',
    fault,
    lastSeenAt: iso(d.last_seen_at),
  };
}
