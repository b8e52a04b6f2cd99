import { describe, expect, it } from 'vitest';
import { charColumns, escapeMarkup, paperGeometry, parseMarkup, type MarkupBlock } from './print-markup.ts';
import { canonicalQuery, stringToSign } from './open-api.ts';
import { isIpOrCidr } from './integration-constants.ts';

const blocks = (content: string): MarkupBlock[] => {
  const r = parseMarkup(content);
  if (!r.ok) throw new Error(r.error.message);
  return r.blocks;
};

describe('receipt markup', () => {
  it('makes lines of text with alignment, bold and large runs', () => {
    expect(blocks('<C><L>Shop</L></C>\nTea <B>x2</B>\n\n<R>12.00</R>')).toEqual([
      { kind: 'text', align: 'center', runs: [{ text: 'Shop', bold: false, large: true }] },
      {
        kind: 'text',
        align: 'left',
        runs: [
          { text: 'Tea ', bold: false, large: false },
          { text: 'x2', bold: true, large: false },
        ],
      },
      { kind: 'text', align: 'left', runs: [] },
      { kind: 'text', align: 'right', runs: [{ text: '12.00', bold: false, large: false }] },
    ]);
  });

  it('puts codes, images, rules and cuts on lines of their own and absorbs one line break after them', () => {
    expect(
      blocks(
        'Total 5<QR>https://x.cn/a?b=1&amp;c=2</QR>\n<C><BAR>AB-12</BAR></C>\n<HR>\n<img>https://x.cn/logo.png</img><CUT/>',
      ),
    ).toMatchObject([
      { kind: 'text', align: 'left', runs: [{ text: 'Total 5', bold: false, large: false }] },
      { kind: 'qr', align: 'left', data: 'https://x.cn/a?b=1&c=2', at: 7 },
      { kind: 'barcode', align: 'center', data: 'AB-12' },
      { kind: 'hr' },
      { kind: 'image', align: 'left', src: 'https://x.cn/logo.png' },
      { kind: 'cut' },
    ]);
  });

  it('reads entities, a literal & and CRLF line ends', () => {
    expect(blocks('a &lt;b&gt; &amp; c & d\r\n中文')).toEqual([
      { kind: 'text', align: 'left', runs: [{ text: 'a <b> & c & d', bold: false, large: false }] },
      { kind: 'text', align: 'left', runs: [{ text: '中文', bold: false, large: false }] },
    ]);
    expect(parseMarkup(escapeMarkup('<B> & </B>')).ok).toBe(true);
  });

  const errors: Array<[string, string, string | null, number, number]> = [
    ['', 'empty', null, 1, 1],
    ['hello <X>', 'unknown_tag', 'X', 1, 7],
    ['a\nb <b>c', 'unclosed', 'B', 2, 3],
    ['</C>', 'unexpected_close', '/C', 1, 1],
    ['<B>a<B>b</B></B>', 'nested', 'B', 1, 5],
    ['Total <C>5</C>', 'align_mid_line', 'C', 1, 7],
    ['<C>5</C> more', 'align_mid_line', '/C', 1, 5],
    ['<C>a<R>b</R></C>', 'nested', 'R', 1, 5],
    ['x\n<QR></QR>', 'empty_block', 'QR', 2, 1],
    ['<QR>a<B>b</B></QR>', 'nested', 'QR', 1, 6],
    ['<BAR>条码</BAR>', 'bad_data', 'BAR', 1, 1],
    ['<IMG>file.png</IMG>', 'bad_data', 'IMG', 1, 1],
    ['<QR>abc', 'unclosed', 'QR', 1, 1],
    ['1 < 2', 'bad_tag', null, 1, 3],
    ['<BR></BR>', 'unexpected_close', '/BR', 1, 5],
    ['<B/>', 'bad_tag', 'B', 1, 1],
    ['a\tb', 'control_char', null, 1, 2],
    ['<B></B>', 'empty', null, 1, 1],
  ];
  it.each(errors)('refuses %j: %s naming %s at %i:%i', (content, reason, tag, line, column) => {
    const r = parseMarkup(content);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ reason, tag, line, column });
    if (tag) expect(r.error.message).toContain(`<${tag}>`);
    expect(r.error.message).toContain(`line ${line}, column ${column}`);
  });

  it('limits images and QR data', () => {
    expect(parseMarkup('<IMG>https://a.cn/1.png</IMG>'.repeat(6))).toMatchObject({
      ok: false,
      error: { reason: 'too_many_images', tag: 'IMG' },
    });
    expect(parseMarkup(`<QR>${'x'.repeat(501)}</QR>`)).toMatchObject({
      ok: false,
      error: { reason: 'bad_data', tag: 'QR' },
    });
    expect(parseMarkup('<IMG>20260101/0123456789abcdef/logo.png</IMG>').ok).toBe(true);
  });

  it('counts columns: ASCII one, every other character two; 58 mm paper is 32 columns, 80 mm 48', () => {
    expect([...'a中é ~'].map(charColumns)).toEqual([1, 2, 2, 1, 1]);
    expect(paperGeometry(58)).toEqual({ dots: 384, columns: 32 });
    expect(paperGeometry(80)).toEqual({ dots: 576, columns: 48 });
  });
});

describe('open API signature string', () => {
  it('canonicalizes the query: decoded, RFC 3986 re-encoded, sorted by name then value', () => {
    expect(canonicalQuery('')).toBe('');
    expect(canonicalQuery('?b=2&a=1&a=0&c')).toBe('a=0&a=1&b=2&c=');
    expect(canonicalQuery('q=a+b&x=%7e!&%E4%B8%AD=1')).toBe('%E4%B8%AD=1&q=a%20b&x=~%21');
  });

  it('joins method, path, query, timestamp, nonce and body hash with line feeds', () => {
    expect(
      stringToSign({
        method: 'get',
        path: '/open/v1/print',
        query: 'pageSize=5',
        timestamp: '1767225600',
        nonce: 'n0nce-0001',
        bodySha256: 'abc',
      }),
    ).toBe('GET\n/open/v1/print\npageSize=5\n1767225600\nn0nce-0001\nabc');
  });
});

describe('IP allow-list entries', () => {
  const table: Array<[string, boolean]> = [
    ['10.0.0.1', true],
    ['10.0.0.0/8', true],
    ['10.0.0.0/33', false],
    ['256.1.1.1', false],
    ['::1', true],
    ['2001:db8::/32', true],
    ['2001:db8::1/129', false],
    ['::ffff:192.168.1.10', true],
    ['2001:db8:0:0:0:0:0:1', true],
    ['2001:db8::0::1', false],
    ['example.com', false],
    ['', false],
  ];
  it.each(table)('%s → %s', (v, ok) => expect(isIpOrCidr(v)).toBe(ok));
});
