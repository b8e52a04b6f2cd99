import { createHash } from 'node:crypto';
import sharp, { type Metadata } from 'sharp';
import { OBJECT_KEY_RULE } from '@cpc/contracts/print-markup';
import { OutboundError, outboundRequest } from '../../lib/outbound-http.ts';
import type { RasterImage } from './escpos.ts';

export interface ImageLimits {
  maxBytes: number;
  timeoutMs: number;
  /** Tallest raster, dots. */
  maxHeight: number;
  /** Whether URLs may point at loopback, private or link-local addresses (OUTBOUND_PRIVATE). */
  allowPrivate: boolean;
}

/** Reads an object of the account's own storage, or null when the key is not the account's. */
export type ObjectReader = (key: string) => Promise<Buffer | null>;

/** Why an image could not be used; the message is shown to the caller. */
export class ImageError extends Error {}

/**
 * Fetches an image: an object key of the account's storage, or an http(s) URL (within the time and size
 * limits; the body is read only up to the limit).
 */
export async function fetchImage(src: string, readObject: ObjectReader, limits: ImageLimits): Promise<Buffer> {
  if (OBJECT_KEY_RULE.test(src)) {
    const bytes = await readObject(src);
    if (!bytes) throw new ImageError('no such object in your storage');
    if (bytes.length > limits.maxBytes) throw new ImageError(`the image is larger than ${limits.maxBytes} bytes`);
    return bytes;
  }
  try {
    const res = await outboundRequest(src, {
      method: 'GET',
      headers: { accept: 'image/png, image/jpeg', 'user-agent': 'cpc-print/1' },
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxBytes,
      overflow: 'fail',
      allowPrivate: limits.allowPrivate,
      maxRedirects: 3,
    });
    if (res.status < 200 || res.status >= 300) throw new ImageError(`fetching the image answered HTTP ${res.status}`);
    return res.body;
  } catch (e) {
    if (!(e instanceof OutboundError)) throw e;
    if (e.code === 'ETIMEDOUT') throw new ImageError(`the image did not arrive within ${limits.timeoutMs} ms`);
    if (e.code === 'ETOOBIG') throw new ImageError(`the image is larger than ${limits.maxBytes} bytes`);
    if (e.code === 'EPRIVATE') throw new ImageError(`the image's address ${e.message}`);
    throw new ImageError(`the image could not be fetched (${e.code})`);
  }
}

/** Largest picture decoded, in pixels: a 48-megapixel phone photo passes (libvips shrinks a JPEG while decoding). */
const MAX_PIXELS = 50_000_000;
const TOO_MANY_PIXELS = `the image has more than ${MAX_PIXELS / 1e6} million pixels`;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Rasters made lately, by source bytes and paper: a logo printed on every receipt is decoded once. */
const cache = new Map<string, RasterImage>();
const CACHE_ENTRIES = 64;

/**
 * Scales an image to the paper (never up), a width a multiple of 8 dots and at most `maxHeight` tall, to
 * grey on white (transparency is paper), then to black and white with Floyd–Steinberg dithering. Decoding and
 * scaling run in libvips' threads (sharp), off the event loop; only the small raster is dithered here.
 */
export async function rasterize(bytes: Buffer, maxWidth: number, maxHeight: number): Promise<RasterImage> {
  const isPng = bytes.subarray(0, 8).equals(PNG_MAGIC);
  const isJpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  if (!isPng && !isJpeg) throw new ImageError('the image is neither PNG nor JPEG');
  const key = `${createHash('sha256').update(bytes).digest('hex')}:${maxWidth}:${maxHeight}`;
  const known = cache.get(key);
  if (known) {
    cache.delete(key);
    cache.set(key, known);
    return known;
  }
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata();
  } catch (e) {
    throw new ImageError(/pixel limit/i.test((e as Error).message) ? TOO_MANY_PIXELS : 'the image is damaged');
  }
  // a few KB of PNG can declare a picture of gigabytes: its size is read from the header before decoding
  if (!meta.width || !meta.height) throw new ImageError('the image is empty');
  if (meta.width * meta.height > MAX_PIXELS) throw new ImageError(TOO_MANY_PIXELS);
  // EXIF orientation first: a phone photo prints the way it was taken
  const [w0, h0] = (meta.orientation ?? 1) >= 5 ? [meta.height, meta.width] : [meta.width, meta.height];
  const scale = Math.min(1, maxWidth / w0, maxHeight / h0);
  const width = Math.max(8, Math.floor((w0 * scale) / 8) * 8);
  const height = Math.max(1, Math.round(h0 * scale));
  let grey: Buffer;
  try {
    grey = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(width, height, { fit: 'fill', kernel: 'cubic' })
      .greyscale()
      .raw()
      .toBuffer();
  } catch {
    throw new ImageError('the image is damaged');
  }
  const raster = dither(Float32Array.from(grey), width, height);
  cache.set(key, raster);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return raster;
}

/** Floyd–Steinberg: grey (0 black … 255 white) to one bit a dot, rows of width/8 bytes, MSB first. */
function dither(grey: Float32Array, width: number, height: number): RasterImage {
  const rowBytes = width / 8;
  const data = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const old = grey[i];
      const black = old < 128;
      if (black) data[y * rowBytes + (x >> 3)] |= 0x80 >> (x & 7);
      const err = old - (black ? 0 : 255);
      if (x + 1 < width) grey[i + 1] += (err * 7) / 16;
      if (y + 1 < height) {
        if (x > 0) grey[i + width - 1] += (err * 3) / 16;
        grey[i + width] += (err * 5) / 16;
        if (x + 1 < width) grey[i + width + 1] += err / 16;
      }
    }
  }
  return { width, height, data };
}
