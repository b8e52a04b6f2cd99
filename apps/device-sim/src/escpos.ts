/**
 * What a cloud printer would put on paper for a stream of ESC/POS bytes, as text lines — the simulator's
 * print head. An interpreter of the commands the platform sends (and a few neighbours), written from the
 * ESC/POS command reference rather than from the server's encoder, so that comparing its lines with the
 * server's preview tests the encoder:
 *
 * - text: single bytes are ASCII (one column); in Chinese mode (`FS &`) a byte from 0x81 starts a GB18030
 *   character (two bytes, or four when the second is a digit 0x30-0x39) printed two columns wide; double width
 *   (`GS !`, `ESC !`) doubles the columns; a line wraps when the next character does not fit, `LF` ends it;
 * - alignment (`ESC a`) is taken when a line starts; centred and right-aligned lines are padded with spaces;
 *   trailing spaces are cut;
 * - `GS ( k` QR (stored data printed as `[QR data]`), `GS k` barcodes (`[BARCODE data]`), `GS v 0` rasters
 *   (`[IMAGE wxh]`), `GS V` cuts (`[CUT]`); feeds (`ESC d`) add no lines.
 */
export function renderEscPos(bytes: Uint8Array, columns: number): string[] {
  const lines: string[] = [];
  const gb = new TextDecoder('gb18030');
  const utf8 = new TextDecoder('utf-8');
  let align = 0;
  let width = 1;
  let chinese = false;
  let text = '';
  let used = 0;
  let lineAlign = 0;
  let started = false;
  let qr: Uint8Array = new Uint8Array(0);

  const flush = () => {
    const a = started ? lineAlign : align;
    const pad = a === 1 ? Math.floor((columns - used) / 2) : a === 2 ? columns - used : 0;
    lines.push((' '.repeat(Math.max(0, pad)) + text).trimEnd());
    text = '';
    used = 0;
    started = false;
  };
  const flushIfAny = () => {
    if (started) flush();
  };
  const put = (ch: string, cols: number) => {
    const w = cols * width;
    if (started && used + w > columns) flush();
    if (!started) {
      started = true;
      lineAlign = align;
    }
    text += ch;
    used += w;
  };

  let i = 0;
  const n = bytes.length;
  const byte = () => (i < n ? bytes[i++] : 0);
  while (i < n) {
    const b = byte();
    if (b === 0x0a) {
      flush();
      continue;
    }
    if (b === 0x1b) {
      const cmd = byte();
      switch (cmd) {
        case 0x40: // ESC @: initialise
          align = 0;
          width = 1;
          break;
        case 0x61: // ESC a n
          align = byte() % 48;
          break;
        case 0x45: // ESC E n (bold: not visible in text)
        case 0x2d: // ESC - n (underline)
        case 0x4d: // ESC M n (font)
          byte();
          break;
        case 0x21: // ESC ! n: print mode, bit 5 double width
          width = byte() & 0x20 ? 2 : 1;
          break;
        case 0x64: // ESC d n: print the buffer and feed n lines
          byte();
          flushIfAny();
          break;
        default:
          break;
      }
      continue;
    }
    if (b === 0x1d) {
      const cmd = byte();
      switch (cmd) {
        case 0x21: // GS ! n: width in the high nibble, height in the low one
          width = ((byte() >> 4) & 7) + 1;
          break;
        case 0x28: {
          // GS ( k pL pH cn fn [m] data
          const fn0 = byte();
          const len = byte() + 256 * byte();
          const body = bytes.subarray(i, i + len);
          i += len;
          if (fn0 !== 0x6b || body[0] !== 0x31) break;
          if (body[1] === 0x50) qr = body.slice(3);
          else if (body[1] === 0x51) {
            flushIfAny();
            lines.push(`[QR ${utf8.decode(qr).replace(/\r\n?|\n/g, '\\n')}]`);
          }
          break;
        }
        case 0x6b: {
          // GS k m d1…dk NUL (m 0-6) or GS k m n d1…dn (m 65-73)
          const m = byte();
          let data: Uint8Array;
          if (m <= 6) {
            const end = bytes.indexOf(0, i);
            data = bytes.subarray(i, end < 0 ? n : end);
            i = end < 0 ? n : end + 1;
          } else {
            const len = byte();
            data = bytes.subarray(i, i + len);
            i += len;
          }
          let s = new TextDecoder('latin1').decode(data);
          // CODE128: a code-set switch ({A {B {C) starts the data; a literal { is written {{
          if (m === 73) s = s.replace(/^\{[ABC]/, '').replace(/\{\{/g, '{');
          flushIfAny();
          lines.push(`[BARCODE ${s}]`);
          break;
        }
        case 0x76: {
          // GS v 0 m xL xH yL yH d1…dk
          byte();
          byte();
          const xBytes = byte() + 256 * byte();
          const h = byte() + 256 * byte();
          i += xBytes * h;
          flushIfAny();
          lines.push(`[IMAGE ${xBytes * 8}x${h}]`);
          break;
        }
        case 0x56: {
          // GS V m [n]
          const m = byte();
          if (m === 65 || m === 66 || m === 97 || m === 98) byte();
          flushIfAny();
          lines.push('[CUT]');
          break;
        }
        case 0x48: // GS H n: barcode text position
        case 0x68: // GS h n: barcode height
        case 0x77: // GS w n: barcode module width
        case 0x42: // GS B n: reverse
          byte();
          break;
        default:
          break;
      }
      continue;
    }
    if (b === 0x1c) {
      const cmd = byte();
      if (cmd === 0x26) chinese = true;
      else if (cmd === 0x2e) chinese = false;
      else if (cmd === 0x43 || cmd === 0x21) byte();
      continue;
    }
    if (b < 0x20 || b === 0x7f) continue;
    if (b < 0x80) {
      put(String.fromCharCode(b), 1);
      continue;
    }
    if (!chinese) {
      put('?', 1);
      continue;
    }
    // a GB18030 character: four bytes when the second is a digit, else two
    const second = i < n ? bytes[i] : 0;
    const size = second >= 0x30 && second <= 0x39 ? 4 : 2;
    const ch = gb.decode(bytes.subarray(i - 1, i - 1 + size));
    i += size - 1;
    put(ch, 2);
  }
  if (started) flush();
  return lines;
}
