import { sql } from 'kysely';
import { PERMISSIONS } from '@cpc/contracts';
import { MESSAGES, type PlainKey } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';

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
 * the main account, and those holding device:view whose data scope reaches the device (see lib/data-scope.ts; the
 * same rule as the SIM alerts) — in one statement. Then each of them hears a `message` event.
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
    ),
    readers as (
      select u.id, u.tenant_id, u.is_super, u.department_id,
        coalesce(bool_or(r.data_scope = 'all'), false) as s_all,
        coalesce(bool_or(r.data_scope = 'department'), false) as s_dept,
        coalesce(bool_or(${PERMISSIONS.deviceView} = any(r.permissions)), false) as can_view
      from users u left join user_roles ur on ur.user_id = u.id left join roles r on r.id = ur.role_id
      where u.state = 'active' and u.tenant_id = (select tenant_id from d)
      group by u.id
    )
    insert into messages (tenant_id, user_id, kind, title, body, link)
    select d.tenant_id, u.id, 'device.fault', ${title},
      d.sn || coalesce(' · ' || nullif(d.name, ''), ''), '/device/detail?id=' || d.id
    from d join readers u on u.tenant_id = d.tenant_id and (u.is_super = 1 or u.can_view)
    where u.is_super = 1 or u.s_all
      or (u.s_dept and u.department_id is not null and d.department_id in (
        select dd.id from departments dd, departments me
        where me.id = u.department_id and dd.tenant_id = u.tenant_id and dd.path like me.path || '%'))
      or (not (u.s_dept and u.department_id is not null) and d.owner_id = u.id)
    returning tenant_id, user_id`.execute(db);
  for (const r of rows) events?.publish(r.tenant_id, { type: 'message', data: { userId: r.user_id } });
  return rows.length;
}
