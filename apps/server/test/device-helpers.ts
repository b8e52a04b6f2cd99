import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { LiveEvent } from '@cpc/contracts';
import type { Harness } from './harness.ts';
import { registerCustomer } from './harness.ts';
import { hashPassword } from '../src/lib/password.ts';
import { bindInDb, registerInDb } from '../../device-sim/src/register-db.ts';
import type { DeviceSpec } from '../../device-sim/src/specs.ts';

import { waitUntil } from './wait.ts';

export { waitUntil };

export interface Customer {
  username: string;
  password: string;
  token: string;
  tenantId: number;
}

export async function customer(h: Harness): Promise<Customer> {
  const c = await registerCustomer(h);
  const row = await h.db
    .selectFrom('users')
    .select('tenant_id')
    .where('username', '=', c.username)
    .executeTakeFirstOrThrow();
  return { ...c, tenantId: row.tenant_id };
}

/** Registers the specs as the factory would and binds them to the tenant; answers sn → device id. */
export async function devicesOf(h: Harness, tenantId: number, specs: DeviceSpec[]): Promise<Map<string, number>> {
  const ids = await registerInDb(h.db, specs);
  await bindInDb(
    h.db,
    tenantId,
    specs.map((s) => s.sn),
  );
  return ids;
}

export async function deviceRow(h: Harness, sn: string) {
  return h.db.selectFrom('devices').selectAll().where('sn', '=', sn).executeTakeFirstOrThrow();
}

export async function taskRow(h: Harness, id: string) {
  return h.db.selectFrom('device_tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export interface EventStream {
  /** Each event with its frame's `id:` (numbered from 1 on each stream); `resync` frames are kept too. */
  events: Array<LiveEvent & { id: number }>;
  waitFor(what: string, pred: (e: LiveEvent) => boolean): Promise<LiveEvent>;
  close(): void;
}

/**
 * Opens the console's live event stream over real HTTP, as a browser would: a ticket with the bearer token,
 * then `GET /device/events?ticket=…`, read as Server-Sent Events.
 */
export async function openEvents(h: Harness, baseUrl: string, token: string): Promise<EventStream> {
  const t = await h.call({ method: 'POST', url: '/apiAdmin/device/events/ticket', token });
  if (t.statusCode !== 200) throw new Error(`ticket: ${t.body}`);
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/apiAdmin/device/events?ticket=${encodeURIComponent(t.body_.data.ticket)}`, {
    signal: ac.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`event stream: ${res.status} ${await res.text()}`);
  const events: Array<LiveEvent & { id: number }> = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += value;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const type = /^event: (.+)$/m.exec(frame)?.[1];
          const data = /^data: (.+)$/m.exec(frame)?.[1];
          if (type && data)
            events.push({ id: Number(/^id: (\d+)$/m.exec(frame)?.[1]), type, data: JSON.parse(data) } as LiveEvent & {
              id: number;
            });
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    events,
    waitFor: (what, pred) => waitUntil(what, () => events.find(pred)),
    close: () => ac.abort(),
  };
}

/** A sub-account of a tenant holding exactly these permissions (through a role of its own); its token. */
export async function subAccountWith(h: Harness, tenantId: number, permissions: string[]): Promise<string> {
  const username = `sub_${randomUUID().slice(0, 8)}`;
  const user = await h.db
    .insertInto('users')
    .values({
      tenant_id: tenantId,
      username,
      mobile: null,
      password_hash: await hashPassword('Passw0rd99'),
      is_super: 2,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (permissions.length) {
    const role = await h.db
      .insertInto('roles')
      .values({ tenant_id: tenantId, code: username, name: username, permissions })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.db.insertInto('user_roles').values({ tenant_id: tenantId, user_id: user.id, role_id: role.id }).execute();
  }
  return (await h.login(username, 'Passw0rd99')).token;
}

/**
 * A package of the tenant as a finished upload leaves it (issue 15): its bytes in the object storage, an `objects`
 * row and a `packages` row; answers the package id with its bytes and their SHA-256.
 */
export async function storedPackage(
  h: Harness,
  tenantId: number,
  p: {
    kind: 'firmware' | 'app' | 'model';
    name: string;
    identifier: string;
    versionName: string;
    versionCode?: number;
    models?: string[];
    bytes?: Buffer;
    fileName?: string;
  },
): Promise<{ id: number; versionName: string; bytes: Buffer; sha256: string }> {
  const bytes = p.bytes ?? randomBytes(1000);
  const fileName = p.fileName ?? 'package.bin';
  const key = `20261126/${randomBytes(8).toString('hex')}/${fileName}`;
  // through the storage's driver: the local folder, or the bucket (issue 17)
  await h.app.storage.write(key, bytes);
  const user = await h.db.selectFrom('users').select('id').where('tenant_id', '=', tenantId).executeTakeFirstOrThrow();
  await h.db
    .insertInto('objects')
    .values({
      key,
      tenant_id: tenantId,
      user_id: user.id,
      bucket: 'package',
      size: bytes.length,
      mime: 'application/octet-stream',
      original_name: fileName,
    })
    .execute();
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const row = await h.db
    .insertInto('packages')
    .values({
      tenant_id: tenantId,
      kind: p.kind,
      name: p.name,
      identifier: p.identifier,
      version_name: p.versionName,
      version_code: p.versionCode ?? 0,
      object_key: key,
      size: bytes.length,
      sha256,
      models: p.models ?? [],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), versionName: p.versionName, bytes, sha256 };
}
