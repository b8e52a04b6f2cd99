/** Web storage that never throws: private modes and disabled storage just forget. */
export type StorageKind = 'localStorage' | 'sessionStorage';

function area(kind: StorageKind): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window[kind];
  } catch {
    return null;
  }
}

export function readStorage(kind: StorageKind, key: string): string | null {
  try {
    return area(kind)?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeStorage(kind: StorageKind, key: string, value: string): void {
  try {
    area(kind)?.setItem(key, value);
  } catch {
    // quota or disabled storage: the value lives in memory only
  }
}

export function removeStorage(kind: StorageKind, key: string): void {
  try {
    area(kind)?.removeItem(key);
  } catch {
    // nothing to remove
  }
}

export function readNumber(kind: StorageKind, key: string, fallback: number): number {
  const raw = readStorage(kind, key);
  const n = raw === null ? Number.NaN : Number(raw);
  return Number.isFinite(n) ? n : fallback;
}
