import { sql } from 'kysely';
import { TOPIC_PREFIX, staticDeviceCredential } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import type { DynsecCommand, DynsecResponse } from './external-broker.ts';

/** Devices provisioned per control message (two commands each). */
const BATCH = 100;
/** The role of one device: its own topics and nothing else. */
export const deviceRole = (sn: string) => `cpc-device-${sn}`;

export interface DynsecControl {
  control(commands: DynsecCommand[]): Promise<DynsecResponse[]>;
}

/**
 * Keeps Mosquitto's dynamic-security plugin in step with the registry (MQTT_DYNSEC=on): every device gets a
 * client (user name = sn, pinned to client id = sn, password = its static credential) and a role that lets it
 * publish under `cp/v1/{sn}/up/` and subscribe under `cp/v1/{sn}/down/` only. The broker never sees the
 * device secret, only the credential's hash. Devices still to do are the rows with `broker_synced_at` NULL,
 * however they were registered (console, CSV import, the simulator), so any node may do them, any number of times.
 */
export class DynsecProvisioner {
  constructor(
    private db: Db,
    private broker: DynsecControl,
  ) {}

  /**
   * At start: devices marked done that the broker does not know (a new broker, a wiped configuration) are
   * marked to do again. Fails when the plugin does not answer, so a misconfigured broker stops the start.
   */
  async reconcile(): Promise<void> {
    const [r] = await this.broker.control([{ command: 'listClients', verbose: false, count: -1 }]);
    if (r?.error) throw new Error(`MQTT_DYNSEC: listClients: ${r.error}`);
    const known = ((r?.data?.clients as unknown[]) ?? []).map((c) =>
      typeof c === 'string' ? c : String((c as { username?: string }).username),
    );
    await sql`UPDATE devices SET broker_synced_at = NULL WHERE broker_synced_at IS NOT NULL AND NOT (sn = ANY(${known}::text[]))`.execute(
      this.db,
    );
  }

  /** Provisions the devices still to do, a batch at a time; answers how many were done. */
  async sync(): Promise<number> {
    let done = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom('devices')
        .select(['id', 'sn', 'secret'])
        .where('broker_synced_at', 'is', null)
        .orderBy('id')
        .limit(BATCH)
        .execute();
      if (!rows.length) return done;
      const ok = await this.provision(rows);
      if (ok.length)
        await this.db.updateTable('devices').set({ broker_synced_at: new Date() }).where('id', 'in', ok).execute();
      done += ok.length;
      // a batch with failures is tried again at the next sweep, not in a tight loop
      if (ok.length < rows.length || rows.length < BATCH) return done;
    }
  }

  private async provision(rows: Array<{ id: number; sn: string; secret: string }>): Promise<number[]> {
    const client = (d: { sn: string; secret: string }) => ({
      username: d.sn,
      clientid: d.sn,
      password: staticDeviceCredential(d.secret, d.sn),
      roles: [{ rolename: deviceRole(d.sn) }],
    });
    const commands: DynsecCommand[] = rows.flatMap((d) => [
      {
        command: 'createRole',
        rolename: deviceRole(d.sn),
        acls: [
          { acltype: 'publishClientSend', topic: `${TOPIC_PREFIX}/${d.sn}/up/#`, priority: 0, allow: true },
          { acltype: 'subscribePattern', topic: `${TOPIC_PREFIX}/${d.sn}/down/#`, priority: 0, allow: true },
        ],
      },
      { command: 'createClient', textname: 'device', ...client(d) },
    ]);
    const answers = await this.broker.control(commands);
    // made earlier (by another node, or before the database was restored): set its password, client id and role again
    const again = rows.filter((_, i) => answers[2 * i + 1]?.error === 'Client already exists');
    const modified = await this.broker.control(again.map((d) => ({ command: 'modifyClient', ...client(d) })));
    return rows
      .filter((d, i) => {
        const role = answers[2 * i];
        const made = answers[2 * i + 1];
        const roleOk = !role?.error || role.error === 'Role already exists';
        const clientOk = !made?.error || (made.error === 'Client already exists' && !modified[again.indexOf(d)]?.error);
        return roleOk && clientOk;
      })
      .map((d) => d.id);
  }
}
