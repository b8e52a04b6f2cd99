import { describe, expect, it } from 'vitest';
import { deflateRawSync } from 'node:zlib';
import sharp from 'sharp';
import {
  profileDriftFields,
  profileHashes,
  verifyProfilePassword,
  type DeviceProfileSettings,
} from '@cpc/contracts/device-protocol';
import { zipFrames } from '../src/modules/system-custom/index.ts';
import { hashProfilePassword } from '../src/modules/system-custom/service.ts';
import { AppError } from '../src/plugins/errors.ts';

/** A zip of these entries, each deflated (method 8) or stored (method 0). */
function zip(entries: Array<[string, Buffer, 0 | 8]>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, raw, method] of entries) {
    const data = method === 8 ? deflateRawSync(raw) : raw;
    const n = Buffer.from(name);
    const l = Buffer.alloc(30);
    l.writeUInt32LE(0x04034b50, 0);
    l.writeUInt16LE(method, 8);
    l.writeUInt32LE(data.length, 18);
    l.writeUInt32LE(raw.length, 22);
    l.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(data.length, 20);
    // a lying header: says the entry is tiny
    c.writeUInt32LE(Math.min(raw.length, 100), 24);
    c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(l, n, data);
    centrals.push(c, n);
    offset += 30 + n.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const e = Buffer.alloc(22);
  e.writeUInt32LE(0x06054b50, 0);
  e.writeUInt16LE(entries.length, 8);
  e.writeUInt16LE(entries.length, 10);
  e.writeUInt32LE(cd.length, 12);
  e.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, e]);
}
const keyOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof AppError ? e.key : String(e);
  }
  return 'accepted';
};

describe('boot-animation frames zip', () => {
  it('counts deflated and stored PNG/JPG frames, macOS metadata aside', async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#123' } })
      .png()
      .toBuffer();
    const jpg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#321' } })
      .jpeg()
      .toBuffer();
    expect(
      zipFrames(
        zip([
          ['a/001.png', png, 8],
          ['a/002.jpeg', jpg, 0],
          ['__MACOSX/a/._001.png', Buffer.from('junk'), 0],
        ]),
      ),
    ).toBe(2);
  });

  it('refuses a zip bomb at the limit, whatever the headers say, and garbage', () => {
    const bomb = zip([['001.png', Buffer.alloc(3 * 1024 * 1024), 8]]);
    expect(bomb.length).toBeLessThan(10_000);
    expect(keyOf(() => zipFrames(bomb))).toBe('systemCustom.zipTooLarge');
    expect(keyOf(() => zipFrames(Buffer.from('PK not really a zip')))).toBe('systemCustom.zipBroken');
    expect(keyOf(() => zipFrames(zip([['001.png', Buffer.from('not a png'), 8]])))).toBe('systemCustom.zipEntry');
    const many = zip(Array.from({ length: 601 }, (_, i) => [`${i}.png`, Buffer.alloc(0), 0] as [string, Buffer, 0]));
    expect(keyOf(() => zipFrames(many))).toBe('systemCustom.zipTooMany');
  });
});

describe('configuration hashes and passwords', () => {
  const settings: DeviceProfileSettings = {
    desktop: { columns: 4, rows: 4, iconSize: 'medium', apps: ['com.a.b'], hiddenSystemIcons: [] },
    wallpaper: { key: 'k', url: 'http://x/1', sha256: 'ab', size: 1, mime: 'image/png', fit: 'fill' },
  };

  it('hashes the same settings the same, links and key order aside, and names the parts that differ', () => {
    const a = profileHashes(settings);
    const b = profileHashes({
      wallpaper: { fit: 'fill', mime: 'image/png', size: 1, sha256: 'ab', key: 'k', url: 'http://y/2' },
      desktop: settings.desktop,
    });
    expect(b).toEqual(a);
    expect(a.parts.bootAnimation).toBeNull();
    const changed = profileHashes({ ...settings, wallpaper: { ...settings.wallpaper!, fit: 'center' } });
    expect(changed.hash).not.toBe(a.hash);
    expect(profileDriftFields(a.parts, changed.parts)).toEqual(['wallpaper']);
    expect(profileDriftFields(a.parts, {})).toEqual(['desktop', 'wallpaper']);
  });

  it('hashes a password with a fresh salt each time; a device checks it', async () => {
    const [x, y] = [await hashProfilePassword('open sesame'), await hashProfilePassword('open sesame')];
    expect(x.salt).not.toBe(y.salt);
    expect(x.hash).not.toBe(y.hash);
    expect(verifyProfilePassword('open sesame', x)).toBe(true);
    expect(verifyProfilePassword('open sesame', y)).toBe(true);
    expect(verifyProfilePassword('open sesame!', x)).toBe(false);
  });
});
