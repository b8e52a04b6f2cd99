import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { firstFrames, frameEntries } from './zip-frames';

/** A minimal zip: each entry stored (method 0) or deflated (8), with its central directory. */
function zip(files: { name: string; data: Uint8Array; deflate?: boolean }[]): ArrayBuffer {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const f of files) {
    const name = enc.encode(f.name);
    const body = f.deflate ? new Uint8Array(deflateRawSync(f.data)) : f.data;
    const local = new Uint8Array(30 + name.length + body.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(8, f.deflate ? 8 : 0, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, f.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(body, 30 + name.length);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(10, f.deflate ? 8 : 0, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, f.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const cdSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, files.length, true);
  ev.setUint16(10, files.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const all = new Uint8Array(offset + cdSize + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    all.set(part, at);
    at += part.length;
  }
  return all.buffer;
}

const bytes = (...n: number[]) => new Uint8Array(n);

describe('zip frames', () => {
  it('lists the PNG/JPG frames in natural order, leaving out other entries', () => {
    const buf = zip([
      { name: 'frame10.png', data: bytes(10) },
      { name: 'readme.txt', data: bytes(0) },
      { name: 'frame2.png', data: bytes(2) },
      { name: '__MACOSX/frame1.png', data: bytes(9) },
      { name: 'frame1.jpg', data: bytes(1) },
    ]);
    expect(frameEntries(buf).map((e) => e.name)).toEqual(['frame1.jpg', 'frame2.png', 'frame10.png']);
  });

  it('reads stored and deflated frames, as many as asked', async () => {
    const big = new Uint8Array(2000).fill(7);
    const buf = zip([
      { name: 'a.png', data: bytes(1, 2, 3) },
      { name: 'b.png', data: big, deflate: true },
      { name: 'c.png', data: bytes(4) },
    ]);
    const frames = await firstFrames(buf, 2);
    expect(frames).toHaveLength(2);
    expect([...new Uint8Array(await frames[0].arrayBuffer())]).toEqual([1, 2, 3]);
    expect(new Uint8Array(await frames[1].arrayBuffer())).toEqual(big);
    expect(frames[1].type).toBe('image/png');
  });

  it('finds nothing in what is not a zip', () => {
    expect(frameEntries(new TextEncoder().encode('not a zip at all, just text').buffer as ArrayBuffer)).toEqual([]);
  });
});
