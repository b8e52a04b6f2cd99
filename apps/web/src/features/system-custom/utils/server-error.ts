import type { FormInstance } from 'antd';
import { sayServerMessage, serverFieldErrors } from '@/lib/server-messages';

/** The refusal's text in the console's language (the request layer already says the envelope's message in it). */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Puts a refusal beside the form's fields it names (in the console's language) when the form has them; answers the
 * whole text when none matched, for the caller to show above the form ('' when every problem found its field).
 */
export function applyServerError<V>(form: FormInstance<V>, error: unknown): string {
  const known = new Set(Object.keys(form.getFieldsValue(true) as object));
  // a part's field comes as `topScreen.pkg` or `desktop.apps.2`: the first segment the form has is the field
  const found = serverFieldErrors(error)
    .map((f) => ({ f, name: f.field.split('.').find((s) => known.has(s)) }))
    .filter((x): x is { f: (typeof x)['f']; name: string } => !!x.name);
  if (!found.length) return messageOf(error);
  form.setFields(found.map(({ f, name }) => ({ name: name as never, errors: [sayServerMessage(f)] })));
  return '';
}
