import { post } from '../../lib/request';

/**
 * Asks the server whether `password` is the signed-in user's own (the lock screen's unlock). Silent: the
 * lock screen says "wrong password" itself, in the user's language.
 */
export const checkPassword = (password: string) =>
  post<null>('/user/v1/user/checkPassword', { password }, { silent: true });
