import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts/envelope';
import type { UploadResult, UploadTokenResult } from '@cpc/contracts/upload';
import type {
  CustomAppItem,
  CustomProfileCreateBody,
  CustomProfileUpdateBody,
  ProfileApplyState,
  ProfileAssignBody,
  ProfileAssignResult,
  ProfileDetail,
  ProfileDeviceItem,
  ProfileItem,
  ProfilePublishResult,
  SystemCustomPart,
} from '@cpc/contracts/system-custom';
import { UPLOAD_TIMEOUT } from '@/config/settings';
import { get, request } from '@/lib/request';

/** Every query of the section: what a live `systemCustom` event or an apply task's event makes stale. */
export const SYSTEM_CUSTOM_KEY = ['system-custom'] as const;
export const systemCustomKeys = {
  list: (q: object) => [...SYSTEM_CUSTOM_KEY, 'list', q] as const,
  detail: (id: number) => [...SYSTEM_CUSTOM_KEY, 'detail', id] as const,
  devices: (id: number, q: object) => [...SYSTEM_CUSTOM_KEY, 'devices', id, q] as const,
  apps: [...SYSTEM_CUSTOM_KEY, 'apps'] as const,
};

export interface ProfileListQuery {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  part?: SystemCustomPart;
}

export const useProfiles = (q: ProfileListQuery) =>
  useQuery({
    queryKey: systemCustomKeys.list(q),
    queryFn: () =>
      request<Paged<ProfileItem>>({
        url: '/systemCustom/profile/list',
        method: 'get',
        params: { ...q, keyword: q.keyword?.trim() || undefined },
      }),
    placeholderData: keepPreviousData,
  });

export const useProfile = (id: number | null) =>
  useQuery({
    queryKey: systemCustomKeys.detail(id ?? 0),
    queryFn: () => request<ProfileDetail>({ url: '/systemCustom/profile/detail', method: 'get', params: { id } }),
    enabled: !!id,
  });

export interface ProfileDevicesQuery {
  pageNo: number;
  pageSize: number;
  state?: ProfileApplyState;
  drift?: boolean;
}

export const useProfileDevices = (id: number | null, q: ProfileDevicesQuery) =>
  useQuery({
    queryKey: systemCustomKeys.devices(id ?? 0, q),
    queryFn: () =>
      request<Paged<ProfileDeviceItem>>({
        url: '/systemCustom/profile/devices',
        method: 'get',
        params: { id, ...q, drift: q.drift === undefined ? undefined : String(q.drift) },
      }),
    enabled: !!id,
    placeholderData: keepPreviousData,
  });

/** The customer's applications a profile may name (the server refuses any other). */
export const useCustomApps = () =>
  useQuery({
    queryKey: systemCustomKeys.apps,
    queryFn: () => request<CustomAppItem[]>({ url: '/systemCustom/apps', method: 'get' }),
    staleTime: 60_000,
  });

function useSectionMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => client.invalidateQueries({ queryKey: SYSTEM_CUSTOM_KEY }) });
}

/** Silent: the form shows the refusal beside what was wrong (a field, an app the customer does not own). */
export const useCreateProfile = () =>
  useSectionMutation((body: CustomProfileCreateBody) =>
    request<ProfileDetail>({ url: '/systemCustom/profile/create', method: 'post', data: body, silent: true }),
  );
export const useUpdateProfile = () =>
  useSectionMutation((body: CustomProfileUpdateBody) =>
    request<ProfileDetail>({ url: '/systemCustom/profile/update', method: 'post', data: body, silent: true }),
  );
export const useDeleteProfile = () =>
  useSectionMutation((id: number) =>
    request<unknown>({ url: '/systemCustom/profile/delete', method: 'post', data: { id } }),
  );
export const usePublishProfile = () =>
  useSectionMutation((id: number) =>
    request<ProfilePublishResult>({ url: '/systemCustom/profile/publish', method: 'post', data: { id } }),
  );
export const useAssignProfile = () =>
  useSectionMutation((body: ProfileAssignBody) =>
    request<ProfileAssignResult>({ url: '/systemCustom/profile/assign', method: 'post', data: body }),
  );

/**
 * Uploads a customization file (boot animation, wallpaper) through the upload flow's `custom` bucket. Silent: the
 * server's refusal (bytes that are not what the name claims) is shown where the user dropped the file.
 */
export async function uploadCustomFile(file: File, onProgress?: (percent: number) => void): Promise<UploadResult> {
  const { token, uploadUrl } = await get<UploadTokenResult>('/user/v1/user/getQnToken', { bucket: 'custom' });
  const form = new FormData();
  form.append('token', token);
  form.append('file', file, file.name);
  return request<UploadResult>({
    url: uploadUrl,
    method: 'post',
    data: form,
    noToken: true,
    silent: true,
    timeout: UPLOAD_TIMEOUT,
    onUploadProgress: (e) => {
      const total = e.total ?? file.size;
      onProgress?.(total ? Math.min(100, Math.round((e.loaded / total) * 100)) : 0);
    },
  });
}
