import type { LoginBody, LoginResult } from '@cpc/contracts';
import { request } from '@/lib/request';

export const login = (body: LoginBody) =>
  request<LoginResult>({ url: '/user/v1/login', method: 'post', data: body, noToken: true });
