/** Placeholder until the shell issue fills it in. */
export function LockScreen() {
  return null;
}
