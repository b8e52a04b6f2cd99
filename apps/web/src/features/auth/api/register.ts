import type { LoginResult, RegisterBody } from '@cpc/contracts';
import { request } from '@/lib/request';

/** A successful registration answers like a login: the new main account is signed in. */
export const register = (body: RegisterBody) =>
  request<LoginResult>({ url: '/register', method: 'post', data: body, noToken: true });
