import fs from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { fileTypeFromFile } from 'file-type';
import {
  CUSTOM_EXTENSIONS,
  CUSTOM_ZIP_MAX_FRAME_BYTES,
  CUSTOM_ZIP_MAX_FRAMES,
  CUSTOM_ZIP_MAX_TOTAL_BYTES,
} from '@cpc/contracts';
import { badRequest } from '../../plugins/errors.ts';

const MB = 1024 * 1024;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const zipBroken = () => badRequest('file', 'systemCustom.zipBroken');

/**
 * The frames of a boot-animation zip (issue 16), each checked: every file entry (folders and macOS's `__MACOSX/`
 * metadata aside) must be named .png/.jpg/.jpeg and its bytes must be that image; at most CUSTOM_ZIP_MAX_FRAMES
 * entries, each at most CUSTOM_ZIP_MAX_FRAME_BYTES and all of them CUSTOM_ZIP_MAX_TOTAL_BYTES uncompressed
 * (counted while inflating, not believed from the headers: a zip bomb stops at the limit). Stored and deflated
 * entries only; encrypted entries and zip64 are refused. Answers the number of frames.
 */
export function zipFrames(buf: Buffer): number {
  // the end-of-central-directory record: 22 bytes and a comment of at most 65535
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--)
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) throw zipBroken();
  const entries = buf.readUInt16LE(eocd + 10);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (entries === 0xffff || cdOffset === 0xffffffff) throw zipBroken();
  if (entries > CUSTOM_ZIP_MAX_FRAMES * 2)
    throw badRequest('file', 'systemCustom.zipTooMany', { max: CUSTOM_ZIP_MAX_FRAMES });
  // the count and the declared sizes first (headers only): too many frames, or frames declared too large, are
  // said before any frame is inflated; the inflating below still counts the bytes, which may not match
  let files = 0;
  let declared = 0;
  let oversized = false;
  for (let n = 0, q = cdOffset; n < entries; n++) {
    if (q + 46 > buf.length || buf.readUInt32LE(q) !== 0x02014b50) throw zipBroken();
    const nameLen = buf.readUInt16LE(q + 28);
    const name = buf.toString('utf8', q + 46, q + 46 + nameLen);
    if (!name.endsWith('/') && !name.startsWith('__MACOSX/')) {
      files++;
      const size = buf.readUInt32LE(q + 24);
      declared += size;
      if (size > CUSTOM_ZIP_MAX_FRAME_BYTES) oversized = true;
    }
    q += 46 + nameLen + buf.readUInt16LE(q + 30) + buf.readUInt16LE(q + 32);
  }
  if (files > CUSTOM_ZIP_MAX_FRAMES)
    throw badRequest('file', 'systemCustom.zipTooMany', { max: CUSTOM_ZIP_MAX_FRAMES });
  if (oversized || declared > CUSTOM_ZIP_MAX_TOTAL_BYTES) tooLarge();
  let p = cdOffset;
  let frames = 0;
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50) throw zipBroken();
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const compSize = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/') || name.startsWith('__MACOSX/')) continue;
    const shown = name.slice(0, 100);
    frames++;
    const ext = /\.([A-Za-z]+)$/.exec(name)?.[1]?.toLowerCase();
    if (ext !== 'png' && ext !== 'jpg' && ext !== 'jpeg')
      throw badRequest('file', 'systemCustom.zipEntry', { name: shown });
    if (flags & 1) throw badRequest('file', 'systemCustom.zipEntry', { name: shown });
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) throw zipBroken();
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    if (start + compSize > buf.length) throw zipBroken();
    const raw = buf.subarray(start, start + compSize);
    let data: Buffer;
    if (method === 0) data = raw;
    else if (method === 8) {
      try {
        data = inflateRawSync(raw, { maxOutputLength: CUSTOM_ZIP_MAX_FRAME_BYTES + 1 });
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) data = tooLarge();
        else throw zipBroken();
      }
    } else throw badRequest('file', 'systemCustom.zipEntry', { name: shown });
    if (data.length > CUSTOM_ZIP_MAX_FRAME_BYTES) tooLarge();
    total += data.length;
    if (total > CUSTOM_ZIP_MAX_TOTAL_BYTES) tooLarge();
    const isPng = data.subarray(0, 8).equals(PNG_MAGIC);
    const isJpeg = data.subarray(0, 3).equals(JPEG_MAGIC);
    if (ext === 'png' ? !isPng : !isJpeg) throw badRequest('file', 'systemCustom.zipEntry', { name: shown });
  }
  if (!frames) throw badRequest('file', 'systemCustom.zipEmpty');
  return frames;
}

function tooLarge(): never {
  throw badRequest('file', 'systemCustom.zipTooLarge', {
    each: CUSTOM_ZIP_MAX_FRAME_BYTES / MB,
    total: CUSTOM_ZIP_MAX_TOTAL_BYTES / MB,
  });
}

/**
 * The type of a customization upload (the `custom` bucket), by its bytes: jpg, png, webp, gif, mp4, webm or zip,
 * and the name's extension must say the same type; a zip's every frame is checked (zipFrames).
 */
export async function customMediaType(temp: string, name: string): Promise<{ mime: string; ext: string }> {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase() ?? '';
  const claimed = CUSTOM_EXTENSIONS[ext];
  if (!claimed) throw badRequest('file', 'systemCustom.fileType');
  const sniffed = await fileTypeFromFile(temp);
  if (!sniffed || sniffed.mime !== claimed) throw badRequest('file', 'systemCustom.fileType');
  if (sniffed.mime === 'application/zip') zipFrames(await fs.readFile(temp));
  return sniffed;
}
