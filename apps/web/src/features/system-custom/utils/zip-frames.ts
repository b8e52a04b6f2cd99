/**
 * Reads the first frames of a boot animation's zip in the browser, for the preview: the zip's central directory,
 * its PNG/JPG entries in name order (frame_001.png, frame_002.png, …), each stored or deflated (DecompressionStream).
 * The server checks every entry; this only shows what the terminal will play.
 */
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const FRAME = /\.(png|jpe?g)$/i;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  offset: number;
}

/** The PNG/JPG entries of a zip, in natural name order (frame2 before frame10); [] when it is no zip. */
export function frameEntries(buf: ArrayBuffer): ZipEntry[] {
  const view = new DataView(buf);
  let end = -1;
  for (let i = buf.byteLength - 22; i >= Math.max(0, buf.byteLength - 65_557); i--)
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  if (end < 0) return [];
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count && at + 46 <= buf.byteLength; n++) {
    if (view.getUint32(at, true) !== CENTRAL) break;
    const nameLength = view.getUint16(at + 28, true);
    const name = decoder.decode(new Uint8Array(buf, at + 46, nameLength));
    if (FRAME.test(name) && !name.startsWith('__MACOSX/'))
      entries.push({
        name,
        method: view.getUint16(at + 10, true),
        compressedSize: view.getUint32(at + 20, true),
        offset: view.getUint32(at + 42, true),
      });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  const collator = new Intl.Collator(undefined, { numeric: true });
  return entries.sort((a, b) => collator.compare(a.name, b.name));
}

async function entryBytes(buf: ArrayBuffer, e: ZipEntry): Promise<Blob | null> {
  const view = new DataView(buf);
  if (view.getUint32(e.offset, true) !== LOCAL) return null;
  const start = e.offset + 30 + view.getUint16(e.offset + 26, true) + view.getUint16(e.offset + 28, true);
  const raw = new Uint8Array(buf, start, e.compressedSize);
  const type = /\.png$/i.test(e.name) ? 'image/png' : 'image/jpeg';
  if (e.method === 0) return new Blob([raw], { type });
  if (e.method !== 8) return null;
  const inflated = new Response(raw).body!.pipeThrough(new DecompressionStream('deflate-raw'));
  return new Blob([await new Response(inflated).arrayBuffer()], { type });
}

/** The first `max` frames of a zip as images (fewer when it holds fewer, or an entry cannot be read). */
export async function firstFrames(buf: ArrayBuffer, max: number): Promise<Blob[]> {
  const out: Blob[] = [];
  for (const e of frameEntries(buf).slice(0, max)) {
    const b = await entryBytes(buf, e).catch(() => null);
    if (b) out.push(b);
  }
  return out;
}
