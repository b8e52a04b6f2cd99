import type { IdentityView } from '@cpc/contracts';

/** The images an identity form holds, by the body field that carries each one's object key. */
export type ImageField = 'idFrontKey' | 'idBackKey' | 'licenceKey';

/**
 * Names the server may file each image under in `submission.images` (the body field, or the field
 * without its `Key` suffix).
 */
const IMAGE_NAMES: Record<ImageField, string[]> = {
  idFrontKey: ['idFrontKey', 'idFront', 'front'],
  idBackKey: ['idBackKey', 'idBack', 'back'],
  licenceKey: ['licenceKey', 'licence', 'license'],
};

export function imageUrl(images: Record<string, string> | undefined, field: ImageField): string | undefined {
  if (!images) return undefined;
  for (const name of IMAGE_NAMES[field]) if (images[name]) return images[name];
  return undefined;
}

/**
 * The object key inside a signed URL `…/objects/<key>?exp=&sig=`, so a re-authentication can keep an image
 * the reviewer did not object to without uploading it again. Undefined when the URL has another shape.
 */
export function objectKeyFromUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let path: string;
  try {
    path = new URL(url, 'http://local.invalid').pathname;
  } catch {
    return undefined;
  }
  const at = path.indexOf('/objects/');
  if (at < 0) return undefined;
  const encoded = path.slice(at + '/objects/'.length);
  if (!encoded) return undefined;
  try {
    return encoded.split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}

export interface IdentityFormValues {
  realName?: string;
  idNumber?: string;
  idFrontKey?: string;
  idBackKey?: string;
  companyName?: string;
  creditCode?: string;
  legalPerson?: string;
  licenceKey?: string;
}

/** Form values and image previews to start a re-authentication from the rejected submission. */
export function prefillFromSubmission(submission: IdentityView | null | undefined): {
  values: IdentityFormValues;
  previews: Partial<Record<ImageField, string>>;
} {
  if (!submission) return { values: {}, previews: {} };
  const values: IdentityFormValues = {};
  const previews: Partial<Record<ImageField, string>> = {};
  const text = (v: string | null) => v ?? undefined;
  if (submission.type === 'individual') {
    values.realName = text(submission.realName);
    values.idNumber = text(submission.idNumber);
  } else {
    values.companyName = text(submission.companyName);
    values.creditCode = text(submission.creditCode);
    values.legalPerson = text(submission.legalPerson);
  }
  const fields: ImageField[] = submission.type === 'individual' ? ['idFrontKey', 'idBackKey'] : ['licenceKey'];
  for (const field of fields) {
    const url = imageUrl(submission.images, field);
    const key = objectKeyFromUrl(url);
    if (url && key) {
      values[field] = key;
      previews[field] = url;
    }
  }
  return { values, previews };
}
