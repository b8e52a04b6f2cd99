import { createHash } from 'node:crypto';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from '@/lib/request';
import { uploadPackage } from '@/lib/packages';
import '@/lib/i18n';
import { PackageUpload } from './package-upload';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  get: vi.fn(),
}));

/** A stand-in for the server's /upload/chunks: keeps the bytes, checks offsets like the server. */
function fakeServer(chunkSize: number) {
  const uploads = new Map<string, { size: number; bytes: number[] }>();
  const log: string[] = [];
  let failNextPut = false;
  const fetchMock = vi.fn(async (url: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    const headers = init.headers as Record<string, string>;
    log.push(`${method} ${url}`);
    const json = (status: number, data: unknown, msg = 'ok') =>
      new Response(JSON.stringify({ code: status, msg, data }), { status });
    if (headers['x-upload-token'] !== 'TOKEN') return json(401, null, 'upload token invalid');
    const id = url.split('/upload/chunks/')[1];
    const state = (uid: string) => {
      const u = uploads.get(uid)!;
      return { uploadId: uid, name: 'f', size: u.size, offset: u.bytes.length, expiresAt: '', chunkSize };
    };
    if (method === 'POST') {
      const body = JSON.parse(String(init.body)) as { size: number };
      const uid = String(uploads.size + 1).padStart(24, '0');
      uploads.set(uid, { size: body.size, bytes: [] });
      return json(200, state(uid));
    }
    const u = id ? uploads.get(id) : undefined;
    if (!u || !id) return json(404, null, 'upload does not exist');
    if (method === 'GET') return json(200, state(id));
    if (failNextPut) {
      failNextPut = false;
      throw new TypeError('Failed to fetch');
    }
    const [, from] = /bytes (\d+)-/.exec(headers['content-range'])!;
    if (Number(from) !== u.bytes.length) return json(409, { offset: u.bytes.length }, 'wrong offset');
    u.bytes.push(...(init.body as Uint8Array));
    return json(200, state(id));
  });
  return { fetchMock, uploads, log, failOnce: () => (failNextPut = true) };
}

const fileOf = (n: number) => {
  const bytes = new Uint8Array(n).map((_, i) => (i * 7 + 3) % 251);
  return {
    file: new File([bytes], 'app.apk', { lastModified: 1 }),
    sha: createHash('sha256').update(bytes).digest('hex'),
  };
};

describe('uploadPackage', () => {
  beforeEach(() => {
    localStorage.clear();
    vi.mocked(get).mockResolvedValue({ token: 'TOKEN' } as never);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('uploads in chunks, hashing the same slices, and answers the SHA-256 of the file', async () => {
    const server = fakeServer(1000);
    vi.stubGlobal('fetch', server.fetchMock);
    const { file, sha } = fileOf(4500);
    const seen: number[] = [];
    const r = await uploadPackage(file, { onProgress: (p) => seen.push(p.loaded) });
    expect(r.sha256).toBe(sha);
    expect(r.size).toBe(4500);
    expect(server.log.filter((l) => l.startsWith('PUT'))).toHaveLength(5);
    expect(seen.at(-1)).toBe(4500);
    expect(localStorage.length).toBe(0);
  });

  it('pauses, then resumes from the offset the server has (the id kept for a reload)', async () => {
    const server = fakeServer(1000);
    vi.stubGlobal('fetch', server.fetchMock);
    const { file, sha } = fileOf(3500);
    const pause = new AbortController();
    const first = uploadPackage(file, {
      signal: pause.signal,
      onProgress: (p) => p.loaded >= 2000 && pause.abort(new Error('paused')),
    });
    await expect(first).rejects.toThrow('paused');
    expect(localStorage.length).toBe(1);
    const [u] = [...server.uploads.values()];
    expect(u!.bytes.length).toBe(2000);
    // a new attempt (after a reload: only localStorage is left) asks where it stands and sends the rest
    server.log.length = 0;
    server.failOnce(); // and a network cut on the way is retried
    const r = await uploadPackage(file);
    expect(server.log[0]).toMatch(/^GET .*\/upload\/chunks\/0+1$/);
    expect(server.log.filter((l) => l.startsWith('POST'))).toHaveLength(0);
    expect(r.sha256).toBe(sha);
    expect(u!.bytes.length).toBe(3500);
  });
});

describe('PackageUpload', () => {
  beforeEach(() => {
    localStorage.clear();
    vi.mocked(get).mockResolvedValue({ token: 'TOKEN' } as never);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('uploads a dropped file with a progress bar and hands back its id and SHA-256', async () => {
    vi.stubGlobal('fetch', fakeServer(1000).fetchMock);
    const onUploaded = vi.fn();
    const { container } = render(<PackageUpload kind="app" accept=".apk" onUploaded={onUploaded} />);
    const { file, sha } = fileOf(2500);
    fireEvent.change(container.querySelector('input[type=file]')!, { target: { files: [file] } });
    await waitFor(() => expect(onUploaded).toHaveBeenCalled());
    expect(onUploaded.mock.calls[0]![0]).toMatchObject({ sha256: sha, name: 'app.apk', size: 2500 });
    expect(container.querySelector('.ant-progress')).toBeTruthy();
    expect(screen.getByText('app.apk')).toBeTruthy();
  });

  it('refuses a file the control does not accept', async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    const { container } = render(<PackageUpload kind="app" accept=".apk" onUploaded={vi.fn()} />);
    fireEvent.change(container.querySelector('input[type=file]')!, {
      target: { files: [new File(['x'], 'photo.jpg')] },
    });
    await screen.findByText('此处不接受该类型的文件');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
