import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapiTS, { astToString } from 'openapi-typescript';
import { createHarness, type Harness } from './harness.ts';
import { operationIdOf } from '../src/plugins/api-docs.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
// inside the repository (ignored by git) so that the generated client resolves openapi-fetch as an integrator's would
const OUT = path.join(ROOT, 'test-artifacts', `api-documents-${process.pid}`);
const DOCS = { console: '/apiAdmin/docs/json', open: '/open/v1/docs/json' } as const;

let h: Harness;
const docs = {} as Record<keyof typeof DOCS, { file: string; json: any }>;
beforeAll(async () => {
  h = await createHarness();
  fs.mkdirSync(OUT, { recursive: true });
  for (const [name, url] of Object.entries(DOCS) as [keyof typeof DOCS, string][]) {
    const res = await h.call({ method: 'GET', url });
    const file = path.join(OUT, `${name}.json`);
    fs.writeFileSync(file, res.body);
    docs[name] = { file, json: JSON.parse(res.body) };
  }
});
afterAll(async () => {
  await h.close();
  fs.rmSync(OUT, { recursive: true, force: true });
});

const operations = (doc: any) =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map(([method, op]) => ({ path: p, method, op })),
  );

describe.each(Object.keys(DOCS) as (keyof typeof DOCS)[])('the %s API document', (name) => {
  it("passes redocly's recommended rules with no error and no warning", async () => {
    // redocly exits 1 on an error: the report is read either way
    const out = await run(
      path.join(BIN, 'redocly'),
      [
        'lint',
        docs[name].file,
        '--config',
        path.join(ROOT, 'redocly.yaml'),
        '--format',
        'json',
        '--max-problems',
        '1000',
      ],
      { cwd: ROOT, maxBuffer: 64 << 20 },
    ).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    const problems = (
      JSON.parse(out.stdout).problems as { ruleId: string; message: string; location: { pointer: string }[] }[]
    ).map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(problems).toEqual([]);
  });

  it('names every operation once, and every path parameter is in its path', () => {
    const ops = operations(docs[name].json);
    expect(ops.length).toBeGreaterThan(name === 'open' ? 6 : 80);
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of ops)
      for (const p of o.op.parameters ?? []) if (p.in === 'path') expect(o.path).toContain(`{${p.name}}`);
  });

  it('lists an error answer in the envelope beside every success', () => {
    for (const o of operations(docs[name].json))
      expect(Object.keys(o.op.responses).some((c) => /^4\d\d$/.test(c))).toBe(true);
  });
});

describe('operation ids', () => {
  it('are made from the method and the path when a route gives none', () => {
    expect(operationIdOf('get', '/apiAdmin/device/task/batch/{id}', '/apiAdmin')).toBe('getDeviceTaskBatchById');
    expect(operationIdOf('post', '/apiAdmin/user/v1/login', '/apiAdmin')).toBe('postUserV1Login');
    expect(operationIdOf('get', '/apiAdmin/user/system/user_menu_list', '/apiAdmin')).toBe('getUserSystemUserMenuList');
  });

  it('of the open API are the names an integrator reads', () => {
    expect(
      operations(docs.open.json)
        .map((o) => o.op.operationId)
        .sort(),
    ).toEqual([
      'cancelPrintJob',
      'clearDeviceQueue',
      'getDeviceStatus',
      'getOcrJob',
      'getPrintJob',
      'listDevices',
      'listPrintJobs',
      'submitOcrJob',
      'submitPrintJob',
    ]);
  });
});

describe('a typed client generated from the open API document', () => {
  it('compiles, and refuses a call the API would refuse', async () => {
    const dir = path.join(OUT, 'client');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'open-api.d.ts'), astToString(await openapiTS(docs.open.json)));
    fs.writeFileSync(
      path.join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './open-api';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8080' });

export async function printReceipt(): Promise<string | undefined> {
  const { data } = await client.POST('/open/v1/print', { body: { deviceSn: 'CP-0001', content: '<C>hello</C>', originId: 'order-1' } });
  const state: 'queued' | 'sent' | 'delivered' | 'printing' | 'printed' | 'failed' | 'timeout' | 'expired' | 'canceled' | undefined = data?.data.state;
  const job = await client.GET('/open/v1/print/{id}', { params: { path: { id: data?.data.id ?? '' } } });
  const list = await client.GET('/open/v1/devices', { params: { query: { pageNo: 1, pageSize: 20 } } });
  return job.data?.data.id ?? list.data?.data.list[0]?.sn ?? state;
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error content is required
  await client.POST('/open/v1/print', { body: { deviceSn: 'CP-0001', originId: 'order-1' } });
  // @ts-expect-error copies is a number
  await client.POST('/open/v1/print', { body: { deviceSn: 'CP-0001', content: 'x', originId: 'o', copies: 'two' } });
  // @ts-expect-error no such path
  await client.GET('/open/v1/printers');
}
`,
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          skipLibCheck: true,
          lib: ['ES2022', 'DOM'],
        },
        include: ['*.ts'],
      }),
    );
    const tsc = await run(path.join(BIN, 'tsc'), ['-p', dir], { cwd: dir }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(tsc).toBe('');
  });
});
