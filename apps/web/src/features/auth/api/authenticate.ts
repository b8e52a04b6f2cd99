import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AuthenticateState, IdentityBody } from '@cpc/contracts';
import { request } from '@/lib/request';

export const getAuthenticateState = () =>
  request<AuthenticateState>({ url: '/user/v1/user/authenticate', method: 'get' });

export const submitAuthentication = (body: IdentityBody) =>
  request<AuthenticateState>({ url: '/user/v1/user/authenticate', method: 'post', data: body });

export const authenticateQueryOptions = () =>
  queryOptions({
    queryKey: ['auth', 'authenticate'],
    queryFn: getAuthenticateState,
    // the review may finish while the page is open: always ask again on return
    staleTime: 0,
    refetchOnWindowFocus: true,
  });

export const useAuthenticateState = (enabled = true) => useQuery({ ...authenticateQueryOptions(), enabled });

export const useSubmitAuthentication = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: submitAuthentication,
    onSuccess: (state) => client.setQueryData(authenticateQueryOptions().queryKey, state),
  });
};
