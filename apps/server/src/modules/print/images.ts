import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
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

/** Largest picture decoded, in pixels (RGBA: 100 MB of memory). */
const MAX_PIXELS = 25_000_000;
const TOO_MANY_PIXELS = `the image has more than ${MAX_PIXELS / 1e6} million pixels`;

/** PNG or JPEG (told by their bytes) → RGBA. */
function decode(bytes: Buffer): { width: number; height: number; data: Uint8Array } {
  try {
    if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      // a few KB of PNG can declare a picture of gigabytes: its size is read from the header before decoding
      if (bytes.length >= 24 && bytes.readUInt32BE(16) * bytes.readUInt32BE(20) > MAX_PIXELS) throw new ImageError(TOO_MANY_PIXELS);
      const png = PNG.sync.read(bytes);
      return { width: png.width, height: png.height, data: png.data };
    }
    if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_PIXELS / 1e6, maxMemoryUsageInMB: 256 });
      return { width: img.width, height: img.height, data: img.data };
    }
  } catch (e) {
    if (e instanceof ImageError) throw e;
    throw new ImageError(/maxResolutionInMP|maxMemoryUsage/.test((e as Error).message) ? TOO_MANY_PIXELS : 'the image is damaged');
  }
  throw new ImageError('the image is neither PNG nor JPEG');
}

/**
 * Scales an image to the paper (never up), a width a multiple of 8 dots and at most `maxHeight` tall, to
 * grey on white (transparency is paper), then to black and white with Floyd–Steinberg dithering.
 */
export function rasterize(bytes: Buffer, maxWidth: number, maxHeight: number): RasterImage {
  const src = decode(bytes);
  if (!src.width || !src.height) throw new ImageError('the image is empty');
  const scale = Math.min(1, maxWidth / src.width, maxHeight / src.height);
  const width = Math.max(8, Math.floor((src.width * scale) / 8) * 8);
  const height = Math.max(1, Math.round(src.height * scale));
  // box filter: each target pixel averages the source pixels it covers
  const grey = new Float32Array(width * height);
  const sx = src.width / width;
  const sy = src.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      let sum = 0;
      let n = 0;
      for (let yy = y0; yy < y1 && yy < src.height; yy++) {
        for (let xx = x0; xx < x1 && xx < src.width; xx++) {
          const i = (yy * src.width + xx) * 4;
          const a = src.data[i + 3] / 255;
          const lum = 0.299 * src.data[i] + 0.587 * src.data[i + 1] + 0.114 * src.data[i + 2];
          sum += lum * a + 255 * (1 - a);
          n++;
        }
      }
      grey[y * width + x] = n ? sum / n : 255;
    }
  }
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
