/** Placeholder until the shell issue fills it in. */
export function Clock() {
  return null;
}
