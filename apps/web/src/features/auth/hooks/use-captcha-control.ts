import { useCallback, useEffect } from 'react';
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
  // a renewal before the captcha lapses also empties the answer typed for the old image
  const captchaId = captcha.data?.captchaId;
  useEffect(() => {
    if (form.getFieldValue('captcha')) form.setFieldValue('captcha', '');
  }, [form, captchaId]);
  return { ...captcha, refresh };
}
