import type { Align, MarkupBlock } from '@cpc/contracts/print-markup';
import { encodeGb18030 } from './gb18030.ts';

/** A 1-bit image as a printer's raster: rows of width/8 bytes, most significant bit first, 1 = black. */
export interface RasterImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface EscPosOptions {
  columns: number;
  dots: number;
  images: ReadonlyMap<string, RasterImage>;
}

const ESC = 0x1b;
const GS = 0x1d;
const FS = 0x1c;
const LF = 0x0a;
const ALIGN: Record<Align, number> = { left: 0, center: 1, right: 2 };

/** QR capacity in bytes (byte mode, error correction M) of versions 1-17: enough for the markup's 500 bytes. */
const QR_CAPACITY_M = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504];

/** The module size (dots) that keeps a QR code of this many bytes within the paper, 3-8. */
export function qrModuleSize(bytes: number, dots: number): number {
  const version = QR_CAPACITY_M.findIndex((c) => c >= bytes) + 1 || QR_CAPACITY_M.length;
  const modules = 17 + 4 * version + 8; // with the quiet zone
  return Math.max(3, Math.min(8, Math.floor(dots / modules)));
}

/** CODE128 (code set B) is 11 modules a character plus 35 (start, check, stop): the widest module that fits, or 0. */
export function barcodeModuleWidth(data: string, dots: number): number {
  const modules = 11 * data.length + 35;
  if (modules * 2 <= dots) return 2;
  return modules <= dots ? 1 : 0;
}

/**
 * Markup blocks → ESC/POS: initialise, Chinese (GB18030) character mode, then per line its alignment
 * (`ESC a`), bold (`ESC E`) and size (`GS !`) when they change, the text in GB18030 and a line feed. QR codes
 * with `GS ( k` (model 2, error correction M), barcodes with `GS k` (CODE128, text below), images as
 * `GS v 0` rasters, rules as a line of dashes, cuts as `GS V` (feed and cut). A final feed when the job does
 * not end with a cut, so its last line clears the tear bar.
 */
export function encodeEscPos(blocks: MarkupBlock[], opts: EscPosOptions): Buffer {
  const out: Buffer[] = [];
  const put = (...bytes: number[]) => out.push(Buffer.from(bytes));
  let bold = false;
  let large = false;
  const style = (b: boolean, l: boolean) => {
    if (b !== bold) put(ESC, 0x45, b ? 1 : 0);
    if (l !== large) put(GS, 0x21, l ? 0x11 : 0x00);
    bold = b;
    large = l;
  };

  put(ESC, 0x40);
  put(FS, 0x26);
  for (const b of blocks) {
    switch (b.kind) {
      case 'text':
        put(ESC, 0x61, ALIGN[b.align]);
        for (const r of b.runs) {
          style(r.bold, r.large);
          out.push(encodeGb18030(r.text));
        }
        put(LF);
        break;
      case 'hr':
        put(ESC, 0x61, 0);
        style(false, false);
        out.push(Buffer.from('-'.repeat(opts.columns) + '\n', 'ascii'));
        break;
      case 'cut':
        put(GS, 0x56, 0x42, 0x03);
        break;
      case 'qr': {
        const data = Buffer.from(b.data, 'utf8');
        const len = data.length + 3;
        put(ESC, 0x61, ALIGN[b.align]);
        put(GS, 0x28, 0x6b, 0x04, 0x00, 0x31, 0x41, 0x32, 0x00); // model 2
        put(GS, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x43, qrModuleSize(data.length, opts.dots)); // module size
        put(GS, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x45, 0x31); // error correction M
        put(GS, 0x28, 0x6b, len & 0xff, len >> 8, 0x31, 0x50, 0x30); // store
        out.push(data);
        put(GS, 0x28, 0x6b, 0x03, 0x00, 0x31, 0x51, 0x30); // print
        break;
      }
      case 'barcode': {
        // `{` starts a code-set switch in ESC/POS CODE128 data: a literal one is doubled
        const data = Buffer.from(`{B${b.data.replace(/\{/g, '{{')}`, 'ascii');
        put(ESC, 0x61, ALIGN[b.align]);
        put(GS, 0x48, 0x02); // human-readable text below
        put(GS, 0x68, 80); // height in dots
        put(GS, 0x77, Math.max(1, barcodeModuleWidth(b.data, opts.dots)));
        put(GS, 0x6b, 73, data.length);
        out.push(data);
        break;
      }
      case 'image': {
        const img = opts.images.get(b.src);
        if (!img) throw new Error(`image ${b.src} was not loaded`);
        const xBytes = img.width / 8;
        put(ESC, 0x61, ALIGN[b.align]);
        put(GS, 0x76, 0x30, 0x00, xBytes & 0xff, xBytes >> 8, img.height & 0xff, img.height >> 8);
        out.push(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength));
        break;
      }
    }
  }
  if (blocks[blocks.length - 1]?.kind !== 'cut') put(ESC, 0x64, 4);
  return Buffer.concat(out);
}
