import type { FormInstance } from 'antd';
import type { ComponentType } from 'react';

/** What an editor's fields get: the form (owned by the part editor) and the part as the server holds it. */
export interface EditorFieldsProps<Out> {
  form: FormInstance<Record<string, unknown>>;
  value: Out | null;
  readOnly: boolean;
}

/**
 * One part's editor: the form's first values from the part (null: not set), the body the server takes from the
 * form's values (null: nothing to send, e.g. no file uploaded yet), and its fields.
 */
export interface PartEditorDef<Out, Values, Input> {
  initial: (value: Out | null) => Values;
  toInput: (values: Values, value: Out | null) => Input | null;
  Fields: ComponentType<EditorFieldsProps<Out>>;
}
