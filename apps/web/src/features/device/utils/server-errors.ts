import { BIND_FAIL_WINDOW_S, MSG } from '@cpc/contracts/device-constants';
import { NO_CONTROL_MSG } from '@cpc/contracts/validators';

/**
 * The server explains a refused call in en (`msg`, and `data.fields` for a 400). The answers this section
 * knows become a message in the user's language, on the form field they are about; others are shown as sent.
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

interface Field {
  field: string;
  message: string;
}

function fieldsOf(err: unknown): Field[] {
  if (!isRecord(err) || !isRecord(err.data) || !Array.isArray(err.data.fields)) return [];
  return err.data.fields.filter((f): f is Field => isRecord(f) && typeof f.field === 'string' && typeof f.message === 'string');
}

const codeOf = (err: unknown): number | null => (isRecord(err) && err.code !== null && err.code !== undefined ? Number(err.code) : null);
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Field messages of the server → i18n keys, per field (the last segment of its path). */
const KNOWN: Record<string, Record<string, string>> = {
  sn: {
    'device is bound to another account': 'device.bind.error.boundElsewhere',
    'the device is already bound to this account': 'device.bind.error.alreadyMine',
    [MSG.sn]: 'device.bind.snRule',
  },
  bindKey: { 'bind key is wrong': 'device.bind.error.wrongKey', 'bind key cannot be empty': 'device.bind.bindKeyRequired' },
  name: {
    'a group with this name already exists here': 'device.groups.nameTaken',
    'name cannot be empty': 'device.groups.nameRequired',
    'must be at most 30 characters': 'device.edit.nameMax',
  },
  remark: { 'must be at most 200 characters': 'device.edit.remarkMax' },
};

/** What to tell the user about a refused bind, edit or group change. */
export function explainError(err: unknown): ExplainedError[] {
  const code = codeOf(err);
  if (code === 429) return [{ key: 'device.bind.error.throttled', params: { minutes: Math.round(BIND_FAIL_WINDOW_S / 60) }, text: messageOf(err) }];
  if (code === 404) {
    const text = messageOf(err);
    // what is missing, as the server names it for programs (its msg is in the user's language)
    const resource = isRecord(err) && isRecord(err.data) ? err.data.resource : undefined;
    if (resource === 'parent group') return [{ field: 'parentId', key: 'device.groups.parentMissing', text }];
    if (resource === 'group') return [{ field: 'groupId', key: 'device.bind.error.groupMissing', text }];
  }
  const fields = fieldsOf(err);
  if (fields.length) {
    return fields.map(({ field, message }) => {
      const name = field.split('.').pop() ?? field;
      // the same rule on every text field (names, remarks, keys): one message
      const key = KNOWN[name]?.[message] ?? (message === NO_CONTROL_MSG ? 'device.noControl' : null);
      return { field: name, key, text: message };
    });
  }
  return [{ key: null, text: messageOf(err) }];
}

/** antd `form.setFields` entries for the explained errors on fields the form has, and the rest for an alert. */
export function splitErrors(errors: ExplainedError[], formFields: readonly string[], t: (key: string, params?: Record<string, unknown>) => string) {
  const say = (e: ExplainedError) => (e.key ? t(e.key, e.params) : e.text);
  const onFields = new Map<string, string[]>();
  const general: string[] = [];
  for (const e of errors) {
    if (e.field && formFields.includes(e.field)) onFields.set(e.field, [...(onFields.get(e.field) ?? []), say(e)]);
    else general.push(say(e));
  }
  return { fields: [...onFields].map(([name, list]) => ({ name, errors: list })), general };
}
