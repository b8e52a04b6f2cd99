import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { paperGeometry, parseMarkup, type MarkupBlock } from '@cpc/contracts/print-markup';
import { renderEscPos } from '../../../../device-sim/src/escpos.ts';
import { encodeEscPos, type RasterImage } from './escpos.ts';
import { encodeGb18030 } from './gb18030.ts';
import { rasterize } from './images.ts';
import { renderLines } from '@cpc/contracts/print-render';

const parse = (content: string): MarkupBlock[] => {
  const r = parseMarkup(content);
  if (!r.ok) throw new Error(r.error.message);
  return r.blocks;
};

/** The server's preview and what the simulator's print head reads back from the encoded bytes. */
function both(content: string, paperWidthMm: number, images = new Map<string, RasterImage>()) {
  const blocks = parse(content);
  const { columns, dots } = paperGeometry(paperWidthMm);
  return {
    preview: renderLines(blocks, columns, images),
    printed: renderEscPos(encodeEscPos(blocks, { columns, dots, images }), columns),
  };
}

describe('ESC/POS encoding, read back by an independent interpreter', () => {
  const receipt = [
    '<C><L>小票 Receipt</L></C>',
    '<C>Order 1024</C>',
    '<HR>',
    'Tea <B>x2</B>                 12.00',
    '红烧牛肉面 ×1 (加辣，不要香菜，多放葱花) 28.00',
    '<R>Total <L>40.00</L></R>',
    '',
    '<R>¥ 40.00</R>',
    '<C><QR>https://shop.example/o/1024?a=1&amp;b=2</QR></C>',
    '<C><BAR>{1024}</BAR></C>',
    'a very long line of plain ASCII text that must wrap onto a second line and a third one too',
    '<L>LARGE TEXT WRAPS SOONER</L>',
    '<CUT>',
  ].join('\n');

  it.each([58, 80])('prints what the preview shows on %i mm paper', (mm) => {
    const { preview, printed } = both(receipt, mm);
    expect(printed).toEqual(preview);
    const cols = paperGeometry(mm).columns;
    expect(preview.every((l) => l.length <= cols || l.startsWith('['))).toBe(true);
  });

  it('lays out a 58 mm receipt as a printer would', () => {
    const { preview } = both(receipt, 58);
    expect(preview.slice(0, 3)).toEqual(['    小票 Receipt', '           Order 1024', '-'.repeat(32)]);
    // 30 columns of Chinese and ASCII: wrapped when the next character does not fit
    expect(preview[4]).toBe('红烧牛肉面 ×1 (加辣，不要香菜，');
    expect(preview[5]).toBe('多放葱花) 28.00');
    expect(preview).toContain('[QR https://shop.example/o/1024?a=1&b=2]');
    expect(preview).toContain('[BARCODE {1024}]');
    expect(preview).toContain('');
    expect(preview[preview.length - 1]).toBe('[CUT]');
  });

  it('rasterises PNG images to the paper and prints them as GS v 0', async () => {
    const png = new PNG({ width: 500, height: 100 });
    for (let i = 0; i < png.data.length; i += 4) png.data.set([i % 7 === 0 ? 0 : 255, 0, 0, 255], i);
    const img = await rasterize(PNG.sync.write(png), 384, 2400);
    expect(img).toMatchObject({ width: 384, height: 77 });
    const { preview, printed } = both(
      '<C><IMG>https://x.cn/logo.png</IMG></C>\nThanks',
      58,
      new Map([['https://x.cn/logo.png', img]]),
    );
    expect(preview).toEqual(['[IMAGE 384x77]', 'Thanks']);
    expect(printed).toEqual(preview);
  });

  it('encodes Chinese text in GB18030, also outside the BMP', () => {
    const text = '打印机 ¥€ 𠀀 OK';
    expect(new TextDecoder('gb18030').decode(encodeGb18030(text))).toBe(text);
    expect(encodeGb18030('中').toString('hex')).toBe('d6d0');
  });
});
