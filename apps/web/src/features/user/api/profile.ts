import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ProfileUpdateBody, ProfileView, SessionView } from '@cpc/contracts';
import { get, post } from '@/lib/request';
import { useSession } from '@/lib/session';

/** The personal centre's calls (SPEC §2): profile, avatar, password, sessions. */

export const getProfile = () => get<ProfileView>('/user/v1/user/profile');

export const updateProfile = (body: ProfileUpdateBody) => post<ProfileView>('/user/v1/user/updateProfile', body);

export const updateAvatar = (avatarKey: string) => post<ProfileView>('/user/v1/user/updateAvatar', { avatarKey });

export interface ChangePasswordInput {
  oldPassword: string;
  password: string;
  confirmPassword: string;
}

/** Ends every other session of the user; this one stays. */
export const changePassword = (body: ChangePasswordInput) => post<null>('/user/v1/user/changePassword', body);

export const getSessions = () => get<SessionView[]>('/user/v1/user/sessions');

export const revokeSession = (id: string) => post<null>('/user/v1/user/revokeSession', { id });

const PROFILE_KEY = ['person', 'profile'] as const;
const SESSIONS_KEY = ['person', 'sessions'] as const;

export const profileQueryOptions = () => queryOptions({ queryKey: PROFILE_KEY, queryFn: getProfile });
export const useProfile = () => useQuery(profileQueryOptions());

export const sessionsQueryOptions = () => queryOptions({ queryKey: SESSIONS_KEY, queryFn: getSessions });
export const useSessions = () => useQuery(sessionsQueryOptions());

/** The header reads the avatar from the session's user info: give it the new one at once. */
function showAvatarInHeader(profile: ProfileView): void {
  const { userInfo, setUserInfo } = useSession.getState();
  if (userInfo && userInfo.avatar !== profile.avatar) setUserInfo({ ...userInfo, avatar: profile.avatar });
}

export const useUpdateProfile = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (profile) => client.setQueryData(PROFILE_KEY, profile),
  });
};

export const useUpdateAvatar = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateAvatar,
    onSuccess: (profile) => {
      client.setQueryData(PROFILE_KEY, profile);
      showAvatarInHeader(profile);
    },
  });
};

export const useChangePassword = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: changePassword,
    // the other sessions have just ended
    onSuccess: () => client.invalidateQueries({ queryKey: SESSIONS_KEY }),
  });
};

export const useRevokeSession = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeSession,
    onSettled: () => client.invalidateQueries({ queryKey: SESSIONS_KEY }),
  });
};
