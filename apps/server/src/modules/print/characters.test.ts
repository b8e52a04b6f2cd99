import { describe, expect, it } from 'vitest';
import { paperGeometry, parseMarkup } from '@cpc/contracts/print-markup';
import { encodeEscPos } from './escpos.ts';

/**
 * What reaches the printer for each kind of character the open API takes (docs/open-api.md, "What goes to the
 * printer"). The GB18030 codes are written out from the standard's tables, not from the server's encoder.
 */
function printed(content: string): Buffer {
  const r = parseMarkup(content);
  if (!r.ok) throw new Error(r.error.message);
  const { columns, dots } = paperGeometry(80);
  return encodeEscPos(r.blocks, { columns, dots, images: new Map() });
}
const hex = (s: string) => Buffer.from(s.replace(/ /g, ''), 'hex');

describe('the bytes each character prints as', () => {
  const chars: Array<[string, string, string]> = [
    [
      'printable ASCII',
      ' !"#$%&\'()*+,-./09:;=?@AZ[\\]^_`az{|}~',
      '20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 39 3a 3b 3d 3f 40 41 5a 5b 5c 5d 5e 5f 60 61 7a 7b 7c 7d 7e',
    ],
    ['entities for < > &', '&lt;&gt;&amp;', '3c 3e 26'],
    ['CJK', '中文', 'd6 d0 ce c4'],
    ['full-width punctuation', '，。、！“￥', 'a3 ac a1 a3 a1 a2 a3 a1 a1 b0 a3 a4'],
    ['Latin-1 and symbols in GBK', '·×€', 'a1 a4 a1 c1 a2 e3'],
    // outside GBK's two-byte set: GB18030's four-byte code (a GBK-only printer shows its own replacement)
    ['a BMP character without a two-byte code', '¥', '81 30 84 36'],
  ];
  it.each(chars)('%s', (_name, text, bytes) => {
    // between two markers, so nothing else of the line is counted
    expect(printed(`|${text}|`).includes(Buffer.concat([hex('7c'), hex(bytes), hex('7c')]))).toBe(true);
  });

  it('prints CR LF, LF and a lone CR as one line break each, and never sends a CR', () => {
    const bytes = printed('a\r\nb\nc\rd');
    expect(bytes.includes(0x0d)).toBe(false);
    for (const c of 'abcd') expect(bytes.includes(Buffer.from(`${c}\n`))).toBe(true);
  });

  // refused when submitted, so nothing of them reaches the printer (docs/open-api.md, "Content")
  const refused: Array<[string, string, string, number]> = [
    ['a tab', 'a\tb', 'control_char', 1],
    ['C0 (ESC, which would start a printer command)', 'a\u001b@', 'control_char', 1],
    ['DEL', 'a\u007f', 'control_char', 1],
    ['C1 NEL', 'a\u0085', 'control_char', 1],
    ['C1 CSI', 'ab\u009b', 'control_char', 2],
    ['the last C1', '\u009f', 'control_char', 0],
    ['an emoji (astral)', 'ok 😀', 'unprintable_char', 3],
    ['an astral CJK character', '𠀀', 'unprintable_char', 0],
    ['a lone surrogate', 'a\ud800b', 'unprintable_char', 1],
  ];
  it.each(refused)('refuses %s, naming where', (_name, content, reason, position) => {
    const r = parseMarkup(content);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ reason, position });
  });

  it('keeps U+00A0 and U+00A1, the first characters after C1', () => {
    expect(printed('|\u00a0\u00a1|').length).toBeGreaterThan(0);
  });

  it('takes an emoji inside QR data, which is UTF-8 bytes and not the font', () => {
    expect(printed('<QR>😀</QR>').includes(Buffer.from('😀'))).toBe(true);
  });
});
