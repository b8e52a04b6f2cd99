import type { LoginResult, RegisterBody } from '@cpc/contracts';
import { request } from '@/lib/request';
import { forgetTicket, pendingTicket } from './social';

/**
 * A successful registration answers like a login: the new main account is signed in. A social identity waiting
 * to be linked (its ticket, from the callback's "register") is linked to the new account.
 */
export const register = async (body: RegisterBody) => {
  const pending = pendingTicket();
  try {
    const result = await request<LoginResult>({
      url: '/register',
      method: 'post',
      data: pending ? { ...body, ticket: pending.ticket } : body,
      noToken: true,
    });
    forgetTicket();
    return result;
  } catch (err) {
    // a ticket that lapsed is dropped: the next try registers without it
    const fields = (err as { data?: { fields?: { field?: string }[] } | null } | null)?.data?.fields;
    if (fields?.some((f) => f.field === 'ticket')) forgetTicket();
    throw err;
  }
};
