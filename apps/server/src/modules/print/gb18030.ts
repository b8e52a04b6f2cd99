/**
 * A GB18030 encoder for the printers.
 *
 * Which edition. GB18030-2022 changed the Unicode mapping of 18 two-byte codes, not their glyphs: A6D9–A6DF,
 * A6EC, A6ED, A6F3 (vertical punctuation) and FE59, FE61, FE66, FE67, FE6D, FE7E, FE90, FEA0 (CJK characters)
 * were the private-use code points U+E78D–U+E796 and U+E81E…U+E864 in 2000/2005, and are the standard
 * U+FE10–U+FE19 and U+9FB4–U+9FBB in 2022 (2005 had given those standard code points four-byte codes,
 * 84 31 82 36… and 82 35 90 37…, which 2022 hands to the private-use ones). A printer draws the glyph of a
 * byte code; the thermal printers sold in China carry the two-byte GBK / GB18030-2000 font, which has these
 * 18 glyphs at their two-byte codes whichever edition the firmware follows, and mostly no four-byte codes at all.
 * So every one of these characters goes out as its two-byte code: the standard code point (what today's input
 * methods type) as 2022 says, and the private-use one (what older software wrote) as 2005 says. Both editions'
 * printers then print the intended glyph; a strict encoder of either edition would send one of the two spellings
 * to a four-byte code the printer has no glyph for.
 *
 * Why not a library. iconv-lite 0.7 (the usual package) follows GB18030-2005, so U+FE10 "︐" and U+9FB4 would go
 * out as four-byte codes. Node decodes GB18030 with ICU (2022 since ICU 73) but encodes only UTF-8, so the table is
 * derived once from that decoder: every two-byte code and every four-byte BMP code is decoded and the mapping
 * reversed; supplementary planes follow the standard's linear formula; the 18 codes above are then set explicitly,
 * so the result does not depend on the ICU version. gb18030.test.ts pins the bytes.
 */

/** The 18 codes whose Unicode mapping changed in 2022: [two-byte code, 2022 code point, 2000/2005 code point]. */
export const EDITION_CHANGES: ReadonlyArray<readonly [code: number, unicode2022: number, unicode2005: number]> = [
  [0xa6d9, 0xfe10, 0xe78d],
  [0xa6da, 0xfe12, 0xe78e],
  [0xa6db, 0xfe11, 0xe78f],
  [0xa6dc, 0xfe13, 0xe790],
  [0xa6dd, 0xfe14, 0xe791],
  [0xa6de, 0xfe15, 0xe792],
  [0xa6df, 0xfe16, 0xe793],
  [0xa6ec, 0xfe17, 0xe794],
  [0xa6ed, 0xfe18, 0xe795],
  [0xa6f3, 0xfe19, 0xe796],
  [0xfe59, 0x9fb4, 0xe81e],
  [0xfe61, 0x9fb5, 0xe826],
  [0xfe66, 0x9fb6, 0xe82b],
  [0xfe67, 0x9fb7, 0xe82c],
  [0xfe6d, 0x9fb8, 0xe832],
  [0xfe7e, 0x9fb9, 0xe843],
  [0xfe90, 0x9fba, 0xe854],
  [0xfea0, 0x9fbb, 0xe864],
];

let table: Uint32Array | undefined;

function buildTable(): Uint32Array {
  const t = new Uint32Array(0x10000);
  const decoder = new TextDecoder('gb18030');
  const two = new Uint8Array(2);
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) {
      if (trail === 0x7f) continue;
      two[0] = lead;
      two[1] = trail;
      const s = decoder.decode(two);
      if (s.length !== 1) continue;
      const cp = s.charCodeAt(0);
      if (cp === 0xfffd || cp < 0x80 || t[cp]) continue;
      t[cp] = (lead << 8) | trail;
    }
  }
  // four-byte codes of the BMP: 81 30 81 30 … 84 31 A4 39, in order
  const four = new Uint8Array(4);
  for (let b1 = 0x81; b1 <= 0x84; b1++) {
    for (let b2 = 0x30; b2 <= 0x39; b2++) {
      for (let b3 = 0x81; b3 <= 0xfe; b3++) {
        for (let b4 = 0x30; b4 <= 0x39; b4++) {
          four[0] = b1;
          four[1] = b2;
          four[2] = b3;
          four[3] = b4;
          const s = decoder.decode(four);
          if (s.length !== 1) continue;
          const cp = s.charCodeAt(0);
          if (cp === 0xfffd || cp < 0x80 || t[cp] || (cp >= 0xd800 && cp <= 0xdfff)) continue;
          t[cp] = ((b1 << 24) | (b2 << 16) | (b3 << 8) | b4) >>> 0;
        }
      }
    }
  }
  for (const [code, unicode2022, unicode2005] of EDITION_CHANGES) {
    t[unicode2022] = code;
    t[unicode2005] = code;
  }
  return t;
}

/** Encodes text as GB18030; a lone surrogate (not a character) becomes `?`. */
export function encodeGb18030(text: string): Buffer {
  table ??= buildTable();
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) {
      out.push(cp);
    } else if (cp >= 0x10000) {
      let i = cp - 0x10000;
      const b4 = 0x30 + (i % 10);
      i = Math.floor(i / 10);
      const b3 = 0x81 + (i % 126);
      i = Math.floor(i / 126);
      const b2 = 0x30 + (i % 10);
      const b1 = 0x90 + Math.floor(i / 10);
      out.push(b1, b2, b3, b4);
    } else {
      const v = table[cp];
      if (!v) out.push(0x3f);
      else if (v > 0xffff) out.push(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
      else out.push(v >>> 8, v & 0xff);
    }
  }
  return Buffer.from(out);
}
