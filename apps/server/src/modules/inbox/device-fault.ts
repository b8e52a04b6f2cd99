import { MESSAGES, type PlainKey } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import type { DeviceBus } from '../../plugins/mqtt/device-bus.ts';
import { InboxRepository } from './repository.ts';

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
 * lib/data-scope.ts) — in one statement (InboxRepository.insertDeviceFault). Then each of them hears a `message` event.
 */
export async function deviceFaultMessages(
  db: Db,
  events: Pick<LiveEvents, 'publish'> | undefined,
  deviceId: number,
  fault: DeviceFault,
): Promise<number> {
  const title = MESSAGES[DEVICE_FAULTS[fault]].en;
  const rows = await new InboxRepository(db).insertDeviceFault(deviceId, title);
  for (const r of rows) events?.publish(r.tenant_id, { type: 'message', data: { userId: r.user_id } });
  return rows.length;
}

/** The message centre hears paper changes: a change from ok (or unknown) to a fault begins an episode. */
export function listenForDeviceFaults(bus: DeviceBus, db: Db, events: Pick<LiveEvents, 'publish'> | undefined): void {
  bus.on('paper', async (deviceId, { paper, previous }) => {
    if (isDeviceFault(paper) && !isDeviceFault(previous)) await deviceFaultMessages(db, events, deviceId, paper);
  });
}
