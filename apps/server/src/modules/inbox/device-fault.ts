import { sql } from 'kysely';
import { PERMISSIONS } from '@cpc/contracts';
import { MESSAGES, type PlainKey } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { readersOf } from '../../lib/data-scope.ts';
import type { DeviceBus } from '../../plugins/mqtt/device-bus.ts';

/** The paper states that are a fault (device protocol `paper`), and the title of each one's message. */
export const DEVICE_FAULTS = {
  out: 'inbox.deviceFaultOut',
  'cover-open': 'inbox.deviceFaultCoverOpen',
  overheat: 'inbox.deviceFaultOverheat',
} as const satisfies Record<string, PlainKey>;
export type DeviceFault = keyof typeof DEVICE_FAULTS;
export const isDeviceFault = (paper: string | null | undefined): paper is DeviceFault =>
  paper != null && Object.hasOwn(DEVICE_FAULTS, paper);

/**
 * A device began a fault episode (its paper state went from ok, or unknown, to out / cover-open / overheat — the
 * caller decides, on the state change alone): ONE message to each active user of its account who can see it —
 * the main account, and those holding device:view whose data scope reaches the device (`readersOf`, the one rule of
 * lib/data-scope.ts) — in one statement. Then each of them hears a `message` event.
 */
export async function deviceFaultMessages(
  db: Db,
  events: Pick<LiveEvents, 'publish'> | undefined,
  deviceId: number,
  fault: DeviceFault,
): Promise<number> {
  const title = MESSAGES[DEVICE_FAULTS[fault]].en;
  const { rows } = await sql<{ tenant_id: number; user_id: number }>`
    with d as (
      select id, tenant_id, sn, name, department_id, owner_id from devices where id = ${deviceId} and tenant_id is not null
    )
    insert into messages (tenant_id, user_id, kind, title, body, link)
    select d.tenant_id, u.id, 'device.fault', ${title},
      d.sn || coalesce(' · ' || nullif(d.name, ''), ''), '/device/detail?id=' || d.id
    from d join lateral (${readersOf({
      tenantId: sql.ref('d.tenant_id'),
      departmentId: sql.ref('d.department_id'),
      ownerId: sql.ref('d.owner_id'),
      permission: PERMISSIONS.deviceView,
    })}) u on true
    returning tenant_id, user_id`.execute(db);
  for (const r of rows) events?.publish(r.tenant_id, { type: 'message', data: { userId: r.user_id } });
  return rows.length;
}

/** The message centre hears paper changes: a change from ok (or unknown) to a fault begins an episode. */
export function listenForDeviceFaults(bus: DeviceBus, db: Db, events: Pick<LiveEvents, 'publish'> | undefined): void {
  bus.on('paper', async (deviceId, { paper, previous }) => {
    if (isDeviceFault(paper) && !isDeviceFault(previous)) await deviceFaultMessages(db, events, deviceId, paper);
  });
}
