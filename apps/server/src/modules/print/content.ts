import {
  markupErrorAt,
  paperGeometry,
  parseMarkup,
  type MarkupBlock,
  type MarkupError,
} from '@cpc/contracts/print-markup';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { keyed, type MessageKey } from '@cpc/contracts/messages';
import { AppError } from '../../plugins/errors.ts';
import { barcodeModuleWidth, encodeEscPos, type RasterImage } from './escpos.ts';
import { fetchImage, ImageError, rasterize, type ImageLimits } from './images.ts';
import { renderLines } from '@cpc/contracts/print-render';
import { PrintJobRepository } from './repository/jobs.ts';

export interface PaperOf {
  kind: 'printer' | 'android-terminal';
  paperWidthMm: number;
}

/** A job's content made ready for its device: what goes down, and the preview the console shows. */
export interface PreparedContent {
  format: 'escpos' | 'markup';
  payload: Buffer;
  preview: string[];
  columns: number;
}

/** 400 naming the markup's problem: `data.fields` for forms, `data.markup` with the tag and position. */
export const markupError = (e: MarkupError) =>
  new AppError<MessageKey>(400, e.key, e.params as never, { field: 'content', data: { markup: e } });

/**
 * Turns markup into what a device prints: validated (the parser's errors, then what depends on the paper: a
 * barcode too wide for it, an image that cannot be fetched or read), images fetched and dithered once, ESC/POS
 * for printers (terminals get the markup and lay it out themselves), and the text-line preview.
 */
export class PrintContent {
  private repo: PrintJobRepository;

  constructor(
    db: Db,
    private storage: ObjectStorage,
    private limits: ImageLimits,
  ) {
    this.repo = new PrintJobRepository(db);
  }

  async prepare(tenantId: number, content: string, paper: PaperOf): Promise<PreparedContent> {
    const parsed = parseMarkup(content);
    if (!parsed.ok) throw markupError(parsed.error);
    const { dots, columns } = paperGeometry(paper.paperWidthMm);
    for (const b of parsed.blocks) {
      if (b.kind === 'barcode' && !barcodeModuleWidth(b.data, dots)) {
        const max = Math.floor((dots - 35) / 11);
        throw markupError(
          markupErrorAt(
            content,
            'bad_data',
            'BAR',
            b.at,
            keyed('markup.barcodeTooWide', { mm: paper.paperWidthMm, n: max }),
          ),
        );
      }
    }
    const images = await this.images(tenantId, content, parsed.blocks, dots);
    const preview = renderLines(parsed.blocks, columns, images);
    if (paper.kind === 'android-terminal')
      return { format: 'markup', payload: Buffer.from(content, 'utf8'), preview, columns };
    return { format: 'escpos', payload: encodeEscPos(parsed.blocks, { columns, dots, images }), preview, columns };
  }

  private async images(
    tenantId: number,
    content: string,
    blocks: MarkupBlock[],
    dots: number,
  ): Promise<Map<string, RasterImage>> {
    const wanted = blocks.filter((b): b is Extract<MarkupBlock, { kind: 'image' }> => b.kind === 'image');
    const out = new Map<string, RasterImage>();
    const readObject = async (key: string) => {
      const own = await this.repo.ownsObject(tenantId, key);
      return own ? this.storage.read(key).catch(() => null) : null;
    };
    // each source once, whatever the number of blocks showing it
    const first = [...new Map(wanted.map((b) => [b.src, b])).values()];
    await Promise.all(
      first.map(async (b) => {
        try {
          const bytes = await fetchImage(b.src, readObject, this.limits);
          out.set(b.src, await rasterize(bytes, dots, this.limits.maxHeight));
        } catch (e) {
          if (!(e instanceof ImageError)) throw e;
          throw markupError(markupErrorAt(content, 'bad_image', 'IMG', b.at, e.message));
        }
      }),
    );
    return out;
  }
}
