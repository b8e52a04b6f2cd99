import { describe, expect, it } from 'vitest';
import { EDITION_CHANGES, encodeGb18030 } from './gb18030.ts';

/**
 * The bytes a printer receives. Codes are written out from the GB18030 tables (2000/2005 and 2022), not from the
 * encoder: a Node whose ICU follows another edition, or a switch to an encoder library, shows here.
 */
const hex = (text: string) => encodeGb18030(text).toString('hex');
const ch = (cp: number) => String.fromCodePoint(cp);

describe('GB18030 for the printers', () => {
  // [character, 2022 code point, 2005 private-use code point, the two-byte code both go out as]
  const changed: Array<[string, number, number, string]> = [
    ['vertical comma ︐', 0xfe10, 0xe78d, 'a6d9'],
    ['vertical ideographic comma ︑', 0xfe11, 0xe78f, 'a6db'],
    ['vertical ideographic full stop ︒', 0xfe12, 0xe78e, 'a6da'],
    ['vertical colon ︓', 0xfe13, 0xe790, 'a6dc'],
    ['vertical semicolon ︔', 0xfe14, 0xe791, 'a6dd'],
    ['vertical exclamation mark ︕', 0xfe15, 0xe792, 'a6de'],
    ['vertical question mark ︖', 0xfe16, 0xe793, 'a6df'],
    ['vertical left white lenticular bracket ︗', 0xfe17, 0xe794, 'a6ec'],
    ['vertical right white lenticular bracket ︘', 0xfe18, 0xe795, 'a6ed'],
    ['vertical horizontal ellipsis ︙', 0xfe19, 0xe796, 'a6f3'],
    ['CJK U+9FB4', 0x9fb4, 0xe81e, 'fe59'],
    ['CJK U+9FB5', 0x9fb5, 0xe826, 'fe61'],
    ['CJK U+9FB6', 0x9fb6, 0xe82b, 'fe66'],
    ['CJK U+9FB7', 0x9fb7, 0xe82c, 'fe67'],
    ['CJK U+9FB8', 0x9fb8, 0xe832, 'fe6d'],
    ['CJK U+9FB9', 0x9fb9, 0xe843, 'fe7e'],
    ['CJK U+9FBA', 0x9fba, 0xe854, 'fe90'],
    ['CJK U+9FBB', 0x9fbb, 0xe864, 'fea0'],
  ];

  it.each(changed)(
    '%s goes out as its two-byte code, typed as in 2022 or as in 2005',
    (_name, unicode2022, unicode2005, code) => {
      expect(hex(ch(unicode2022))).toBe(code);
      expect(hex(ch(unicode2005))).toBe(code);
    },
  );

  it('never sends the four-byte codes GB18030-2005 gave the standard code points', () => {
    // 2005: U+FE10 → 84 31 82 36, U+9FB4 → 82 35 90 37 (what iconv-lite 0.7 sends); few printer fonts have them
    expect(hex('\ufe10\u9fb4')).not.toContain('84318236');
    expect(hex('\ufe10\u9fb4')).not.toContain('82359037');
    expect(hex('\ufe10\u9fb4')).toBe('a6d9fe59');
  });

  it('covers exactly the 18 codes the 2022 edition changed', () => {
    expect(EDITION_CHANGES).toHaveLength(18);
    expect(new Set(changed.map(([, , , code]) => code))).toEqual(
      new Set(EDITION_CHANGES.map(([code]) => code.toString(16))),
    );
  });

  it('reads back through the platform decoder as the 2022 characters', () => {
    const typed2005 = changed.map(([, , pua]) => ch(pua)).join('');
    const typed2022 = changed.map(([, cp]) => ch(cp)).join('');
    expect(new TextDecoder('gb18030').decode(encodeGb18030(typed2005))).toBe(typed2022);
  });

  const ordinary: Array<[string, string, string]> = [
    ['ASCII', 'Tea x2 12.00', Buffer.from('Tea x2 12.00').toString('hex')],
    ['GB2312 hanzi', '中文打印', 'd6d0cec4b4f2d3a1'],
    ['the first and a late GB2312 hanzi', '啊齄', 'b0a1f7fe'],
    ['a GBK hanzi outside GB2312', '丂', '8140'],
    ['full-width punctuation and the yuan sign', '，。￥', 'a3aca1a3a3a4'],
    ['the euro sign (GBK)', '€', 'a2e3'],
    ['the ideographic space', '\u3000', 'a1a1'],
  ];
  it.each(ordinary)('%s: two-byte codes', (_name, text, bytes) => {
    expect(hex(text)).toBe(bytes);
  });

  const fourByte: Array<[string, string, string]> = [
    ['the first four-byte code (U+0080)', '\u0080', '81308130'],
    ['the yen sign ¥ (no two-byte code)', '¥', '81308436'],
    ['CJK extension A 㐀', '\u3400', '8139ee39'],
    ['the last BMP code (U+FFFF)', '\uffff', '8431a439'],
    ['the first supplementary code point (U+10000)', ch(0x10000), '90308130'],
    ['a CJK extension B character 𠀀', ch(0x20000), '95328236'],
  ];
  it.each(fourByte)('%s: its four-byte code', (_name, text, bytes) => {
    expect(hex(text)).toBe(bytes);
  });

  it('sends a lone surrogate as ?', () => {
    expect(hex('a\ud800b')).toBe('613f62');
  });
});
