import { UPLOAD_ACCEPT, UPLOAD_MAX_BYTES } from '@cpc/contracts/constants';

const EXTENSIONS = /\.(jpe?g|png)$/i;

/** Why an image may not be uploaded: not a jpg/png, or over 10 MB. */
export type ImageProblem = 'type' | 'size';

/**
 * Client-side pre-check of an image before it is uploaded (SPEC §9: jpg or png, at most 10 MB). The server
 * checks the bytes again; this only spares a useless upload. Callers translate the problem themselves.
 */
export function checkImageFile(file: { name?: string; type?: string; size: number }): ImageProblem | null {
  const typeOk = file.type ? UPLOAD_ACCEPT.includes(file.type) : EXTENSIONS.test(file.name ?? '');
  if (!typeOk) return 'type';
  if (file.size > UPLOAD_MAX_BYTES) return 'size';
  return null;
}

/** The `accept` attribute of an image picker. */
export const IMAGE_ACCEPT_ATTR = [...UPLOAD_ACCEPT, '.jpg', '.jpeg', '.png'].join(',');
