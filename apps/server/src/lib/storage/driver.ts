import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  size: number;
  /** The local file (local driver only). */
  file?: string;
}

export interface PresignOptions {
  /** Seconds the link lives. */
  ttl: number;
  contentType?: string;
  /** `attachment` with this file name (RFC 6266, UTF-8 too); unset: inline. */
  filename?: string;
  attachment?: boolean;
  cacheControl?: string;
}

/**
 * Where objects' bytes live (issue 17): `LocalDriver` (a folder; the embedded default) or `S3Driver`
 * (`STORAGE_URL=s3://…`, shared by every node). Keys are the ones `ObjectStorage.newKey` makes.
 */
export interface StorageDriver {
  readonly kind: 'local' | 's3';
  /** The origin presigned links point at (the console's CSP must allow it), null when there are none. */
  readonly origin: string | null;
  /** Stores a finished local file under `key` (the caller discards the file). */
  putFile(key: string, file: string, size: number, contentType?: string): Promise<void>;
  putBytes(key: string, bytes: Buffer, contentType?: string): Promise<void>;
  read(key: string): Promise<Buffer | null>;
  stat(key: string): Promise<{ size: number } | null>;
  openRead(key: string): Promise<Readable | null>;
  remove(key: string): Promise<void>;
  /** A presigned GET link to the object, or null when the node serves it itself (local). */
  presignGet(key: string, opts: PresignOptions): Promise<string | null>;
  /** Every object (under `prefix` with S3; the local driver lists all and leaves its staging areas out). */
  list(prefix?: string): AsyncIterable<StoredObject>;
  /** Throws when the store cannot be reached (checked once at start; its error names no secret). */
  check?(): Promise<void>;
}

/** `Content-Disposition` for a download named `name` (ASCII fallback + RFC 5987 UTF-8). */
export function attachmentHeader(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
