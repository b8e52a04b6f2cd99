import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import type { UpgradeSimOptions } from '../../device-sim/src/upgrade.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, storedPackage, waitUntil, type Customer } from './device-helpers.ts';

/**
 * End to end with the simulator (issue 15): a firmware release to 200 simulated devices in two waves with a 10 %
 * canary; 5 % of the devices fail their checksum, the release halts itself, one retry (failures off) and it
 * completes, every device back on the new version (its hello says so) with the change in its history.
 */
let h: Harness;
let A: Customer;
const fleets: Fleet[] = [];
const specs = makeSpecs(200, { seed: 915, prefix: 'UPS' });
const failing = new Set(specs.filter((_, i) => i % 20 === 7).map((s) => s.sn)); // 10 devices: 5 %
const good: UpgradeSimOptions = { bytesPerSecond: 4_000_000, installStepMs: 20 };
const bad: UpgradeSimOptions = { ...good, badChecksumRate: 1 };
const bytes = randomBytes(200_000);

beforeAll(async () => {
  h = await createHarness({ SWEEP_INTERVAL_MS: '500', LAST_SEEN_FLUSH_MS: '200' });
  A = await customer(h);
  await devicesOf(h, A.tenantId, specs);
  // devices download from the address the server listens on
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const common = {
    url: h.app.gateway.deviceUrl,
    seed: 915,
    credential: 'timed' as const,
    rebootDelayMs: 300,
    randomFaults: false,
  };
  fleets.push(
    await createFleet({ ...common, specs: specs.filter((s) => !failing.has(s.sn)), upgrade: good, start: false }),
  );
  fleets.push(
    await createFleet({ ...common, specs: specs.filter((s) => failing.has(s.sn)), upgrade: bad, start: false }),
  );
  await Promise.all(fleets.map((f) => f.start()));
}, 120_000);
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await h.close();
});

describe('a release to 200 simulated devices', () => {
  it('canary, halt on failures, retry, completion: every device verified on the new version', async () => {
    const pkg = await storedPackage(h, A.tenantId, {
      kind: 'firmware',
      name: 'CPSIM firmware',
      identifier: 'CPSIM',
      versionName: '2.0.0',
      models: ['CPSIM-58'],
      bytes,
      fileName: 'fw.bin',
    });
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/upgrade/release/create',
      token: A.token,
      payload: {
        name: 'CPSIM 2.0.0',
        packageId: pkg.id,
        targets: { models: ['CPSIM-58'] },
        canaryPercent: 10,
        soakMinutes: 1,
        throttle: 40,
        window: null,
        failPercent: 5,
        failMinCount: 3,
        expireAt: new Date(Date.now() + 3600_000).toISOString(),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.total).toBe(200);
    const id = res.body_.data.id;
    const detail = async () =>
      (await h.call({ method: 'GET', url: `/apiAdmin/upgrade/release/detail?id=${id}`, token: A.token })).body_.data;
    expect((await detail()).waves.map((w: { total: number }) => w.total)).toEqual([20, 180]);

    const seen = new Set<string>();
    let halts = 0;
    let retried = false;
    let maxActive = 0;
    for (const end = Date.now() + 110_000; Date.now() < end;) {
      const d = await detail();
      seen.add(d.state);
      const active = d.counts.downloading + d.counts.downloaded + d.counts.installing + d.counts.rebooting;
      maxActive = Math.max(maxActive, active);
      if (d.state === 'completed') break;
      if (d.state === 'halted') {
        halts++;
        expect(d.haltReason).toMatch(/failed/);
        expect(d.reasons[0]).toMatchObject({ reason: 'bad checksum' });
        // wait for the devices under way, then retry with the failures off
        await waitUntil(
          'the wave to settle',
          async () => {
            const x = await detail();
            return x.counts.downloading + x.counts.downloaded + x.counts.installing + x.counts.rebooting === 0;
          },
          30_000,
        );
        bad.badChecksumRate = 0;
        const r = await h.call({
          method: 'POST',
          url: '/apiAdmin/upgrade/release/retry',
          token: A.token,
          payload: { id },
        });
        expect(r.statusCode, r.body).toBe(200);
        retried = true;
      } else if (d.state === 'waiting') {
        // the soak time (a minute) runs out: moved back here, then the periodic reconcile promotes
        await h.db
          .updateTable('upgrade_releases')
          .set({ waiting_since: new Date(Date.now() - 61_000) })
          .where('id', '=', id)
          .execute();
        await h.app.upgrades.reconcileAll();
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const d = await detail();
    expect(d.state).toBe('completed');
    expect(halts).toBeGreaterThanOrEqual(1);
    expect(retried).toBe(true);
    expect(seen.has('waiting') || seen.has('halted')).toBe(true);
    expect(maxActive).toBeLessThanOrEqual(40);
    expect(d.counts.verified).toBe(200);
    expect(d.counts.failed).toBe(0);
    // every device said the new version in its hello, and its history says where it came from
    const rows = await h.db.selectFrom('devices').select('firmware').where('tenant_id', '=', A.tenantId).execute();
    expect(rows.filter((r) => r.firmware === '2.0.0')).toHaveLength(200);
    for (const f of fleets) for (const dev of f.devices) expect(dev.firmware).toBe('2.0.0');
    const history = await h.db
      .selectFrom('device_firmware_history')
      .select(['source', 'from_version', 'to_version'])
      .where('tenant_id', '=', A.tenantId)
      .execute();
    expect(history).toHaveLength(200);
    expect(history.every((x) => x.source === 'release' && x.from_version === '1.4.2' && x.to_version === '2.0.0')).toBe(
      true,
    );
  }, 150_000);
});
