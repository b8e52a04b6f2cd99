// STORAGE_URL's S3 form, parsed without loading the SDK (the configuration checks it at start).

export interface S3Location {
  bucket: string;
  /** A folder in the bucket every key goes under ('' or ending in '/'). */
  prefix: string;
  region: string;
  /** The endpoint the nodes reach (unset: AWS). */
  endpoint?: string;
  /** The endpoint browsers and devices reach, when it differs (presigned links point there). */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * `s3://[accessKey:secret@]bucket[/prefix]?endpoint=http://host:port&region=…&forcePathStyle=true&publicEndpoint=…`.
 * Without credentials in the URL the SDK's own chain is used (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, …).
 * Errors name the bad part, never the secret.
 */
export function parseS3Url(raw: string): S3Location {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('STORAGE_URL: not a URL (s3://bucket?endpoint=…)');
  }
  if (u.protocol !== 's3:') throw new Error('STORAGE_URL: must be file://… or s3://bucket…');
  const bucket = decodeURIComponent(u.hostname);
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error('STORAGE_URL: bad bucket name');
  const q = u.searchParams;
  for (const k of q.keys())
    if (!['endpoint', 'region', 'forcePathStyle', 'publicEndpoint'].includes(k))
      throw new Error(`STORAGE_URL: unknown parameter ${k}`);
  const endpointOf = (name: string) => {
    const v = q.get(name);
    if (!v) return undefined;
    if (!/^https?:\/\/[^/?#]+\/?$/.test(v)) throw new Error(`STORAGE_URL: ${name} must be http(s)://host[:port]`);
    return v.replace(/\/$/, '');
  };
  const prefix = decodeURIComponent(u.pathname).replace(/^\/+|\/+$/g, '');
  const fps = q.get('forcePathStyle');
  return {
    bucket,
    prefix: prefix ? `${prefix}/` : '',
    region: q.get('region') || 'us-east-1',
    endpoint: endpointOf('endpoint'),
    publicEndpoint: endpointOf('publicEndpoint'),
    // a custom endpoint (MinIO, s3rver…) is path-style unless told otherwise
    forcePathStyle: fps ? fps === 'true' || fps === '1' : !!q.get('endpoint'),
    credentials:
      u.username || u.password
        ? { accessKeyId: decodeURIComponent(u.username), secretAccessKey: decodeURIComponent(u.password) }
        : undefined,
  };
}
