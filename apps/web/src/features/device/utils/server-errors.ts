import { BIND_FAIL_WINDOW_S } from '@cpc/contracts/device-constants';
import type { MessageKey } from '@cpc/contracts/messages';
import { sayServerMessage, serverFieldErrors } from '@/lib/server-messages';

/**
 * The server explains a refused call in the console's language (`msg`), and a 400's fields by key
 * (`data.fields[].key`): the keys this section words its own way become its i18n keys, on the form field they
 * are about; others are said from the shared catalogue.
 */
export interface ExplainedError {
  /** The form field the message belongs to; none for a message above the form. */
  field?: string;
  /** An i18n key, or null with `text` as sent by the server. */
  key: string | null;
  params?: Record<string, unknown>;
  text: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

const codeOf = (err: unknown): number | null =>
  isRecord(err) && err.code !== null && err.code !== undefined ? Number(err.code) : null;
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Message keys of the server → this section's i18n keys, per field (the last segment of its path). */
const KNOWN: Record<string, Partial<Record<MessageKey, string>>> = {
  sn: {
    'device.boundElsewhere': 'device.bind.error.boundElsewhere',
    'device.alreadyBound': 'device.bind.error.alreadyMine',
    'rule.sn': 'device.bind.snRule',
  },
  bindKey: {
    'device.bindKeyWrong': 'device.bind.error.wrongKey',
    'rule.bindKeyRequired': 'device.bind.bindKeyRequired',
  },
  name: {
    'device.groupNameTaken': 'device.groups.nameTaken',
    'rule.nameRequired': 'device.groups.nameRequired',
    'rule.maxChars': 'device.edit.nameMax',
  },
  remark: { 'rule.maxChars': 'device.edit.remarkMax' },
};

/** What to tell the user about a refused bind, edit or group change. */
export function explainError(err: unknown): ExplainedError[] {
  const code = codeOf(err);
  if (code === 429)
    return [
      {
        key: 'device.bind.error.throttled',
        params: { minutes: Math.round(BIND_FAIL_WINDOW_S / 60) },
        text: messageOf(err),
      },
    ];
  if (code === 404) {
    const text = messageOf(err);
    // what is missing, as the server names it for programs (its msg is in the user's language)
    const resource = isRecord(err) && isRecord(err.data) ? err.data.resource : undefined;
    if (resource === 'parent group') return [{ field: 'parentId', key: 'device.groups.parentMissing', text }];
    if (resource === 'group') return [{ field: 'groupId', key: 'device.bind.error.groupMissing', text }];
  }
  const fields = serverFieldErrors(err);
  if (fields.length) {
    return fields.map((f) => {
      const name = f.field.split('.').pop() ?? f.field;
      const said = f.key as MessageKey | undefined;
      // the same rule on every text field (names, remarks, keys): one message
      const key = (said && KNOWN[name]?.[said]) ?? (said === 'rule.noControl' ? 'device.noControl' : null);
      return { field: name, key, text: sayServerMessage(f) };
    });
  }
  return [{ key: null, text: messageOf(err) }];
}

/** antd `form.setFields` entries for the explained errors on fields the form has, and the rest for an alert. */
export function splitErrors(
  errors: ExplainedError[],
  formFields: readonly string[],
  t: (key: string, params?: Record<string, unknown>) => string,
) {
  const say = (e: ExplainedError) => (e.key ? t(e.key, e.params) : e.text);
  const onFields = new Map<string, string[]>();
  const general: string[] = [];
  for (const e of errors) {
    if (e.field && formFields.includes(e.field)) onFields.set(e.field, [...(onFields.get(e.field) ?? []), say(e)]);
    else general.push(say(e));
  }
  return { fields: [...onFields].map(([name, list]) => ({ name, errors: list })), general };
}
