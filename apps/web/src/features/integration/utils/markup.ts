import { parseMarkup, type MarkupError } from '@cpc/contracts/print-markup';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The same parser as the server (contracts/print-markup.ts, no zod): the editor shows a tag error as it is typed. */
export const checkMarkup = (content: string): MarkupError | null => {
  const result = parseMarkup(content);
  return result.ok ? null : result.error;
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `data.markup` of the server's 400 for a refused markup, when it is one. */
export function markupErrorOf(err: unknown): MarkupError | null {
  const data = isRecord(err) ? err.data : undefined;
  const m = isRecord(data) ? data.markup : undefined;
  return isRecord(m) && typeof m.reason === 'string' && typeof m.line === 'number' && typeof m.column === 'number'
    ? (m as unknown as MarkupError)
    : null;
}

/** Where and why, in the user's language: "line 3, column 5, <QR>: the tag is not closed". */
export function markupErrorText(error: MarkupError, t: T): string {
  const why = t(`integration.markup.reason.${error.reason}`, { tag: error.tag ?? '', defaultValue: error.message });
  return error.tag
    ? t('integration.markup.errorAtTag', { line: error.line, column: error.column, tag: error.tag, why })
    : t('integration.markup.errorAt', { line: error.line, column: error.column, why });
}
