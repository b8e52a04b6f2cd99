/**
 * Hides the middle of an identifier in a list or on the authenticate screen (the review drawer shows it whole): an ID number keeps its
 * region (6) and last 4, a credit code its first and last 4. Short values keep only their ends.
 */
export function maskMiddle(value: string | null | undefined, head: number, tail: number): string {
  if (!value) return '-';
  const v = value.trim();
  if (v.length <= 2) return '*'.repeat(v.length);
  if (v.length <= head + tail) {
    const keep = Math.max(1, Math.floor(v.length / 4));
    return v.slice(0, keep) + '*'.repeat(v.length - keep * 2) + v.slice(-keep);
  }
  return v.slice(0, head) + '*'.repeat(v.length - head - tail) + v.slice(-tail);
}

export const maskIdNumber = (v: string | null | undefined) => maskMiddle(v, 6, 4);
export const maskCreditCode = (v: string | null | undefined) => maskMiddle(v, 4, 4);
