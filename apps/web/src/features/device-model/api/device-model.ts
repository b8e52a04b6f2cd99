import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type { ModelKind } from '@cpc/contracts/device';
import type { DeviceModelBody, DeviceModelEditBody, DeviceModelView } from '@cpc/contracts/device-model';
import { request } from '@/lib/request';

export interface ModelListParams {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  kind?: ModelKind;
}

export const getModelList = (params: ModelListParams) =>
  request<Paged<DeviceModelView>>({
    url: '/system/deviceModel/list',
    method: 'get',
    params: { ...params, keyword: params.keyword?.trim() || undefined },
  });

export const addModel = (body: DeviceModelBody) =>
  request<DeviceModelView>({ url: '/system/deviceModel/add', method: 'post', data: body });

export const editModel = (body: DeviceModelEditBody) =>
  request<DeviceModelView>({ url: '/system/deviceModel/edit', method: 'post', data: body });

/** Silent: a refusal (devices still use the model) is explained by the page in the user's language. */
export const deleteModel = (id: number) =>
  request<null>({ url: '/system/deviceModel/delete', method: 'post', data: { id }, silent: true });

const LIST_KEY = ['device-model', 'list'] as const;

export const modelListQueryOptions = (params: ModelListParams) =>
  queryOptions({
    queryKey: [...LIST_KEY, params],
    queryFn: () => getModelList(params),
    placeholderData: keepPreviousData,
  });

export const useModelList = (params: ModelListParams) => useQuery(modelListQueryOptions(params));

const useInvalidatingMutation = <A, R>(fn: (arg: A) => Promise<R>) => {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => client.invalidateQueries({ queryKey: LIST_KEY }) });
};

export const useAddModel = () => useInvalidatingMutation(addModel);
export const useEditModel = () => useInvalidatingMutation(editModel);
export const useDeleteModel = () => useInvalidatingMutation(deleteModel);
