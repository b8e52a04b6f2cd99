import type { RouteRecord, UserInfo } from '@cpc/contracts';
import { get } from './request';

/** The calls behind the session itself: who the user is, what they may open, and leaving. */

export const fetchUserInfo = () => get<UserInfo>('/user/v1/user/userInfo');

export const fetchMenu = () => get<RouteRecord[]>('/admin/login/getMenu');

/** Ends every session of the user on the server; silent because the console logs out locally either way. */
export const logout = () => get<null>('/logout', undefined, { silent: true });
