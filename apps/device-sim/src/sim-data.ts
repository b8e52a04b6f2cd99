import { createHash } from 'node:crypto';
import { between, rng, weighted, type Rng } from './random.ts';

/** How a device uses data: a few heavy users (busy shops, big receipts), most normal, some nearly idle. */
export type DataProfileName = 'heavy' | 'normal' | 'idle';

/** Each profile's share of a fleet and its rate range, in MB per (simulated) hour of daytime use. */
export const DATA_PROFILES = {
  heavy: { weight: 15, mbPerHour: [8, 25] },
  normal: { weight: 60, mbPerHour: [0.5, 3] },
  idle: { weight: 25, mbPerHour: [0.02, 0.2] },
} as const satisfies Record<DataProfileName, { weight: number; mbPerHour: readonly [number, number] }>;

export const isDataProfile = (s: string): s is DataProfileName => Object.hasOwn(DATA_PROFILES, s);

/** Received bytes per sent byte: a printer mostly downloads (jobs, updates), so rx ≈ 3–5 × tx. */
const RX_PER_TX: readonly [number, number] = [3, 5];
const MIB = 1024 * 1024;

/**
 * The day and night rhythm of a shop: little at night, most in opening hours (factor applied to the base rate,
 * by the simulated hour of the day 0–23).
 */
export function dayFactor(hour: number): number {
  if (hour < 6) return 0.15;
  if (hour < 9) return 0.6;
  if (hour < 21) return 1.3;
  return 0.5;
}

/** A rng of its own per device (from its serial number and ICCID), so the profile does not shift the fleet's draws. */
export function dataRng(sn: string, iccid: string): Rng {
  return rng(createHash('sha256').update(`sim-data:${sn}:${iccid}`).digest().readUInt32BE(0));
}

/** The SIM's plan as the platform told it (`down/config` with `sim`); planMb 0: no known plan, never runs out. */
export interface SimPlan {
  planMb: number;
  /** Epoch ms; null: no expiry. */
  expiresAt: number | null;
}

export interface SimCardOptions {
  profile?: DataProfileName;
  /** Simulated time per real time for the usage (1: real time; 3600: an hour of use per second). */
  rateScale?: number;
  /** The MB already used in this plan period when the device starts. */
  usedMb: number;
}

/**
 * A simulated SIM's data: its usage profile and rate, the modem's cumulative byte counters of the plan period
 * (sent and received) and the plan as the platform last told it. Pure and clock-driven (the caller passes the
 * time), so the run-out logic is tested without a broker.
 */
export class SimCard {
  readonly profile: DataProfileName;
  /** This SIM's daytime rate, MB per simulated hour (drawn within its profile's range). */
  readonly mbPerHour: number;
  /** Received bytes per sent byte of this SIM. */
  readonly rxPerTx: number;
  rateScale: number;
  txBytes: number;
  rxBytes: number;
  plan: SimPlan = { planMb: 0, expiresAt: null };
  /** Real ms at which the simulated clock started, and the simulated time it started at. */
  private readonly startReal: number;
  private readonly startSim: number;

  constructor(r: Rng, opts: SimCardOptions, now = Date.now()) {
    this.profile =
      opts.profile ??
      weighted(
        r,
        (Object.keys(DATA_PROFILES) as DataProfileName[]).map((name) => ({ name, weight: DATA_PROFILES[name].weight })),
      ).name;
    const [lo, hi] = DATA_PROFILES[this.profile].mbPerHour;
    this.mbPerHour = between(r, lo, hi);
    this.rxPerTx = between(r, RX_PER_TX[0], RX_PER_TX[1]);
    this.rateScale = opts.rateScale ?? 1;
    const total = Math.round(opts.usedMb * MIB);
    this.txBytes = Math.round(total / (1 + this.rxPerTx));
    this.rxBytes = total - this.txBytes;
    this.startReal = now;
    this.startSim = now;
  }

  /** MB used in the plan period (both directions), to two decimals as the modem reports it. */
  get usedMb(): number {
    return Math.round(((this.txBytes + this.rxBytes) / MIB) * 100) / 100;
  }

  /** The hour of the day (0–23, local) on the simulated clock. */
  simHour(now = Date.now()): number {
    return new Date(this.startSim + (now - this.startReal) * this.rateScale).getHours();
  }

  /** The MB this SIM uses in `ms` of real time ending at `now`, with `jitter` (around 1) drawn by the caller. */
  usageMb(ms: number, jitter: number, now = Date.now()): number {
    const hours = (ms / 3_600_000) * this.rateScale;
    return this.mbPerHour * dayFactor(this.simHour(now)) * jitter * hours;
  }

  /**
   * Adds usage (MB) split into sent and received bytes; with a known plan it stops at the plan's end (the
   * carrier cuts the data off there). Answers the MB actually added.
   */
  use(mb: number): number {
    let bytes = Math.max(0, Math.round(mb * MIB));
    if (this.plan.planMb > 0) bytes = Math.max(0, Math.min(bytes, Math.round(this.plan.planMb * MIB) - this.total));
    const tx = Math.round(bytes / (1 + this.rxPerTx));
    this.txBytes += tx;
    this.rxBytes += bytes - tx;
    return bytes / MIB;
  }

  /** Bytes received outside the background rate (a print job's content), also stopped at the plan's end. */
  receive(bytes: number): void {
    let b = Math.max(0, Math.round(bytes));
    if (this.plan.planMb > 0) b = Math.max(0, Math.min(b, Math.round(this.plan.planMb * MIB) - this.total));
    this.rxBytes += b;
  }

  /** Takes the plan the platform sent. */
  setPlan(planMb: number, expiresAt: string | null): void {
    const t = expiresAt ? Date.parse(expiresAt) : NaN;
    this.plan = { planMb, expiresAt: Number.isFinite(t) ? t : null };
  }

  /** Out of data: a known plan used up, or expired. A SIM without a known plan never runs out. */
  exhausted(now = Date.now()): boolean {
    const { planMb, expiresAt } = this.plan;
    if (!(planMb > 0)) return false;
    return this.total >= Math.round(planMb * MIB) || (expiresAt !== null && expiresAt <= now);
  }

  private get total(): number {
    return this.txBytes + this.rxBytes;
  }
}
