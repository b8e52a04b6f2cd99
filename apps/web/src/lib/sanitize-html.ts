import DOMPurify from 'dompurify';

/**
 * Rich text from the server (announcements, work orders, replies) is sanitised there with sanitize-html when it is
 * saved; this DOMPurify pass is the second lock, so a row written around the server (or a server bug) still cannot
 * run script in the console. The configuration mirrors the server's allow-list (lib/rich-html.ts): the same tags;
 * links to http(s), mailto and tel only (DOMPurify strips the blanks and control characters a browser ignores inside
 * a scheme, "java\tscript:", before it tests); images from the web, the server's own paths (signed object URLs) and
 * data: images; inline style only for colour and alignment, as the editor writes them.
 */
const CONFIG = {
  ALLOWED_TAGS: [
    ...['p', 'br', 'hr', 'div', 'span', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code'],
    ...['b', 'strong', 'i', 'em', 'u', 's', 'del', 'sub', 'sup', 'small', 'mark', 'ul', 'ol', 'li', 'a', 'img'],
  ],
  ALLOWED_ATTR: ['href', 'title', 'src', 'alt', 'width', 'height', 'style'],
  /** Removed with everything inside them (any other element not allowed gives way to its content). */
  FORBID_CONTENTS: [
    ...['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'template', 'noscript'],
    ...['title', 'form', 'select', 'textarea', 'svg', 'math', 'audio', 'video', 'canvas', 'button'],
  ],
  KEEP_CONTENT: true,
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|tel:|\/(?!\/)|data:image\/(?:png|jpe?g|gif|webp);base64,)/i,
};

/** An image DOMPurify kept but whose source is no picture (relative to the page, or an odd data: URL). */
const IMAGE = /^(?:https?:\/\/|\/(?!\/)|data:image\/(?:png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]+$)/i;
/** The inline styles the editor writes: a colour and an alignment. */
const STYLE =
  /^\s*(color\s*:\s*(#[0-9a-f]{3,8}|rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\))|text-align\s*:\s*(left|right|center|justify))\s*$/i;

const purify = DOMPurify();
purify.addHook('afterSanitizeAttributes', (node) => {
  const style = node.getAttribute('style');
  if (style !== null) {
    const kept = style.split(';').filter((decl) => STYLE.test(decl));
    if (kept.length) node.setAttribute('style', kept.map((d) => d.trim()).join(';'));
    else node.removeAttribute('style');
  }
  if (node.localName === 'a') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.localName === 'img') {
    if (!IMAGE.test(node.getAttribute('src') ?? '')) node.remove();
    else node.setAttribute('style', 'max-width:100%;height:auto');
  }
});

/** The HTML with only harmless elements, attributes and URLs left. */
export function sanitizeHtml(html: string): string {
  return purify.sanitize(html, CONFIG);
}
