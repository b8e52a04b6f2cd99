import { useEffect } from 'react';
import type { FormInstance } from 'antd';
import { i18n } from './i18n';

/**
 * antd keeps a field's error text as it was said: after a switch of language the fields showing an error are
 * checked again, so they say it in the new language.
 */
export function useFormLanguage(form: FormInstance): void {
  useEffect(() => {
    const again = () => {
      const names = form
        .getFieldsError()
        .filter((f) => f.errors.length)
        .map((f) => f.name);
      if (names.length) form.validateFields(names).catch(() => {});
    };
    i18n.on('languageChanged', again);
    return () => i18n.off('languageChanged', again);
  }, [form]);
}
