/**
 * The receipt markup of the open API (docs/open-api.md, "Content"): plain text with a few tags, parsed into
 * blocks that the server encodes as ESC/POS and renders as text lines. No zod and nothing Node-only here: the
 * console can validate and count columns with the same rules as the server and the simulator.
 *
 * | markup | meaning |
 * |---|---|
 * | a line break, or `<BR>` | ends the line (an empty line prints as an empty line) |
 * | `<C>…</C>`, `<R>…</R>` | the lines inside are centred / right-aligned; opens at the start of a line, closes at its end |
 * | `<B>…</B>` | bold |
 * | `<L>…</L>` | large: double width and height |
 * | `<HR>` | a dashed rule across the paper |
 * | `<CUT>` | feed and cut the paper |
 * | `<QR>data</QR>` | a QR code (data: up to 500 bytes of UTF-8; may hold line breaks) |
 * | `<BAR>data</BAR>` | a CODE128 barcode (data: 1-64 printable ASCII characters) |
 * | `<IMG>url or key</IMG>` | a PNG or JPEG from an http(s) URL or from an object key of the account's own storage |
 * | `&lt;` `&gt;` `&amp;` | a literal `<`, `>`, `&` (a `&` that starts no entity is literal too) |
 *
 * Tag names are case-insensitive; `<BR/>`, `<HR/>`, `<CUT/>` are accepted. QR, BAR, IMG, HR and CUT stand on
 * lines of their own: text before them ends its line, and one line break right after them is absorbed.
 */

import { CONTROL_BUT_LINE_BREAKS, isControlCode } from './validators.ts';
import { keyed, renderMessage, type Keyed, type MessageParams } from './messages.ts';

export const MARKUP_TAGS = ['BR', 'HR', 'CUT', 'C', 'R', 'B', 'L', 'QR', 'BAR', 'IMG'] as const;
export type MarkupTag = (typeof MARKUP_TAGS)[number];

export const MARKUP_LIMITS = {
  /** characters of content */
  chars: 20_000,
  /** blocks (lines, codes, images, rules, cuts) */
  blocks: 1000,
  images: 5,
  qrBytes: 500,
  barcodeChars: 64,
  imageSrc: 1000,
} as const;

export type Align = 'left' | 'center' | 'right';
export interface TextRun {
  text: string;
  bold: boolean;
  large: boolean;
}
export type MarkupBlock =
  | { kind: 'text'; align: Align; runs: TextRun[] }
  | { kind: 'qr'; align: Align; data: string; at: number }
  | { kind: 'barcode'; align: Align; data: string; at: number }
  | { kind: 'image'; align: Align; src: string; at: number }
  | { kind: 'hr' }
  | { kind: 'cut' };

export const MARKUP_ERROR_REASONS = [
  'empty',
  'too_long',
  'too_many_blocks',
  'too_many_images',
  'unknown_tag',
  'bad_tag',
  'unclosed',
  'unexpected_close',
  'nested',
  'align_mid_line',
  'empty_block',
  'bad_data',
  'bad_image',
  'control_char',
  'unprintable_char',
] as const;
export type MarkupErrorReason = (typeof MARKUP_ERROR_REASONS)[number];

/** Where and why the markup is refused: `tag` is the tag's name (`QR`, `/C`), null for an error in text. */
export interface MarkupError {
  reason: MarkupErrorReason;
  tag: string | null;
  /** 0-based offset in the content (UTF-16 units, as JavaScript counts them). */
  position: number;
  /** 1-based line and column of that offset. */
  line: number;
  column: number;
  /** In en, for programs. */
  message: string;
  /** The message by key (contracts/messages.ts) with its values: `markup.atTag` or `markup.at`, the problem in `why`. */
  key: 'markup.atTag' | 'markup.at';
  params: MessageParams;
}

/** A markup problem where it was found, by key: "<QR> at line 3, column 1: <QR> is empty". */
function located(
  reason: MarkupErrorReason,
  tag: string | null,
  position: number,
  line: number,
  column: number,
  why: Keyed | string,
): MarkupError {
  const key = tag ? 'markup.atTag' : 'markup.at';
  const params: MessageParams = tag ? { tag, line, column, why } : { line, column, why };
  return { reason, tag, position, line, column, message: renderMessage('en', key, params), key, params };
}

export type MarkupResult = { ok: true; blocks: MarkupBlock[]; images: number } | { ok: false; error: MarkupError };

/** A storage key as the platform's uploads make them (SPEC §7): date folder / random id / name. */
export const OBJECT_KEY_RULE = /^\d{8}\/[0-9a-f]{16}\/[^/\\]{1,120}$/;

export const isImageSource = (src: string): boolean => {
  if (src.length > MARKUP_LIMITS.imageSrc) return false;
  if (OBJECT_KEY_RULE.test(src)) return true;
  try {
    const u = new URL(src);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Paper geometry: the one definition of a column, shared by the server's renderer and the simulator.

/** Printable dots across the paper and columns of the 12-dot font (ESC/POS font A: 12 × 24 dots). */
export function paperGeometry(paperWidthMm: number): { dots: number; columns: number } {
  const dots =
    paperWidthMm >= 76
      ? 576
      : paperWidthMm >= 56 || paperWidthMm <= 0
        ? 384
        : Math.max(96, Math.floor((paperWidthMm * 8 * 0.8) / 24) * 24);
  return { dots, columns: dots / 12 };
}

/**
 * Columns one character takes at normal size: printable ASCII takes one; everything else is a double-byte
 * GB18030 character printed from the 24-dot Chinese font, two columns.
 */
export const charColumns = (ch: string): number => {
  const cp = ch.codePointAt(0) ?? 0;
  return cp >= 0x20 && cp < 0x7f ? 1 : 2;
};

// ---------------------------------------------------------------------------------------------------------------

const TAG_RE = /^<(\/?)([A-Za-z]{1,8})\s*(\/?)>/;
const BLOCK_TAGS = new Set(['QR', 'BAR', 'IMG']);
const SINGLE_TAGS = new Set(['BR', 'HR', 'CUT']);
const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** Parses and validates markup; the first problem found is reported with its tag and position. */
export function parseMarkup(content: string): MarkupResult {
  const lineStarts = [0];
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (c === '\n' || (c === '\r' && content[i + 1] !== '\n')) lineStarts.push(i + 1);
  }
  const fail = (reason: MarkupErrorReason, tag: string | null, position: number, why: Keyed): MarkupResult => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= position) line++;
    const column = position - lineStarts[line] + 1;
    return { ok: false, error: located(reason, tag, position, line + 1, column, why) };
  };

  if (content.trim() === '') return fail('empty', null, 0, keyed('markup.contentEmpty'));
  if (content.length > MARKUP_LIMITS.chars)
    return fail('too_long', null, MARKUP_LIMITS.chars, keyed('markup.tooLong', { n: MARKUP_LIMITS.chars }));

  const blocks: MarkupBlock[] = [];
  let images = 0;
  let align: Align = 'left';
  /** Where the open alignment tag (C or R) started, or -1. */
  let alignOpen = -1;
  let alignTag = '';
  let boldOpen = -1;
  let largeOpen = -1;
  /** The line being built: its alignment (taken when it starts) and its runs. */
  let runs: TextRun[] = [];
  let lineAlign: Align = 'left';
  let lineStarted = false;
  /** An alignment tag was closed on this line: only a line end may follow. */
  let closedAlignAt = -1;
  let closedAlignTag = '';
  /** A block just ended: one line break right after it is absorbed. */
  let afterBlock = false;

  const pushText = (text: string) => {
    if (!lineStarted) {
      lineStarted = true;
      lineAlign = align;
    }
    const bold = boldOpen >= 0;
    const large = largeOpen >= 0;
    const last = runs[runs.length - 1];
    if (last && last.bold === bold && last.large === large) last.text += text;
    else runs.push({ text, bold, large });
  };
  const endLine = () => {
    blocks.push({ kind: 'text', align: lineStarted ? lineAlign : align, runs });
    runs = [];
    lineStarted = false;
    closedAlignAt = -1;
  };
  /** Before a block: the text of the current line (if any) becomes a line of its own. */
  const flushLine = () => {
    if (lineStarted && runs.some((r) => r.text.length > 0)) endLine();
    else {
      runs = [];
      lineStarted = false;
      closedAlignAt = -1;
    }
  };
  const tooMany = (at: number) =>
    blocks.length >= MARKUP_LIMITS.blocks &&
    fail('too_many_blocks', null, at, keyed('markup.tooManyLines', { n: MARKUP_LIMITS.blocks }));

  let i = 0;
  while (i < content.length) {
    const c = content[i];
    if (c === '\n' || c === '\r') {
      const len = c === '\r' && content[i + 1] === '\n' ? 2 : 1;
      if (afterBlock) afterBlock = false;
      else {
        const over = tooMany(i);
        if (over) return over;
        endLine();
      }
      i += len;
      continue;
    }
    if (c === '<') {
      const m = TAG_RE.exec(content.slice(i, i + 16));
      if (!m) return fail('bad_tag', null, i, keyed('markup.strayLt'));
      const closing = m[1] === '/';
      const name = m[2].toUpperCase();
      const selfClosing = m[3] === '/';
      const shown = closing ? `/${name}` : name;
      if (!(MARKUP_TAGS as readonly string[]).includes(name)) {
        return fail(
          'unknown_tag',
          shown,
          i,
          keyed('markup.unknownTag', { tags: MARKUP_TAGS.map((t) => `<${t}>`).join(' ') }),
        );
      }
      if (closedAlignAt >= 0 && !closing && !SINGLE_TAGS.has(name) && !BLOCK_TAGS.has(name)) {
        return fail('align_mid_line', closedAlignTag, closedAlignAt, keyed('markup.textAfterClose'));
      }
      if (selfClosing && !SINGLE_TAGS.has(name))
        return fail('bad_tag', shown, i, keyed('markup.selfClosing', { tag: name }));
      if (closing && SINGLE_TAGS.has(name))
        return fail('unexpected_close', shown, i, keyed('markup.standsAlone', { tag: name }));
      const tagEnd = i + m[0].length;

      if (SINGLE_TAGS.has(name)) {
        const over = tooMany(i);
        if (over) return over;
        if (name === 'BR') {
          afterBlock = false;
          endLine();
        } else {
          flushLine();
          blocks.push(name === 'HR' ? { kind: 'hr' } : { kind: 'cut' });
          afterBlock = true;
        }
        i = tagEnd;
        continue;
      }

      if (BLOCK_TAGS.has(name)) {
        if (closing) return fail('unexpected_close', shown, i, keyed('markup.unopened', { tag: name }));
        const closeRe = new RegExp(`</${name}\\s*>`, 'i');
        const rest = content.slice(tagEnd);
        const close = closeRe.exec(rest);
        if (!close) return fail('unclosed', name, i, keyed('markup.unclosed', { tag: name }));
        const raw = rest.slice(0, close.index);
        const inner = /<\/?[A-Za-z]{1,8}\s*\/?>/.exec(raw);
        if (inner)
          return fail('nested', name, tagEnd + inner.index, keyed('markup.dataOnly', { tag: name, inner: inner[0] }));
        const ctl = CONTROL_BUT_LINE_BREAKS.exec(raw);
        if (ctl)
          return fail(
            'control_char',
            name,
            tagEnd + ctl.index,
            keyed('markup.controlInData', {
              code: `U+${ctl[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`,
            }),
          );
        const data = decodeEntities(raw).replace(/\r\n?/g, '\n');
        const trimmed = data.trim();
        if (trimmed === '') return fail('empty_block', name, i, keyed('markup.empty', { tag: name }));
        if (name === 'QR' && new TextEncoder().encode(trimmed).length > MARKUP_LIMITS.qrBytes) {
          return fail('bad_data', name, i, keyed('markup.qrTooLong', { n: MARKUP_LIMITS.qrBytes }));
        }
        if (name === 'BAR' && !new RegExp(`^[\\x20-\\x7e]{1,${MARKUP_LIMITS.barcodeChars}}$`).test(trimmed)) {
          return fail('bad_data', name, i, keyed('markup.barcode', { n: MARKUP_LIMITS.barcodeChars }));
        }
        if (name === 'IMG') {
          if (!isImageSource(trimmed)) return fail('bad_data', name, i, keyed('markup.imageSource'));
          if (++images > MARKUP_LIMITS.images)
            return fail('too_many_images', name, i, keyed('markup.tooManyImages', { n: MARKUP_LIMITS.images }));
        }
        if (name !== 'QR' && /\n/.test(trimmed))
          return fail('bad_data', name, i, keyed('markup.oneLine', { tag: name }));
        const over = tooMany(i);
        if (over) return over;
        flushLine();
        const blockAlign = align;
        blocks.push(
          name === 'QR'
            ? { kind: 'qr', align: blockAlign, data: trimmed, at: i }
            : name === 'BAR'
              ? { kind: 'barcode', align: blockAlign, data: trimmed, at: i }
              : { kind: 'image', align: blockAlign, src: trimmed, at: i },
        );
        afterBlock = true;
        i = tagEnd + close.index + close[0].length;
        continue;
      }

      // C, R, B, L
      if (name === 'C' || name === 'R') {
        if (!closing) {
          if (alignOpen >= 0)
            return fail('nested', name, i, keyed('markup.alignNested', { tag: name, outer: alignTag }));
          if (lineStarted && runs.some((r) => r.text.length > 0))
            return fail('align_mid_line', name, i, keyed('markup.lineStart', { tag: name }));
          alignOpen = i;
          alignTag = name;
          align = name === 'C' ? 'center' : 'right';
          // the line (possibly begun by B or L) takes this alignment
          lineAlign = align;
        } else {
          if (alignOpen < 0 || alignTag !== name)
            return fail(
              'unexpected_close',
              shown,
              i,
              alignOpen < 0
                ? keyed('markup.unopened', { tag: name })
                : keyed('markup.misnested', { tag: name, outer: alignTag }),
            );
          alignOpen = -1;
          align = 'left';
          if (lineStarted) {
            closedAlignAt = i;
            closedAlignTag = shown;
          }
        }
      } else {
        const open = name === 'B' ? boldOpen : largeOpen;
        if (!closing) {
          if (open >= 0) return fail('nested', name, i, keyed('markup.nested', { tag: name, outer: name }));
          if (name === 'B') boldOpen = i;
          else largeOpen = i;
        } else {
          if (open < 0) return fail('unexpected_close', shown, i, keyed('markup.unopened', { tag: name }));
          if (name === 'B') boldOpen = -1;
          else largeOpen = -1;
        }
      }
      i = tagEnd;
      continue;
    }

    // text
    if (closedAlignAt >= 0 && c === ' ') {
      i++;
      continue;
    }
    if (closedAlignAt >= 0)
      return fail('align_mid_line', closedAlignTag, closedAlignAt, keyed('markup.textAfterClose'));
    const code = content.charCodeAt(i);
    if (isControlCode(code)) {
      return fail(
        'control_char',
        null,
        i,
        code === 9
          ? keyed('markup.tab')
          : keyed('markup.controlCharacter', { code: `U+${code.toString(16).padStart(4, '0').toUpperCase()}` }),
      );
    }
    if (c === '&') {
      const ent = /^&(lt|gt|amp);/.exec(content.slice(i, i + 5));
      if (ent) {
        afterBlock = false;
        pushText(ENTITIES[ent[0]]);
        i += ent[0].length;
        continue;
      }
    }
    // a whole code point (a surrogate pair stays together)
    const cp = content.codePointAt(i)!;
    // printers' fonts hold GB18030's BMP characters: an emoji would print as a blank or garbage (QR data may hold it)
    if (cp > 0xffff)
      return fail('unprintable_char', null, i, keyed('markup.beyondBmp', { code: cp.toString(16).toUpperCase() }));
    if (cp >= 0xd800 && cp <= 0xdfff)
      return fail('unprintable_char', null, i, keyed('markup.loneSurrogate', { code: cp.toString(16).toUpperCase() }));
    const ch = String.fromCodePoint(cp);
    afterBlock = false;
    pushText(ch);
    i += ch.length;
  }

  if (alignOpen >= 0) return fail('unclosed', alignTag, alignOpen, keyed('markup.unclosed', { tag: alignTag }));
  if (boldOpen >= 0) return fail('unclosed', 'B', boldOpen, keyed('markup.unclosed', { tag: 'B' }));
  if (largeOpen >= 0) return fail('unclosed', 'L', largeOpen, keyed('markup.unclosed', { tag: 'L' }));
  if (lineStarted) {
    const over = tooMany(content.length);
    if (over) return over;
    endLine();
  }
  if (!blocks.length) return fail('empty', null, 0, keyed('markup.nothingPrint'));
  return { ok: true, blocks, images };
}

/**
 * A MarkupError at a position of the content, for problems found after parsing (an image that cannot be
 * fetched, a barcode too wide for the device's paper): the same shape and wording as the parser's.
 */
export function markupErrorAt(
  content: string,
  reason: MarkupErrorReason,
  tag: string | null,
  position: number,
  why: Keyed | string,
): MarkupError {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position && i < content.length; i++) {
    const c = content[i];
    if (c === '\n' || (c === '\r' && content[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = position - lineStart + 1;
  return located(reason, tag, position, line, column, why);
}

function decodeEntities(s: string): string {
  return s.replace(/&(lt|gt|amp);/g, (e) => ENTITIES[e]);
}

/** Escapes text so that it prints as written (for integrators building markup from data). */
export const escapeMarkup = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
