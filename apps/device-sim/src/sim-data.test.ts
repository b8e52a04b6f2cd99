import { describe, expect, it } from 'vitest';
import { rng } from './random.ts';
import { DATA_PROFILES, SimCard, dataRng, dayFactor, type DataProfileName } from './sim-data.ts';
import { makeSpecs } from './specs.ts';

const MIB = 1024 * 1024;
const HOUR = 3_600_000;
/** Noon today, local time: the day factor is the opening hours' one. */
const noon = () => new Date(new Date().setHours(12, 0, 0, 0)).getTime();

describe('simulated SIM data', () => {
  it('draws each SIM’s profile from its own seed: about 15 % heavy, 60 % normal, 25 % idle, the same every time', () => {
    const specs = makeSpecs(2000, { seed: 5 });
    const profiles = specs.map((s) => new SimCard(dataRng(s.sn, s.iccid), { usedMb: 0 }).profile);
    const share = (p: DataProfileName) => profiles.filter((x) => x === p).length / profiles.length;
    expect(share('heavy')).toBeGreaterThan(0.12);
    expect(share('heavy')).toBeLessThan(0.18);
    expect(share('normal')).toBeGreaterThan(0.56);
    expect(share('normal')).toBeLessThan(0.64);
    expect(share('idle')).toBeGreaterThan(0.21);
    expect(share('idle')).toBeLessThan(0.29);
    const again = specs.map((s) => new SimCard(dataRng(s.sn, s.iccid), { usedMb: 0 }).profile);
    expect(again).toEqual(profiles);
  });

  it('uses data at its profile’s rate, more by day than by night, heavy far above idle', () => {
    const heavy = new SimCard(rng(1), { usedMb: 0, profile: 'heavy' }, noon());
    const idle = new SimCard(rng(1), { usedMb: 0, profile: 'idle' }, noon());
    const [hlo, hhi] = DATA_PROFILES.heavy.mbPerHour;
    expect(heavy.mbPerHour).toBeGreaterThanOrEqual(hlo);
    expect(heavy.mbPerHour).toBeLessThanOrEqual(hhi);
    const day = heavy.usageMb(HOUR, 1, noon());
    expect(day).toBeCloseTo(heavy.mbPerHour * dayFactor(12), 6);
    expect(idle.usageMb(HOUR, 1, noon()) * 20).toBeLessThan(day);
    expect(dayFactor(3)).toBeLessThan(dayFactor(12) / 4);
    // the time scale: a real second at 3600 is an hour of use
    const fast = new SimCard(rng(1), { usedMb: 0, profile: 'heavy', rateScale: 3600 }, noon());
    expect(fast.usageMb(1000, 1, noon())).toBeCloseTo(day, 6);
  });

  it('counts sent and received bytes, received 3 to 5 times sent, and reports MB to two decimals', () => {
    const sim = new SimCard(rng(7), { usedMb: 100 });
    expect(sim.usedMb).toBe(100);
    expect(sim.txBytes + sim.rxBytes).toBe(100 * MIB);
    sim.use(12.345);
    expect(sim.usedMb).toBe(112.35);
    expect(sim.rxBytes / sim.txBytes).toBeGreaterThanOrEqual(3);
    expect(sim.rxBytes / sim.txBytes).toBeLessThanOrEqual(5);
  });

  it('runs out when a known plan is used up or expired, stopping at the plan’s end; never without a plan', () => {
    const sim = new SimCard(rng(3), { usedMb: 99 });
    sim.use(500);
    expect(sim.exhausted()).toBe(false); // no plan known: never runs out
    sim.setPlan(1000, null);
    expect(sim.exhausted()).toBe(false);
    expect(sim.use(800)).toBeCloseTo(1000 - 599, 6); // cut off at the plan's end
    expect(sim.usedMb).toBe(1000);
    expect(sim.exhausted()).toBe(true);
    expect(sim.use(5)).toBe(0);
    sim.receive(10_000);
    expect(sim.usedMb).toBe(1000);
    // the top-up: room again
    sim.setPlan(1100, null);
    expect(sim.exhausted()).toBe(false);
    // expiry, counted on the platform's clock
    sim.setPlan(1100, new Date(Date.now() - 1000).toISOString());
    expect(sim.exhausted()).toBe(true);
    sim.setPlan(1100, new Date(Date.now() + 86_400_000).toISOString());
    expect(sim.exhausted()).toBe(false);
    // a plan of 0 MB is no plan: an expiry alone does not stop it
    sim.setPlan(0, new Date(Date.now() - 1000).toISOString());
    expect(sim.exhausted()).toBe(false);
  });
});
