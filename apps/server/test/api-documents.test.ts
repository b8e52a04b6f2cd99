import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapiTS, { astToString } from 'openapi-typescript';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { loadConfig } from '../src/config.ts';
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

describe('who reads the console API document and its UI', () => {
  // every route the Swagger UI serves: its page, the documents it fetches, its own scripts
  const UI = [
    '/apiAdmin/docs',
    '/apiAdmin/docs/',
    '/apiAdmin/docs/json',
    '/apiAdmin/docs/yaml',
    '/apiAdmin/docs/static/swagger-ui.css',
    '/apiAdmin/docs/static/swagger-initializer.js',
    '/apiAdmin/docs/static/swagger-ui-bundle.js',
  ];
  const PRODUCTION = { NODE_ENV: 'production', PUBLIC_URL: 'https://print.example.com', CAPTCHA_PROVIDER: 'svg' };
  const statuses = async (p: Harness, headers: Record<string, string> = {}) =>
    Object.fromEntries(
      await Promise.all(
        UI.map(async (url) => {
          const res = await p.call({ method: 'GET', url, headers });
          // what a caller would notice: the document itself, or an error status
          const documented = !url.endsWith('/json') || res.body.includes('"openapi"');
          return [url, res.statusCode === 200 && !documented ? 'no document' : res.statusCode];
        }),
      ),
    );
  /** The admin's sign-in as the console does it in production: captcha first (its answer read from the database). */
  async function signIn(p: Harness): Promise<{ token: string; cookie: string }> {
    const captcha = (await p.call({ method: 'GET', url: '/apiAdmin/captcha' })).body_.data as { captchaId: string };
    const { answer } = await p.db
      .selectFrom('captchas')
      .select('answer')
      .where('id', '=', captcha.captchaId)
      .executeTakeFirstOrThrow();
    const res = await p.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: 'admin', password: ADMIN_PASSWORD, captchaId: captcha.captchaId, captcha: answer },
    });
    expect(res.statusCode).toBe(200);
    return { token: res.body_.data.token, cookie: String(res.headers['set-cookie']).split(';')[0]! };
  }
  const all = (status: number) => Object.fromEntries(UI.map((u) => [u, status]));

  it('defaults to signed-in users in production and to anyone elsewhere', () => {
    expect(loadConfig(PRODUCTION).API_DOCS).toBe('signed-in');
    expect(loadConfig({}).API_DOCS).toBe('public');
    expect(loadConfig({ ...PRODUCTION, API_DOCS: 'public' }).API_DOCS).toBe('public');
  });

  it('in production: not to anyone signed out; to a signed-in user by token or by the browser session cookie', async () => {
    const p = await createHarness(PRODUCTION);
    try {
      expect(await statuses(p)).toEqual(all(401));
      expect(await statuses(p, { authorization: 'Bearer not-a-token' })).toEqual(all(401));
      expect(await statuses(p, { cookie: 'cpc_refresh=not-a-session' })).toEqual(all(401));
      // the open API's document is the integrators' published contract: public
      expect((await p.call({ method: 'GET', url: '/open/v1/docs/json' })).statusCode).toBe(200);

      const { token, cookie } = await signIn(p);
      expect(await statuses(p, { authorization: `Bearer ${token}` })).toEqual(all(200));
      // a browser page sends no header: the session cookie of the browser that signed in opens the UI
      expect(await statuses(p, { cookie })).toEqual(all(200));
      const doc = await p.call({ method: 'GET', url: '/apiAdmin/docs/json', headers: { cookie } });
      expect(JSON.parse(doc.body).info.title).toBe('Cloud Print Console API');
      // signed out: neither the token nor the cookie opens them any more
      expect((await p.call({ method: 'GET', url: '/apiAdmin/logout', token })).statusCode).toBe(200);
      expect(await statuses(p, { authorization: `Bearer ${token}` })).toEqual(all(401));
      expect(await statuses(p, { cookie })).toEqual(all(401));
    } finally {
      await p.close();
    }
  });

  it('API_DOCS=off: not found, also for a signed-in user', async () => {
    const p = await createHarness({ ...PRODUCTION, API_DOCS: 'off' });
    try {
      const { token } = await signIn(p);
      expect(await statuses(p, { authorization: `Bearer ${token}` })).toEqual(all(404));
    } finally {
      await p.close();
    }
  });
});
