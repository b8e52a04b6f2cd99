import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  MenuCreateBody,
  MenuMoveBody,
  MenuNode,
  MenuUpdateBody,
  MenuVersionDetail,
  MenuVersionView,
} from '@cpc/contracts/menu';
import { request } from '@/lib/request';
import { reloadMenu } from '@/lib/menu-live';

interface Change {
  id: number;
  version: number;
}

const KEY = ['menu-admin'] as const;

export const getMenuTree = () => request<MenuNode[]>({ url: '/system/menu/tree', method: 'get' });
export const getMenuVersions = () => request<MenuVersionView[]>({ url: '/system/menu/versions', method: 'get' });
export const getMenuVersion = (id: number) =>
  request<MenuVersionDetail>({ url: '/system/menu/version', method: 'get', params: { id } });

/** Silent: the form says a refusal beside the field it names. */
const change = (path: string, data: unknown, silent = true) =>
  request<Change>({ url: `/system/menu/${path}`, method: 'post', data, silent });

export const useMenuTree = () => useQuery({ queryKey: [...KEY, 'tree'], queryFn: getMenuTree });
export const useMenuVersions = (enabled: boolean) =>
  useQuery({ queryKey: [...KEY, 'versions'], queryFn: getMenuVersions, enabled });
export const useMenuVersion = (id: number | null) =>
  useQuery({ queryKey: [...KEY, 'version', id], queryFn: () => getMenuVersion(id ?? 0), enabled: id !== null });

/** A change of the menu: the tree and the versions are read again, and the staff member's own menu too. */
function useMenuChange<B>(call: (body: B) => Promise<Change>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: KEY });
      await reloadMenu().catch(() => undefined);
    },
  });
}

export const useAddMenu = () => useMenuChange((b: MenuCreateBody) => change('add', b));
export const useEditMenu = () => useMenuChange((b: MenuUpdateBody) => change('edit', b));
export const useDeleteMenu = () => useMenuChange((id: number) => change('delete', { id }, false));
export const useMoveMenu = () => useMenuChange((b: MenuMoveBody) => change('move', b, false));
export const useRollbackMenu = () => useMenuChange((id: number) => change('rollback', { id }, false));
