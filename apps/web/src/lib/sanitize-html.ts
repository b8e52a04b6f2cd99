import DOMPurify from 'dompurify';

/**
 * HTML written by staff (notices) is sanitised by the server when saved; this allow-list pass with DOMPurify is
 * the second lock, so a row written around the server (or a server bug) still cannot run script in the console.
 */
const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'div',
  'span',
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'del',
  'sub',
  'sup',
  'small',
  'mark',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'code',
  'pre',
  'ul',
  'ol',
  'li',
  'a',
  'img',
];
const ATTRS: Record<string, string[]> = { a: ['href', 'title'], img: ['src', 'alt', 'title', 'width', 'height'] };
/** Removed with everything inside them (any other element not allowed gives way to its content). */
const FORBID_CONTENTS = [
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'template',
  'noscript',
  'title',
  'form',
  'select',
  'textarea',
  'svg',
  'math',
  'audio',
  'video',
  'canvas',
  'button',
];

const LINK = /^(https?:|mailto:|tel:)/i;
const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]+$/i;
// an image path relative to the console's own page is a broken image, not a picture
const IMAGE = /^(https?:\/\/|\/(?!\/))/i;
// browsers ignore control characters and blanks inside a scheme ("java\tscript:"); so does this check
// eslint-disable-next-line no-control-regex -- the control characters are what this pattern removes
const BLANKS = /[\u0000-\u0020\u007f-\u009f]/g;

const purify = DOMPurify();
purify.addHook('uponSanitizeAttribute', (node, data) => {
  const allowed = ATTRS[node.localName] ?? [];
  if (!allowed.includes(data.attrName)) data.keepAttr = false;
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.localName === 'a') {
    const href = node.getAttribute('href');
    if (href !== null && !LINK.test(href.replace(BLANKS, ''))) node.removeAttribute('href');
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.localName === 'img') {
    const src = node.getAttribute('src') ?? '';
    if (!DATA_IMAGE.test(src.trim()) && !IMAGE.test(src.replace(BLANKS, ''))) node.remove();
    else node.setAttribute('style', 'max-width:100%;height:auto');
  }
});

/** The HTML with only harmless elements, attributes and URLs left. */
export function sanitizeHtml(html: string): string {
  return purify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'title', 'src', 'alt', 'width', 'height'],
    FORBID_CONTENTS,
    KEEP_CONTENT: true,
    // data: images are checked by the hook above, every other URL by its scheme
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|tel:|data:image\/|\/)/i,
  });
}
