import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachmentHeader, type PresignOptions, type StorageDriver, type StoredObject } from './driver.ts';
import type { S3Location } from './url.ts';

const notFound = (e: unknown) => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
};

/** Presigned links are signed at a 10-minute step so that the same object's link (and the browser's cache) holds. */
const SIGN_STEP_MS = 600_000;

/** Objects in an S3 bucket (AWS, MinIO, any S3-compatible server), shared by every node. */
export class S3Driver implements StorageDriver {
  readonly kind = 's3' as const;
  readonly origin: string | null;
  private client: S3Client;
  private presigner: S3Client;

  constructor(private loc: S3Location) {
    const base: S3ClientConfig = {
      region: loc.region,
      forcePathStyle: loc.forcePathStyle,
      credentials: loc.credentials,
      // the SDK's checksums (2025) are not understood by every S3-compatible server
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    this.client = new S3Client({ ...base, endpoint: loc.endpoint });
    this.presigner = loc.publicEndpoint ? new S3Client({ ...base, endpoint: loc.publicEndpoint }) : this.client;
    const pub = loc.publicEndpoint ?? loc.endpoint;
    this.origin = pub
      ? new URL(pub).origin
      : `https://${loc.forcePathStyle ? '' : `${loc.bucket}.`}s3.${loc.region}.amazonaws.com`;
  }

  get bucket(): string {
    return this.loc.bucket;
  }

  private k(key: string): string {
    return this.loc.prefix + key;
  }

  async putFile(key: string, file: string, size: number, contentType?: string): Promise<void> {
    if (size <= 16 * 1024 * 1024) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.loc.bucket,
          Key: this.k(key),
          Body: createReadStream(file),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
      return;
    }
    // packages (≤ 2 GB) go in 16 MB parts, two at a time
    await new Upload({
      client: this.client,
      params: { Bucket: this.loc.bucket, Key: this.k(key), Body: createReadStream(file), ContentType: contentType },
      partSize: 16 * 1024 * 1024,
      queueSize: 2,
    }).done();
  }

  async putBytes(key: string, bytes: Buffer, contentType?: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.loc.bucket, Key: this.k(key), Body: bytes, ContentType: contentType }),
    );
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.k(key) }));
      return r.Body ? Buffer.from(await r.Body.transformToByteArray()) : Buffer.alloc(0);
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.loc.bucket, Key: this.k(key) }));
      return { size: Number(r.ContentLength ?? 0) };
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async openRead(key: string): Promise<Readable | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.loc.bucket, Key: this.k(key) }));
      return (r.Body as Readable | undefined) ?? null;
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.loc.bucket, Key: this.k(key) }));
  }

  async presignGet(key: string, opts: PresignOptions): Promise<string> {
    const now = Date.now();
    const signingDate = new Date(Math.floor(now / SIGN_STEP_MS) * SIGN_STEP_MS);
    const disposition = opts.filename ? attachmentHeader(opts.filename) : opts.attachment ? 'attachment' : undefined;
    return getSignedUrl(
      this.presigner,
      new GetObjectCommand({
        Bucket: this.loc.bucket,
        Key: this.k(key),
        ResponseContentType: opts.contentType,
        ResponseContentDisposition: disposition,
        ResponseCacheControl: opts.cacheControl,
      }),
      { expiresIn: Math.ceil(opts.ttl + (now - +signingDate) / 1000), signingDate },
    );
  }

  async *list(prefix = ''): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const r = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.loc.bucket,
          Prefix: this.loc.prefix + prefix,
          ContinuationToken: token,
        }),
      );
      for (const o of r.Contents ?? [])
        if (o.Key) yield { key: o.Key.slice(this.loc.prefix.length), size: Number(o.Size ?? 0) };
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.loc.bucket }));
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      throw new Error(
        `the bucket ${this.loc.bucket} at ${this.loc.endpoint ?? 'AWS'} cannot be reached: ${(e as Error).name}` +
          (status ? ` (HTTP ${status})` : ''),
        { cause: e },
      );
    }
  }

  destroy(): void {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }
}
