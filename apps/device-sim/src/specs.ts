import { createHash, createHmac } from 'node:crypto';
import { CITIES, type City } from './cities.ts';
import { rng, weighted } from './random.ts';

/** What the factory knows about a device: its label (sn, bind key), its secret, SIM and modem, and where it stands. */
export interface DeviceSpec {
  sn: string;
  secret: string;
  bindKey: string;
  model: string;
  iccid: string;
  imei: string;
  firmware: string;
  city: City;
}

/** The catalogue model the simulator registers its devices under. */
export const SIM_MODEL = {
  code: 'CPSIM-58',
  name: 'Simulated cloud printer 58 mm',
  kind: 'printer',
  paperWidthMm: 58,
  capabilities: ['print', 'reboot', 'shutdown'],
} as const;

const KEY_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function luhn(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d *= 2;
    sum += d > 9 ? d - 9 : d;
  }
  return (10 - (sum % 10)) % 10;
}

/** Digits drawn from a hash, so the same sn always gets the same ICCID and IMEI. */
function digitsOf(seed: string, n: number): string {
  const h = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < n; i++) out += String(h[i % h.length] % 10);
  return out;
}

/**
 * N device specs, all derived from (seed, prefix, index): a fleet can be recreated at any time with the same
 * serial numbers, secrets and bind keys, so the simulator needs no state file.
 */
export function makeSpecs(count: number, opts: { seed?: number; prefix?: string; start?: number } = {}): DeviceSpec[] {
  const seed = opts.seed ?? 1;
  const prefix = opts.prefix ?? `SIM${seed.toString(36).toUpperCase()}`;
  const r = rng(seed);
  const out: DeviceSpec[] = [];
  for (let i = 0; i < count; i++) {
    const sn = `${prefix}-${String((opts.start ?? 1) + i).padStart(5, '0')}`;
    const mac = createHmac('sha256', `cpc-sim:${seed}`).update(sn).digest();
    const iccidBody = `898600${digitsOf(`iccid:${seed}:${sn}`, 13)}`;
    const imeiBody = `86${digitsOf(`imei:${seed}:${sn}`, 12)}`;
    out.push({
      sn,
      secret: mac.subarray(0, 24).toString('base64url'),
      bindKey: Array.from(
        createHmac('sha256', `cpc-sim-key:${seed}`).update(sn).digest().subarray(0, 12),
        (b) => KEY_ALPHABET[b % KEY_ALPHABET.length],
      ).join(''),
      model: SIM_MODEL.code,
      iccid: iccidBody + luhn(iccidBody),
      imei: imeiBody + luhn(imeiBody),
      firmware: '1.4.2',
      city: weighted(r, CITIES),
    });
  }
  return out;
}
