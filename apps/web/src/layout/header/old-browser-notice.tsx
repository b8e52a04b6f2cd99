/** Placeholder until the shell issue fills it in. */
export function OldBrowserNotice() {
  return null;
}
