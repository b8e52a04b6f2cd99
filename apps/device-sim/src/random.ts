/** A small seeded generator (mulberry32): the same seed gives the same fleet and the same behaviour. */
export type Rng = () => number;

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const between = (r: Rng, lo: number, hi: number) => lo + r() * (hi - lo);
export const intBetween = (r: Rng, lo: number, hi: number) => Math.floor(between(r, lo, hi + 1));
export const chance = (r: Rng, p: number) => r() < p;
export const pick = <T>(r: Rng, items: readonly T[]) => items[Math.floor(r() * items.length)];

/** Picks by weight. */
export function weighted<T extends { weight: number }>(r: Rng, items: readonly T[]): T {
  const total = items.reduce((a, i) => a + i.weight, 0);
  let x = r() * total;
  for (const i of items) if ((x -= i.weight) < 0) return i;
  return items[items.length - 1];
}
