import { fileStamp } from '../../../lib/format/relative-time';
import type { RegisteredDevice } from '@cpc/contracts/device-registry';
import { IMPORT_COLUMNS } from '@cpc/contracts/device-constants';

// A byte-order mark, so Excel opens the file as UTF-8 (the server strips it on import).
const BOM = '\ufeff';
const EOL = '\r\n';

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export const csvField = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

const csvLine = (fields: string[]) => fields.map(csvField).join(',');

/** The factory import template: the header the server expects, nothing to delete before filling it in. */
export const templateCsv = (): string => BOM + csvLine([...IMPORT_COLUMNS]) + EOL;

/**
 * The generated credentials of a registration, in the import's own columns, so the same file can go to the
 * label printer and be kept with the factory records.
 */
export function keysCsv(devices: RegisteredDevice[]): string {
  const rows = devices.map((d) => csvLine([d.sn, d.model, d.bindKey, d.secret, d.iccid, d.imei]));
  return BOM + [csvLine([...IMPORT_COLUMNS]), ...rows].join(EOL) + EOL;
}

/** `device-keys-20240501-093005.csv`: several downloads of a day never overwrite each other. */
export const keysFileName = (at: Date): string => `device-keys-${fileStamp(at)}.csv`;

export const TEMPLATE_FILE_NAME = 'device-import-template.csv';

/** Saves text as a file through the browser's download. */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // the click has handed the blob to the download; keep the URL a moment for slow browsers
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
