import { charColumns, type Align, type MarkupBlock, type TextRun } from './print-markup.ts';

/** Image sizes (dots) by source, known once the images were fetched and scaled. */
export type ImageSizes = ReadonlyMap<string, { width: number; height: number }>;

/**
 * What a printer prints, as text lines (docs/open-api.md, "Preview"): the console's preview, what the
 * simulator reads back from the ESC/POS bytes, and what the simulator lays out for a terminal (which gets the
 * markup itself and knows no image sizes: its images are `[IMAGE]`). Pure string work, shared by both sides.
 * A line wraps when the next character does not fit (large text takes twice the columns); centred and
 * right-aligned lines are padded with spaces; trailing spaces are cut. QR codes, barcodes, images and cuts are
 * one bracketed line each.
 */
export function renderLines(blocks: MarkupBlock[], columns: number, images: ImageSizes = new Map()): string[] {
  const lines: string[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'text':
        lines.push(...wrapRuns(b.runs, b.align, columns));
        break;
      case 'hr':
        lines.push('-'.repeat(columns));
        break;
      case 'cut':
        lines.push('[CUT]');
        break;
      case 'qr':
        lines.push(qrLine(b.data));
        break;
      case 'barcode':
        lines.push(`[BARCODE ${b.data}]`);
        break;
      case 'image': {
        const size = images.get(b.src);
        lines.push(size ? `[IMAGE ${size.width}x${size.height}]` : '[IMAGE]');
        break;
      }
    }
  }
  return lines;
}

export const qrLine = (data: string) => `[QR ${data.replace(/\r\n?|\n/g, '\\n')}]`;

/** Lays one source line out on the paper: wrapped, aligned, trailing spaces cut. */
export function wrapRuns(runs: TextRun[], align: Align, columns: number): string[] {
  const out: string[] = [];
  let text = '';
  let used = 0;
  const emit = () => {
    const pad = align === 'center' ? Math.floor((columns - used) / 2) : align === 'right' ? columns - used : 0;
    out.push((' '.repeat(Math.max(0, pad)) + text).trimEnd());
    text = '';
    used = 0;
  };
  for (const r of runs) {
    for (const ch of r.text) {
      const w = charColumns(ch) * (r.large ? 2 : 1);
      if (used + w > columns && used > 0) emit();
      text += ch;
      used += w;
    }
  }
  emit();
  return out;
}
