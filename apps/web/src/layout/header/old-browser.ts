/**
 * Modern features the console relies on, or soon will: a browser missing any of them is old enough to
 * break somewhere, so the user is asked to switch (SPEC §2). Each check is a cheap property lookup.
 */
export interface FeatureCheck {
  /** What a user might look up to learn more; shown as is, in both languages. */
  name: string;
  supported(g: typeof globalThis): boolean;
}

const supportsSelector = (g: typeof globalThis, selector: string): boolean => {
  try {
    return typeof g.CSS?.supports === 'function' && g.CSS.supports(`selector(${selector})`);
  } catch {
    return false;
  }
};

export const FEATURE_CHECKS: FeatureCheck[] = [
  { name: 'structuredClone', supported: (g) => typeof g.structuredClone === 'function' },
  { name: 'Array.prototype.at', supported: (g) => typeof g.Array?.prototype.at === 'function' },
  { name: 'Object.hasOwn', supported: (g) => typeof g.Object?.hasOwn === 'function' },
  { name: 'Intl.RelativeTimeFormat', supported: (g) => typeof g.Intl?.RelativeTimeFormat === 'function' },
  { name: 'CSS :has()', supported: (g) => supportsSelector(g, ':has(*)') },
  { name: 'inert', supported: (g) => typeof g.HTMLElement === 'function' && 'inert' in g.HTMLElement.prototype },
];

/** Names of the features `g` lacks; empty for a modern browser. */
export function missingFeatures(g: typeof globalThis = globalThis, checks: FeatureCheck[] = FEATURE_CHECKS): string[] {
  return checks.filter((c) => !c.supported(g)).map((c) => c.name);
}
