/** SPEC §9: sizes are shown from B up to PB, each unit 1024 of the one before. */
export const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;
export const SIZE_BASE = 1024;

/**
 * A byte count for people: bytes as a whole number, larger units with at most `decimals` decimals
 * and no trailing zeros (1536 → "1.5 KB", 1024 → "1 KB"). Beyond PB the number just grows.
 * Negative, non-finite or non-numeric input gives '-'.
 */
export function formatSize(bytes: number, decimals = 2): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) return '-';
  let unit = 0;
  let value = bytes;
  while (value >= SIZE_BASE && unit < SIZE_UNITS.length - 1) {
    value /= SIZE_BASE;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)} B`;
  const factor = 10 ** Math.max(0, Math.floor(decimals));
  let rounded = Math.round(value * factor) / factor;
  // 1023.999 KB rounds to 1024 KB: say 1 MB instead
  if (rounded >= SIZE_BASE && unit < SIZE_UNITS.length - 1) {
    rounded = 1;
    unit++;
  }
  return `${rounded} ${SIZE_UNITS[unit]}`;
}
