import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type {
  AppGroupList,
  AppGroupQuery,
  ChunkedUploadState,
  PackageCreateBody,
  PackageDetail,
  PackageItem,
  PackageList,
  SoftwareListQuery,
  UploadTokenResult,
} from '@cpc/contracts';
import { BASE_URL } from '@/config/settings';
import { getLanguage } from './i18n';
import { get, request } from './request';
import { getToken } from './session';

/**
 * Fleet software packages (issue 15): the catalogue's calls and TanStack Query hooks (the upgrade, application and
 * AI library pages use them), and the chunked, resumable upload the package upload control drives.
 */
export const PACKAGE_QUERY_ROOT = ['package'] as const;

export const getPackageList = (q: SoftwareListQuery) =>
  request<PackageList>({
    url: '/package/list',
    method: 'get',
    params: { ...q, keyword: q.keyword?.trim() || undefined },
  });
export const getAppGroups = (q: AppGroupQuery) =>
  request<AppGroupList>({
    url: '/package/apps',
    method: 'get',
    params: { ...q, keyword: q.keyword?.trim() || undefined },
  });
export const getPackageDetail = (id: number) => request<PackageDetail>({ url: `/package/${id}`, method: 'get' });
/** Silent: the caller shows the refusal (a certificate, a version) where the user uploaded. */
export const createPackage = (body: PackageCreateBody) =>
  request<PackageItem>({ url: '/package/create', method: 'post', data: body, silent: true });
export const deletePackage = (id: number) =>
  request<PackageItem>({ url: `/package/${id}/delete`, method: 'post', data: {} });

export const packageListOptions = (q: SoftwareListQuery) =>
  queryOptions({
    queryKey: [...PACKAGE_QUERY_ROOT, 'list', q],
    queryFn: () => getPackageList(q),
    placeholderData: keepPreviousData,
  });
export const usePackageList = (q: SoftwareListQuery, enabled = true) => useQuery({ ...packageListOptions(q), enabled });

export const appGroupsOptions = (q: AppGroupQuery) =>
  queryOptions({
    queryKey: [...PACKAGE_QUERY_ROOT, 'apps', q],
    queryFn: () => getAppGroups(q),
    placeholderData: keepPreviousData,
  });
export const useAppGroups = (q: AppGroupQuery) => useQuery(appGroupsOptions(q));

export const usePackageDetail = (id: number | null) =>
  useQuery({
    queryKey: [...PACKAGE_QUERY_ROOT, 'detail', id],
    queryFn: () => getPackageDetail(id!),
    enabled: !!id,
  });

/** Every package query is refreshed after a change (and on a live `package` event). */
export function useInvalidatePackages() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: PACKAGE_QUERY_ROOT });
}
export function useCreatePackage() {
  const invalidate = useInvalidatePackages();
  return useMutation({ mutationFn: createPackage, onSuccess: () => invalidate() });
}
export function useDeletePackage() {
  const invalidate = useInvalidatePackages();
  return useMutation({ mutationFn: deletePackage, onSuccess: () => invalidate() });
}

// ---- the chunked upload ----

export interface UploadedPackage {
  uploadId: string;
  /** SHA-256 of the file (hex), computed in the browser while it uploaded. */
  sha256: string;
  name: string;
  size: number;
}
export interface UploadProgressInfo {
  loaded: number;
  total: number;
  /** Bytes per second over the last few seconds. */
  speed: number;
}

/** An answer the server refused, with its message (in the console's language). */
export class UploadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const CHUNK = 8 * 1024 * 1024;
const STORE_PREFIX = 'cpc.packageUpload:';
const storeKey = (f: File) => `${STORE_PREFIX}${f.name}:${f.size}:${f.lastModified}`;
const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

type Envelope<T> = { code: number; msg: string; data: T };

/**
 * Uploads a file in chunks (`/upload/chunks`, resumable): the upload id is kept in localStorage under the file's
 * name, size and date, so a reloaded page — or a new attempt after a network cut — asks the server where the upload
 * stands and goes on from there. The SHA-256 is computed over the same slices as they go (hash-wasm, incremental:
 * the file is never read whole). A network error is retried with a growing pause; `signal` pauses the upload (it
 * rejects with the abort reason; call again to resume).
 */
export async function uploadPackage(
  file: File,
  opts: { onProgress?: (p: UploadProgressInfo) => void; signal?: AbortSignal } = {},
): Promise<UploadedPackage> {
  const { signal, onProgress } = opts;
  let token = '';
  const freshToken = async () => {
    token = (await get<UploadTokenResult>('/user/v1/user/getQnToken', { bucket: 'package' })).token;
  };
  await freshToken();
  const call = async <T>(
    method: string,
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: Envelope<T> }> => {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${BASE_URL}/upload/chunks${path}`, {
          ...init,
          method,
          signal,
          headers: {
            ...(init.headers as Record<string, string>),
            'x-upload-token': token,
            'accept-language': getLanguage(),
          },
        });
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        // the network went away: wait and try again (a long cut ends in an error the user can retry)
        if (attempt >= 5) throw e;
        await wait(Math.min(8000, 500 * 2 ** attempt), signal);
        continue;
      }
      const body = (await res.json().catch(() => null)) as Envelope<T> | null;
      if (res.status === 401 && attempt === 0 && getToken()) {
        await freshToken();
        continue;
      }
      if (!body) throw new UploadError(res.status, res.statusText);
      return { status: res.status, body };
    }
  };

  const key = storeKey(file);
  let state: ChunkedUploadState | null = null;
  const kept = localStorage.getItem(key);
  if (kept) {
    const r = await call<ChunkedUploadState>('GET', `/${kept}`);
    if (r.status === 200) state = r.body.data;
    else localStorage.removeItem(key);
  }
  if (!state) {
    const r = await call<ChunkedUploadState>('POST', '', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: file.name, size: file.size }),
    });
    if (r.status !== 200) throw new UploadError(r.status, r.body.msg);
    state = r.body.data;
    localStorage.setItem(key, state.uploadId);
  }

  // pure JavaScript, incremental: the console's Content-Security-Policy allows no WebAssembly compilation
  let hasher = sha256.create();
  const chunk = Math.min(CHUNK, state.chunkSize);
  // what is already there is hashed from the file (fast, local) before the rest goes up
  let hashed = 0;
  const hashUpTo = async (end: number) => {
    while (hashed < end) {
      const next = Math.min(end, hashed + chunk);
      hasher.update(new Uint8Array(await file.slice(hashed, next).arrayBuffer()));
      hashed = next;
    }
  };
  await hashUpTo(state.offset);

  let offset = state.offset;
  const samples: { t: number; loaded: number }[] = [{ t: Date.now(), loaded: offset }];
  const report = () => {
    const now = Date.now();
    samples.push({ t: now, loaded: offset });
    while (samples.length > 2 && now - samples[0]!.t > 5000) samples.shift();
    const first = samples[0]!;
    const speed = now > first.t ? ((offset - first.loaded) * 1000) / (now - first.t) : 0;
    onProgress?.({ loaded: offset, total: file.size, speed });
  };
  report();
  while (offset < file.size) {
    // paused between two chunks
    signal?.throwIfAborted();
    const end = Math.min(file.size, offset + chunk);
    const bytes = new Uint8Array(await file.slice(offset, end).arrayBuffer());
    const r = await call<ChunkedUploadState & { offset?: number }>('PUT', `/${state.uploadId}`, {
      headers: {
        'content-type': 'application/offset+octet-stream',
        'content-range': `bytes ${offset}-${end - 1}/${file.size}`,
      },
      body: bytes,
    });
    if (r.status === 409 && typeof r.body.data?.offset === 'number') {
      // the server has another offset (a chunk half-arrived before a cut): go on from there
      offset = r.body.data.offset;
      if (offset < hashed) {
        hasher = sha256.create();
        hashed = 0;
      }
      await hashUpTo(offset);
      continue;
    }
    if (r.status !== 200) {
      if (r.status === 404 || r.status === 410) localStorage.removeItem(key);
      throw new UploadError(r.status, r.body.msg);
    }
    const now = r.body.data.offset;
    await hashUpTo(now);
    offset = now;
    report();
  }
  await hashUpTo(file.size);
  localStorage.removeItem(key);
  return { uploadId: state.uploadId, sha256: bytesToHex(hasher.digest()), name: file.name, size: file.size };
}
