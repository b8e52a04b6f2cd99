/**
 * Notice bodies are sanitised by the server; this allow-list pass is the second lock, so a row written
 * around the server (or a server bug) still cannot run script in the console.
 */

/** Removed with everything inside them. */
const DROP = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'template', 'noscript', 'link', 'meta', 'base', 'title', 'form', 'input', 'button', 'textarea', 'select', 'option', 'svg', 'math', 'audio', 'video', 'source', 'canvas']);

/** Kept, with these attributes; any other element gives way to its content. */
const ALLOWED: Record<string, string[]> = {
  p: [], br: [], hr: [], div: [], span: [], b: [], strong: [], i: [], em: [], u: [], s: [], del: [], sub: [], sup: [], small: [], mark: [],
  h1: [], h2: [], h3: [], h4: [], h5: [], h6: [], blockquote: [], code: [], pre: [], ul: [], ol: [], li: [],
  a: ['href', 'title'],
  img: ['src', 'alt', 'title', 'width', 'height'],
};

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const IMAGE_PROTOCOLS = new Set(['http:', 'https:']);
const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]+$/i;

function safeUrl(value: string, protocols: Set<string>, image = false): boolean {
  // browsers ignore control characters and blanks inside a scheme ("java\tscript:"); so does this check
  const v = value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (image && DATA_IMAGE.test(value.trim())) return true;
  // an image path relative to the console's own page is a broken image, not a picture
  if (image && !/^(https?:\/\/|\/(?!\/))/i.test(v)) return false;
  try {
    return protocols.has(new URL(v, 'https://relative.invalid/').protocol);
  } catch {
    return false;
  }
}

function clean(node: Node): void {
  for (const child of [...node.childNodes]) {
    if (child.nodeType === Node.TEXT_NODE) continue;
    if (child.nodeType !== Node.ELEMENT_NODE) {
      child.remove();
      continue;
    }
    const el = child as Element;
    const tag = el.localName;
    if (DROP.has(tag)) {
      el.remove();
      continue;
    }
    clean(el);
    const allowed = ALLOWED[tag];
    if (!allowed) {
      el.replaceWith(...el.childNodes);
      continue;
    }
    for (const attr of [...el.attributes]) {
      if (!allowed.includes(attr.name)) el.removeAttribute(attr.name);
    }
    if (tag === 'a') {
      const href = el.getAttribute('href');
      if (href !== null && !safeUrl(href, LINK_PROTOCOLS)) el.removeAttribute('href');
      el.setAttribute('target', '_blank');
      el.setAttribute('rel', 'noopener noreferrer');
    }
    if (tag === 'img') {
      const src = el.getAttribute('src');
      if (src === null || !safeUrl(src, IMAGE_PROTOCOLS, true)) {
        el.remove();
        continue;
      }
      el.setAttribute('style', 'max-width:100%;height:auto');
    }
  }
}

/** The HTML with only harmless elements, attributes and URLs left. Parsing in a detached document runs nothing. */
export function sanitizeHtml(html: string): string {
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html');
  clean(doc.body);
  return doc.body.innerHTML;
}
