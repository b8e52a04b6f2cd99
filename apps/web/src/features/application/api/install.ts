import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  DeployablePackage,
  DeploymentBody,
  DeploymentCreated,
  DeploymentDetail,
  DeploymentKind,
  DeploymentListQuery,
  DeploymentView,
  InstalledQuery,
  InstalledResult,
  RequiredApp,
  RequiredAppsBody,
} from '@cpc/contracts/application';
import type { Paged } from '@cpc/contracts/envelope';
import { request } from '@/lib/request';

/** Application installation (issue 15): deployments, "which devices run version X", required apps. */
export const installKeys = {
  all: ['application-install'] as const,
  list: (q: DeploymentListQuery) => ['application-install', 'list', q] as const,
  detail: (id: number) => ['application-install', 'detail', id] as const,
  installed: (q: InstalledQuery) => ['application-install', 'installed', q] as const,
  required: ['application-install', 'required'] as const,
  packages: (kind: DeploymentKind) => ['application-install', 'packages', kind] as const,
};

export const useDeployments = (q: DeploymentListQuery) =>
  useQuery({
    queryKey: installKeys.list(q),
    queryFn: () => request<Paged<DeploymentView>>({ url: '/application/deployment/list', method: 'get', params: q }),
    placeholderData: keepPreviousData,
  });

export const useDeployment = (id: number | null) =>
  useQuery({
    queryKey: installKeys.detail(id ?? 0),
    queryFn: () => request<DeploymentDetail>({ url: `/application/deployment/${id}`, method: 'get' }),
    enabled: id != null,
  });

export const useInstalled = (q: InstalledQuery | null) =>
  useQuery({
    queryKey: installKeys.installed(q ?? { identifier: '' }),
    queryFn: () => request<InstalledResult>({ url: '/application/installed', method: 'get', params: q ?? undefined }),
    enabled: !!q?.identifier,
    placeholderData: keepPreviousData,
  });

export const useRequiredApps = () =>
  useQuery({
    queryKey: installKeys.required,
    queryFn: () => request<{ apps: RequiredApp[] }>({ url: '/application/required', method: 'get' }),
  });

/** The versions a deployment can install (until the package catalogue's client is on this branch). */
export const useDeployablePackages = (kind: DeploymentKind, enabled = true) =>
  useQuery({
    queryKey: installKeys.packages(kind),
    queryFn: () => request<DeployablePackage[]>({ url: '/application/packages', method: 'get', params: { kind } }),
    enabled,
    staleTime: 30_000,
  });

export function useCreateDeployment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: DeploymentBody) =>
      request<DeploymentCreated>({ url: '/application/deployment', method: 'post', data: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: installKeys.all }),
  });
}

export function useDeploymentAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, verb }: { id: number; verb: 'cancel' | 'retry' }) =>
      request<{ id: number; tasks: number }>({ url: `/application/deployment/${id}/${verb}`, method: 'post' }),
    onSuccess: () => client.invalidateQueries({ queryKey: installKeys.all }),
  });
}

export function useSaveRequiredApps() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequiredAppsBody) =>
      request<{ apps: RequiredApp[]; tasks: number }>({ url: '/application/required', method: 'put', data: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: installKeys.all }),
  });
}
