import type { SmsSendBody } from '@cpc/contracts';
import { request } from '@/lib/request';

export const sendSmsCode = (body: SmsSendBody) =>
  request<{ countdown: number }>({ url: '/sms/send', method: 'post', data: body, noToken: true });
