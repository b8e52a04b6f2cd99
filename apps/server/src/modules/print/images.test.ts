import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { ImageError, rasterize } from './images.ts';

const jpeg = (width: number, height: number, orientation?: number) =>
  sharp({ create: { width, height, channels: 3, background: '#000000' } })
    .composite([
      {
        input: { create: { width: Math.floor(width / 2), height, channels: 3, background: '#ffffff' } },
        left: Math.floor(width / 2),
        top: 0,
      },
    ])
    .jpeg({ quality: 80 })
    .withMetadata(orientation ? { orientation } : {})
    .toBuffer();

const dot = (img: { width: number; data: Uint8Array }, x: number, y: number) =>
  (img.data[y * (img.width / 8) + (x >> 3)] & (0x80 >> (x & 7))) !== 0;

describe('rasterize', () => {
  it('prints a 20-megapixel photo at the paper width, black where it is black', async () => {
    const img = await rasterize(await jpeg(5472, 3648), 576, 2400);
    expect(img).toMatchObject({ width: 576, height: 384 });
    // the left half of the photo is black, the right half white
    expect(dot(img, 10, 100)).toBe(true);
    expect(dot(img, 560, 100)).toBe(false);
  });

  it('turns a photo the way its EXIF orientation says', async () => {
    const img = await rasterize(await jpeg(800, 400, 6), 384, 2400);
    expect(img.height).toBeGreaterThan(img.width);
  });

  it('never scales up, and keeps the width a multiple of 8 dots', async () => {
    const img = await rasterize(await jpeg(101, 50), 384, 2400);
    expect(img).toMatchObject({ width: 96, height: 50 });
  });

  it('decodes the same picture once for the same paper', async () => {
    const bytes = await jpeg(640, 480);
    expect(await rasterize(bytes, 384, 2400)).toBe(await rasterize(bytes, 384, 2400));
    expect(await rasterize(bytes, 576, 2400)).not.toBe(await rasterize(bytes, 384, 2400));
  });

  it.each([
    ['neither PNG nor JPEG', Buffer.from('GIF89a......'), 'neither PNG nor JPEG'],
    ['a damaged JPEG', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]), 'damaged'],
  ])('refuses %s', async (_, bytes, message) => {
    await expect(rasterize(bytes, 384, 2400)).rejects.toThrow(ImageError);
    await expect(rasterize(bytes, 384, 2400)).rejects.toThrow(message);
  });
});
