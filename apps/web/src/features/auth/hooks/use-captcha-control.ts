import { useCallback } from 'react';
import type { FormInstance } from 'antd';
import { useCaptcha } from '../api/captcha';

/**
 * The captcha of a form: its query, whether the field is shown, and a refresh that also empties the field
 * (a used or wrong captcha is never worth keeping). The payload part is ready to spread into a request.
 */
export function useCaptchaControl(scope: string, form: FormInstance) {
  const query = useCaptcha(scope);
  const { refetch } = query;
  const enabled = query.data?.enabled ?? false;

  const refresh = useCallback(() => {
    form.setFieldValue('captcha', '');
    void refetch();
  }, [form, refetch]);

  const payload = (typed: unknown): { captchaId?: string; captcha?: string } =>
    enabled && query.data ? { captchaId: query.data.captchaId, captcha: String(typed ?? '').trim() } : {};

  return {
    data: query.data,
    enabled,
    loading: query.isFetching,
    failed: query.isError,
    // shown while loading too, so the form does not jump when the answer says it is on
    visible: enabled || query.isPending || query.isError,
    refresh,
    payload,
  };
}
