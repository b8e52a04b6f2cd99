import { WORK_ORDER_ATTACHMENT_MAX_BYTES } from '@cpc/contracts/work-order';

/** The file-name extensions the attachment bucket takes (the server checks the bytes against the name). */
export const ATTACHMENT_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp', 'pdf', 'zip', 'txt', 'log', 'csv', 'json'];

/** The `accept` attribute of the attachment picker. */
export const ATTACHMENT_ACCEPT_ATTR = ATTACHMENT_EXTENSIONS.map((e) => `.${e}`).join(',');

export type AttachmentProblem = 'type' | 'size' | 'empty';

/**
 * Client-side pre-check of an attachment before it is uploaded: a known extension and at most 10 MB. The server
 * checks the bytes again; this only spares a useless upload.
 */
export function checkAttachment(file: { name: string; size: number }): AttachmentProblem | null {
  const ext = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? '';
  if (!ATTACHMENT_EXTENSIONS.includes(ext)) return 'type';
  if (file.size === 0) return 'empty';
  if (file.size > WORK_ORDER_ATTACHMENT_MAX_BYTES) return 'size';
  return null;
}

/** A size in bytes for people: B, KB or MB with one decimal. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
}

/** Whether rich text says anything: words or an image (the editor's empty paragraph does not). */
export function hasRichContent(html: string | undefined): boolean {
  if (!html) return false;
  if (/<img\b/i.test(html)) return true;
  return (
    html
      .replace(/<[^>]*>/g, '')
      .replace(/&nbsp;/g, ' ')
      .trim() !== ''
  );
}
