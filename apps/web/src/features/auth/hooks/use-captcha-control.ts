import { useCallback } from 'react';
import type { FormInstance } from 'antd';
import { useCaptcha } from './use-captcha';

/** The captcha of an antd form: a refresh also empties the field (a used or wrong captcha is never worth keeping). */
export function useCaptchaControl(form: FormInstance) {
  const captcha = useCaptcha();
  const { refresh: redraw } = captcha;
  const refresh = useCallback(() => {
    form.setFieldValue('captcha', '');
    redraw();
  }, [form, redraw]);
  return { ...captcha, refresh };
}
