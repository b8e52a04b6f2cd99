/** Placeholder until the shell issue fills it in. */
export function LockButton() {
  return null;
}
