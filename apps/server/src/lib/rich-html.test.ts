import { describe, expect, it } from 'vitest';
import { presentRichHtml, sanitizeRichHtml } from './rich-html.ts';

const KEY = '20261126/0123456789abcdef/photo.png';

describe('sanitizeRichHtml', () => {
  it.each([
    ['<script>alert(1)</script><p>hi</p>', '<p>hi</p>'],
    ['<img src=x onerror=alert(1)>', ''],
    ['<p onclick="alert(1)">x</p>', '<p>x</p>'],
    ['<a href="javascript:alert(1)">x</a>', '<a target="_blank" rel="noopener noreferrer nofollow">x</a>'],
    ['<svg onload=alert(1)><circle/></svg>', ''],
    ['<iframe src="https://evil.example"></iframe><p>a</p>', '<p>a</p>'],
    ['<p style="background:url(javascript:alert(1))">a</p>', '<p>a</p>'],
    ['<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', ''],
  ])('takes the script out of %s', (dirty, clean) => {
    expect(sanitizeRichHtml(dirty).html).toBe(clean);
  });

  it('keeps formatting, safe links and colours', () => {
    const { html, hasContent } = sanitizeRichHtml(
      '<h2>T</h2><p style="text-align:center"><strong>b</strong> <a href="https://a.example/x">l</a></p><ul><li>1</li></ul>',
    );
    expect(html).toBe(
      '<h2>T</h2><p style="text-align:center"><strong>b</strong> <a href="https://a.example/x" target="_blank" rel="noopener noreferrer nofollow">l</a></p><ul><li>1</li></ul>',
    );
    expect(hasContent).toBe(true);
  });

  it('stores an uploaded image by its key, whatever signed URL it came with, and drops foreign images', () => {
    const signed = `/apiAdmin/objects/${KEY}?exp=1&sig=abc`;
    const r = sanitizeRichHtml(`<p><img src="${signed}" alt="a"><img src="https://tracker.example/p.gif"></p>`);
    expect(r.html).toBe(`<p><img data-object-key="${KEY}" alt="a" /></p>`);
    expect(r.objectKeys).toEqual([KEY]);
  });

  it('says when nothing is left', () => {
    expect(sanitizeRichHtml('<p> </p><script>x</script>').hasContent).toBe(false);
  });
});

describe('presentRichHtml', () => {
  it('signs each stored image afresh', () => {
    const out = presentRichHtml(`<p><img data-object-key="${KEY}" alt="a" /></p>`, {
      signedUrl: (k) => `/apiAdmin/objects/${k}?exp=9&sig=s`,
    });
    expect(out).toBe(`<p><img src="/apiAdmin/objects/${KEY}?exp=9&amp;sig=s" data-object-key="${KEY}" alt="a" /></p>`);
  });
});
