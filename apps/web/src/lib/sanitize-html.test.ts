import { describe, expect, it } from 'vitest';
import { sanitizeHtml } from './sanitize-html';

describe('sanitizeHtml', () => {
  it('keeps ordinary formatting', () => {
    const html = '<p>Maintenance on <strong>Sunday</strong>, <em>02:00</em>.</p><ul><li>one</li></ul>';
    expect(sanitizeHtml(html)).toBe(html);
  });

  it.each([
    ['a script', '<p>hi</p><script>alert(1)</script>', '<p>hi</p>'],
    ['an event handler', '<p onclick="alert(1)">hi</p>', '<p>hi</p>'],
    [
      'an image with onerror',
      '<img src="https://x.test/a.png" onerror="alert(1)">',
      '<img src="https://x.test/a.png" style="max-width:100%;height:auto">',
    ],
    ['a javascript: link', '<a href="javascript:alert(1)">x</a>', '<a target="_blank" rel="noopener noreferrer">x</a>'],
    [
      'a javascript: link hidden by blanks',
      '<a href="java\tscript:alert(1)">x</a>',
      '<a target="_blank" rel="noopener noreferrer">x</a>',
    ],
    ['a javascript: image', '<img src="javascript:alert(1)">', ''],
    ['an iframe', '<iframe src="https://evil.test"></iframe>ok', 'ok'],
    ['a style block', '<style>body{display:none}</style>ok', 'ok'],
    ['an svg with script', '<svg><script>alert(1)</script></svg>ok', 'ok'],
    ['a form', '<form action="https://evil.test"><input name="p"></form>ok', 'ok'],
    ['an inline style', '<p style="position:fixed;inset:0">x</p>', '<p>x</p>'],
    ['a comment', '<!-- secret -->x', 'x'],
    ['an image relative to the page', '<img src="x" onerror="alert(1)">', ''],
    [
      'an entity-encoded javascript: link',
      '<a href="&#106;avascript:alert(1)">x</a>',
      '<a target="_blank" rel="noopener noreferrer">x</a>',
    ],
    ['a mutation through noscript', '<noscript><p title="</noscript><img src=x onerror=alert(1)>">', '<p></p>'],
    ['a mutation through math and style', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', ''],
  ])('removes %s', (_, html, expected) => {
    expect(sanitizeHtml(html)).toBe(expected);
  });

  it('keeps the text of unknown elements', () => {
    expect(sanitizeHtml('<section><font color="red">hello</font></section>')).toBe('hello');
  });

  it('keeps images from the web, the server and data URLs', () => {
    for (const src of ['https://cdn.test/a.png', '/apiAdmin/file/a.png', 'data:image/png;base64,iVBORw0KGgo=']) {
      expect(sanitizeHtml(`<img src="${src}" alt="a">`)).toBe(
        `<img src="${src}" alt="a" style="max-width:100%;height:auto">`,
      );
    }
  });

  it('opens safe links in a new window without giving it the console', () => {
    expect(sanitizeHtml('<a href="https://docs.test/x" class="c">docs</a>')).toBe(
      '<a href="https://docs.test/x" target="_blank" rel="noopener noreferrer">docs</a>',
    );
  });
});

describe('sanitizeHtml and the editor', () => {
  it('keeps the colour and alignment the editor writes, nothing else of a style', () => {
    expect(sanitizeHtml('<p style="text-align: center; position: fixed">x</p>')).toBe(
      '<p style="text-align: center">x</p>',
    );
    expect(sanitizeHtml('<span style="color:#ff0000;background:url(javascript:alert(1))">x</span>')).toBe(
      '<span style="color:#ff0000">x</span>',
    );
  });

  it.each([
    [
      'an upper-case scheme',
      '<a href="JaVaScRiPt:alert(1)">x</a>',
      '<a target="_blank" rel="noopener noreferrer">x</a>',
    ],
    ['a vbscript: link', '<a href="vbscript:msgbox(1)">x</a>', '<a target="_blank" rel="noopener noreferrer">x</a>'],
    [
      'a data: html link',
      '<a href="data:text/html,<script>alert(1)</script>">x</a>',
      '<a target="_blank" rel="noopener noreferrer">x</a>',
    ],
    ['an svg image', '<img src="data:image/svg+xml;base64,PHN2Zz4=">', ''],
    ['a protocol-relative image', '<img src="//evil.test/a.png">', ''],
    ['a data attribute', '<p data-x="1">x</p>', '<p>x</p>'],
    ['an svg onload', '<svg onload="alert(1)"></svg>ok', 'ok'],
    [
      'a link that names a target',
      '<a href="https://a.test" target="_self">x</a>',
      '<a href="https://a.test" target="_blank" rel="noopener noreferrer">x</a>',
    ],
  ])('removes %s', (_, html, expected) => {
    expect(sanitizeHtml(html)).toBe(expected);
  });

  it('shows the server’s signed object images', () => {
    const src = '/apiAdmin/objects/20260101/0123456789abcdef/a.png?exp=1&amp;sig=x';
    expect(sanitizeHtml(`<img src="${src}" data-object-key="k">`)).toBe(
      `<img src="${src}" style="max-width:100%;height:auto">`,
    );
  });
});
