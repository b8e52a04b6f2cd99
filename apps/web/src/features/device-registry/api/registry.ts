import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type { DeviceModelOption } from '@cpc/contracts/device-model';
import type {
  DeviceRegisterBody,
  RegisterResult,
  RegistryItem,
  ReissueBindKeyResult,
} from '@cpc/contracts/device-registry';
import { request } from '@/lib/request';

export interface RegistryListParams {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  bound?: 'true' | 'false';
  modelId?: number;
}

export const getRegistryList = (params: RegistryListParams) =>
  request<Paged<RegistryItem>>({
    url: '/system/deviceRegistry/list',
    method: 'get',
    params: { ...params, keyword: params.keyword?.trim() || undefined },
  });

/** Silent: the form shows a refusal beside the field it names, in the user's language. */
export const registerDevice = (body: DeviceRegisterBody) =>
  request<RegisterResult>({ url: '/system/deviceRegistry/register', method: 'post', data: body, silent: true });

/** Multipart field `file` (contracts/device.ts). Silent: the dialog lists every refused row itself. */
export function importDevices(file: Blob, fileName: string): Promise<RegisterResult> {
  const form = new FormData();
  form.append('file', file, fileName);
  return request<RegisterResult>({ url: '/system/deviceRegistry/import', method: 'post', data: form, silent: true });
}

/** A new bind key for a device (the old one stops working), answered this once. */
export const reissueBindKey = (id: number) =>
  request<ReissueBindKeyResult>({ url: '/system/deviceRegistry/bindKey', method: 'post', data: { id } });

export const getModelOptions = () => request<DeviceModelOption[]>({ url: '/device/model/options', method: 'get' });

const KEY = ['device-registry'] as const;

export const registryListQueryOptions = (params: RegistryListParams) =>
  queryOptions({
    queryKey: [...KEY, 'list', params],
    queryFn: () => getRegistryList(params),
    placeholderData: keepPreviousData,
  });

export const useRegistryList = (params: RegistryListParams) => useQuery(registryListQueryOptions(params));

/** The catalogue for the model filter and form; only asked by staff who may read it. */
export const useModelOptions = (enabled: boolean) =>
  useQuery({ queryKey: [...KEY, 'models'], queryFn: getModelOptions, enabled, staleTime: 60_000 });

/**
 * New devices change this list and the device count of their model on the catalogue page (kept open in its
 * tab): both are asked again. The catalogue is named by its query key, not imported.
 */
const useRefreshAfterRegistration = () => {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: [...KEY, 'list'] }),
      client.invalidateQueries({ queryKey: ['device-model', 'list'] }),
    ]);
};

export const useRegisterDevice = () => {
  const refresh = useRefreshAfterRegistration();
  return useMutation({ mutationFn: registerDevice, onSuccess: refresh });
};

export const useReissueBindKey = () => useMutation({ mutationFn: reissueBindKey });

export const useImportDevices = () => {
  const refresh = useRefreshAfterRegistration();
  return useMutation({
    mutationFn: ({ file, fileName }: { file: Blob; fileName: string }) => importDevices(file, fileName),
    onSuccess: refresh,
  });
};
