/**
 * A GB18030 encoder. Node decodes GB18030 (TextDecoder, full ICU) but encodes only UTF-8, and no encoder
 * package is installed, so the table is derived once from the decoder itself: every two-byte code and every
 * four-byte BMP code is decoded and the mapping reversed; supplementary planes follow the standard's linear
 * formula. The result matches the platform's own decoder byte for byte, which is what the printers' firmware
 * (and the simulator) read.
 */

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
