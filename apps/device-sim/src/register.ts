import { SIM_MODEL, type DeviceSpec } from './specs.ts';

/**
 * Registration through the console API, as platform staff (permission `device:register`): the simulator's
 * model is added to the catalogue if missing, then the devices not registered yet are imported as one CSV.
 * Devices only ever enter the platform this way (or through the same code in-process: register-db.ts).
 */

interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

async function call(api: string, token: string | null, path: string, init: RequestInit = {}): Promise<Envelope> {
  const res = await fetch(`${api.replace(/\/$/, '')}/apiAdmin${path}`, {
    ...init,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
  });
  return (await res.json()) as Envelope;
}

/** A staff token from a user name and password (works when the server's captcha is off). */
export async function login(api: string, username: string, password: string): Promise<string> {
  const r = await call(api, null, '/user/v1/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (r.code !== 200)
    throw new Error(`login as ${username} failed: ${r.msg} (with a captcha on, pass --token instead)`);
  return (r.data as { token: string }).token;
}

export const specsCsv = (specs: DeviceSpec[]) =>
  [
    'sn,model,bind_key,secret,iccid,imei',
    ...specs.map((s) => [s.sn, s.model, s.bindKey, s.secret, s.iccid, s.imei].join(',')),
  ].join('\n') + '\n';

export async function registerViaApi(
  api: string,
  token: string,
  specs: DeviceSpec[],
): Promise<{ registered: number; existing: number }> {
  const model = await call(api, token, '/system/deviceModel/add', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      code: SIM_MODEL.code,
      name: SIM_MODEL.name,
      kind: SIM_MODEL.kind,
      paperWidthMm: SIM_MODEL.paperWidthMm,
      capabilities: SIM_MODEL.capabilities,
    }),
  });
  if (model.code !== 200 && !/exist|taken|already/i.test(model.msg))
    throw new Error(`adding the model ${SIM_MODEL.code} failed: ${model.msg}`);
  let todo = specs;
  for (let attempt = 0; attempt < 2 && todo.length; attempt++) {
    const form = new FormData();
    form.append('file', new Blob([specsCsv(todo)], { type: 'text/csv' }), 'fleet.csv');
    const r = await call(api, token, '/system/deviceRegistry/import', { method: 'POST', body: form });
    if (r.code === 200) return { registered: todo.length, existing: specs.length - todo.length };
    // devices registered by an earlier run are skipped; any other problem stops here
    const rows = (
      (r.data as { rows?: Array<{ row: number; field: string; message: string }> } | null)?.rows ?? []
    ).filter((e) => e.message === 'already registered');
    if (!rows.length) throw new Error(`registering the fleet failed: ${r.msg}`);
    const taken = new Set(rows.map((e) => e.row - 2));
    todo = todo.filter((_, i) => !taken.has(i));
  }
  return { registered: 0, existing: specs.length };
}
