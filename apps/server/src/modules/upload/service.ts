import fs from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { ATTACHMENT_EXTENSIONS, UPLOAD_ACCEPT, UPLOAD_MAX_BYTES } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { loadAuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest } from '../../plugins/errors.ts';
import type { ObjectStorage, UploadClaims } from '../../lib/storage.ts';
import { customMediaType } from '../system-custom/index.ts';
import { UploadRepository } from './repository.ts';

/** What an upload became: its key and what was stored. */
export interface Stored {
  key: string;
  size: number;
  mime: string;
}

/** Uploads: who may upload with a token, what a file must be, and the row that records it. */
export class UploadService {
  private repo: UploadRepository;

  constructor(
    private db: Db,
    private storage: ObjectStorage,
  ) {
    this.repo = new UploadRepository(db);
  }

  /** The claims of an upload token whose session is still live and whose user is enabled (else 401). */
  async claimsOf(token: string): Promise<UploadClaims> {
    const read = this.storage.readUploadToken(token);
    // a package token is for the chunked upload only
    if (!read || read.bucket === 'package') throw new AppError(401, 'upload.tokenInvalid');
    // the session it was minted from must still be live and its user enabled, as for any bearer call
    await loadAuthUser(this.db, read.userId, read.tenantId, read.sessionId);
    return read;
  }

  /** Checks the received file `temp` for the token's bucket, records it and moves it into storage. */
  async store(claims: UploadClaims, temp: string, name: string, size: number): Promise<Stored> {
    // customization media (issue 16): images, video, frames zips, each checked by the system-custom module
    const type =
      claims.bucket === 'attachment'
        ? await attachmentType(temp, name, size)
        : claims.bucket === 'custom'
          ? await customMediaType(temp, name)
          : await fileTypeFromFile(temp);
    if (!type || (claims.bucket === 'permanentfile' && !UPLOAD_ACCEPT.includes(type.mime)))
      throw badRequest('file', 'upload.wrongType');
    const key = this.storage.newKey(name || `upload.${type.ext}`);
    await this.repo
      .insertObject({
        tenantId: claims.tenantId,
        userId: claims.userId,
        key,
        bucket: claims.bucket,
        size,
        mime: type.mime,
        originalName: name.slice(0, 200),
      })
      .catch((e: unknown) => {
        // the user was deleted between the check above and this row
        if ((e as { code?: string }).code === '23503') throw new AppError(401, 'auth.loginExpired');
        throw e;
      });
    try {
      await this.storage.commit(temp, key, type.mime);
    } catch (e) {
      await this.repo.deleteObject(key);
      throw e;
    }
    return { key, size, mime: type.mime };
  }

  /** The media type of a stored object, when it is known. */
  async mimeOf(key: string): Promise<string | undefined> {
    return (await this.repo.findMime(key))?.mime;
  }
}

/** Bytes of a text attachment read to check it (the whole file: ≤ 10 MB). */
const isUtf8Text = (bytes: Buffer) => {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/**
 * The type of a work-order attachment (issue 14), by its bytes: an image, pdf or zip by its magic bytes (`file-type`),
 * plain text (which has none) only when the bytes are valid UTF-8 without NUL. The name's extension must say the same
 * type: a `.pdf` whose bytes are a zip, or a `.txt` that is an executable, is refused.
 */
async function attachmentType(temp: string, name: string, size: number): Promise<{ mime: string; ext: string }> {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase() ?? '';
  const claimed = ATTACHMENT_EXTENSIONS[ext];
  if (!claimed) throw badRequest('file', 'upload.attachmentType');
  const sniffed = await fileTypeFromFile(temp);
  if (sniffed) {
    if (sniffed.mime !== claimed) throw badRequest('file', 'upload.nameMismatch', { actual: sniffed.ext });
    return sniffed;
  }
  if (claimed === 'text/plain' && size <= UPLOAD_MAX_BYTES && isUtf8Text(await fs.readFile(temp)))
    return { mime: 'text/plain', ext };
  throw badRequest('file', 'upload.nameMismatch', { actual: 'binary' });
}
