import sanitize from 'sanitize-html';
import type { TenantScope } from '../db/tenant-scope.ts';
import { badRequest } from './app-error.ts';
import type { ObjectStorage } from './storage.ts';

/**
 * Rich text written in the console's editor (work orders, replies, announcements; issue 14). Sanitised with
 * `sanitize-html` when it is saved: an allow-list of tags and attributes, links to http(s) and mailto only, and
 * images only of objects uploaded through the upload-token flow. The browser sanitises again with DOMPurify when
 * it shows it (a row written around the server still cannot run script).
 *
 * An image is stored by its object key (`<img data-object-key="…">`, no `src`), never by a signed URL, which
 * would expire; `presentRichHtml` signs a fresh URL for each when the HTML is read.
 */

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'strong',
  'b',
  'em',
  'i',
  'u',
  's',
  'del',
  'sub',
  'sup',
  'mark',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'span',
];

/** `/apiAdmin/objects/<key>?exp=…&sig=…`: the signed URL an upload answered, as the editor put it into `src`. */
const SIGNED_OBJECT = /^\/apiAdmin\/objects\/([^?#]+)(?:[?#].*)?$/;
/** The shape of a key `ObjectStorage.newKey` makes: day folder, random folder, a safe name. */
const OBJECT_KEY = /^\d{8}\/[0-9a-f]{16}\/[\p{L}\p{N}._-]{1,100}$/u;

const keyOfImage = (attribs: Record<string, string>): string | null => {
  const direct = attribs['data-object-key'];
  if (direct && OBJECT_KEY.test(direct)) return direct;
  const m = SIGNED_OBJECT.exec(attribs.src ?? '');
  if (!m) return null;
  try {
    const key = m[1].split('/').map(decodeURIComponent).join('/');
    return OBJECT_KEY.test(key) ? key : null;
  } catch {
    return null;
  }
};

export interface SanitizedHtml {
  html: string;
  /** The object keys of its images, to check that they are the writer's own (`assertOwnObjects`). */
  objectKeys: string[];
  /** Whether anything but white space is left (text or an image). */
  hasContent: boolean;
}

/** Sanitises editor HTML for storage. Pure: no I/O. */
export function sanitizeRichHtml(dirty: string): SanitizedHtml {
  const objectKeys: string[] = [];
  const html = sanitize(dirty, {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: {
      a: ['href', 'title', 'target', 'rel'],
      img: ['data-object-key', 'alt', 'width', 'height'],
      code: ['class'],
      span: ['style'],
      p: ['style'],
      h1: ['style'],
      h2: ['style'],
      h3: ['style'],
      h4: ['style'],
    },
    allowedStyles: {
      '*': {
        color: [/^#[0-9a-f]{3,8}$/i, /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/i],
        'text-align': [/^(left|right|center|justify)$/],
      },
    },
    allowedClasses: { code: [/^language-[\w-]{1,30}$/] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'template'],
    transformTags: {
      a: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' },
      }),
      img: (tagName, attribs) => {
        const key = keyOfImage(attribs);
        // a tag outside the allow-list: discarded (an image of anything but an uploaded object)
        if (!key) return { tagName: 'dropped-image', attribs: {} };
        objectKeys.push(key);
        const kept: Record<string, string> = { 'data-object-key': key };
        if (attribs.alt) kept.alt = attribs.alt.slice(0, 200);
        for (const dim of ['width', 'height'] as const) {
          if (/^\d{1,4}$/.test(attribs[dim] ?? '')) kept[dim] = attribs[dim];
        }
        return { tagName, attribs: kept };
      },
    },
  });
  const text = sanitize(html, { allowedTags: [], allowedAttributes: {} }).replace(/&nbsp;|\s/g, '');
  return { html, objectKeys: [...new Set(objectKeys)], hasContent: text.length > 0 || objectKeys.length > 0 };
}

/**
 * Refuses HTML whose images are not objects of the writer's tenant (a key copied from another account would
 * otherwise be signed and shown to the reader): 400 naming `field`.
 */
export async function assertOwnObjects(scope: TenantScope, keys: string[], field: string): Promise<void> {
  if (!keys.length) return;
  const rows = await scope.selectFrom('objects').select('key').where('objects.key', 'in', keys).execute();
  if (rows.length !== keys.length) throw badRequest(field, 'upload.objectMissing');
}

/** The stored HTML as a reader gets it: each image with a freshly signed URL. */
export function presentRichHtml(html: string, storage: Pick<ObjectStorage, 'signedUrl'>, ttlSeconds = 3600): string {
  if (!html.includes('data-object-key')) return html;
  return html.replace(/<img data-object-key="([^"]+)"/g, (_, key: string) => {
    const raw = key.replace(/&amp;/g, '&');
    return `<img src="${storage.signedUrl(raw, ttlSeconds).replace(/&/g, '&amp;')}" data-object-key="${key}"`;
  });
}
