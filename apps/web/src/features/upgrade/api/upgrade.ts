import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ReleaseBody,
  ReleaseDetail,
  ReleaseDeviceItem,
  ReleaseItem,
  ReleasePreview,
  ReleaseState,
  ReleaseTargets,
  UpgradeDeviceState,
} from '@cpc/contracts/upgrade';
import type { Paged } from '@cpc/contracts/envelope';
import { request } from '@/lib/request';

/** Query keys of the upgrade feature: `all` is what a live `upgrade` or `task` event makes stale. */
export const upgradeKeys = {
  all: ['upgrade'] as const,
  releases: (q: object) => ['upgrade', 'releases', q] as const,
  release: (id: number) => ['upgrade', 'release', id] as const,
  devices: (id: number, q: object) => ['upgrade', 'release', id, 'devices', q] as const,
  preview: (q: object) => ['upgrade', 'preview', q] as const,
};

export const useReleases = (q: { pageNo: number; pageSize: number; state?: ReleaseState }) =>
  useQuery({
    queryKey: upgradeKeys.releases(q),
    queryFn: () => request<Paged<ReleaseItem>>({ url: '/upgrade/release/list', method: 'get', params: q }),
    placeholderData: keepPreviousData,
  });

export const useRelease = (id: number) =>
  useQuery({
    queryKey: upgradeKeys.release(id),
    queryFn: () => request<ReleaseDetail>({ url: '/upgrade/release/detail', method: 'get', params: { id } }),
    enabled: id > 0,
  });

export const useReleaseDevices = (id: number, q: { pageNo: number; pageSize: number; state?: UpgradeDeviceState }) =>
  useQuery({
    queryKey: upgradeKeys.devices(id, q),
    queryFn: () =>
      request<Paged<ReleaseDeviceItem>>({ url: '/upgrade/release/devices', method: 'get', params: { id, ...q } }),
    enabled: id > 0,
    placeholderData: keepPreviousData,
  });

/** How many devices the targets match now (the drawer's live count). */
export const usePreview = (packageId: number | undefined, targets: ReleaseTargets, enabled: boolean) =>
  useQuery({
    queryKey: upgradeKeys.preview({ packageId, targets }),
    queryFn: () =>
      request<ReleasePreview>({ url: '/upgrade/release/preview', data: { packageId, targets }, quiet: true }),
    enabled: enabled && !!packageId,
    placeholderData: keepPreviousData,
  });

export const useCreateRelease = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ReleaseBody) =>
      request<{ id: number; total: number; incompatible: number }>({ url: '/upgrade/release/create', data: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: upgradeKeys.all }),
  });
};

export const RELEASE_ACTIONS = ['promote', 'pause', 'resume', 'cancel', 'retry'] as const;
export type ReleaseAction = (typeof RELEASE_ACTIONS)[number];

export const useReleaseAction = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: ReleaseAction }) =>
      request<{ id: number; state: ReleaseState }>({ url: `/upgrade/release/${action}`, data: { id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: upgradeKeys.all }),
  });
};
