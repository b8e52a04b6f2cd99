import { UPLOAD_ACCEPT, UPLOAD_MAX_BYTES } from '@cpc/contracts/constants';

const EXTENSIONS = /\.(jpe?g|png)$/i;

/**
 * Client-side pre-check of an image before it is uploaded (SPEC §9: jpg or png, at most 10 MB). The server
 * checks the bytes again; this only spares a useless upload. Returns the i18n key of the problem or null.
 */
export function checkUploadFile(file: { name?: string; type?: string; size: number }): string | null {
  const typeOk = file.type ? UPLOAD_ACCEPT.includes(file.type) : EXTENSIONS.test(file.name ?? '');
  if (!typeOk) return 'auth.validation.uploadType';
  if (file.size > UPLOAD_MAX_BYTES) return 'auth.validation.uploadSize';
  return null;
}

/** The `accept` attribute of the file picker. */
export const UPLOAD_ACCEPT_ATTR = [...UPLOAD_ACCEPT, '.jpg', '.jpeg', '.png'].join(',');
