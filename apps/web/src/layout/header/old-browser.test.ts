import { describe, expect, it } from 'vitest';
import { FEATURE_CHECKS, missingFeatures } from './old-browser';

class ModernElement {
  get inert() {
    return false;
  }
}

/** A stand-in for a browser's global object with every feature the console checks. */
const modern = () =>
  ({
    structuredClone: () => undefined,
    Array: { prototype: { at: () => undefined } },
    Object: { hasOwn: () => true },
    Intl: { RelativeTimeFormat: function RelativeTimeFormat() {} },
    CSS: { supports: (q: string) => q === 'selector(:has(*))' },
    HTMLElement: ModernElement,
  }) as unknown as typeof globalThis;

describe('old-browser detection', () => {
  it('finds nothing missing in a modern browser', () => {
    expect(missingFeatures(modern())).toEqual([]);
  });

  it.each([
    ['structuredClone', (g: Record<string, unknown>) => delete g.structuredClone],
    ['Array.prototype.at', (g: Record<string, unknown>) => (g.Array = { prototype: {} })],
    ['Object.hasOwn', (g: Record<string, unknown>) => (g.Object = {})],
    ['Intl.RelativeTimeFormat', (g: Record<string, unknown>) => (g.Intl = {})],
    ['CSS :has()', (g: Record<string, unknown>) => (g.CSS = { supports: () => false })],
    [
      'CSS :has()',
      (g: Record<string, unknown>) =>
        (g.CSS = {
          supports: () => {
            throw new SyntaxError('bad selector');
          },
        }),
    ],
    ['inert', (g: Record<string, unknown>) => (g.HTMLElement = class {})],
  ])('names %s when it is missing', (name, remove) => {
    const g = modern();
    remove(g as unknown as Record<string, unknown>);
    expect(missingFeatures(g)).toEqual([name]);
  });

  it('names everything an ancient browser lacks', () => {
    expect(missingFeatures({} as typeof globalThis)).toEqual(FEATURE_CHECKS.map((c) => c.name));
  });
});
