/** Placeholder until the shell issue fills it in. */
export function RefreshButton() {
  return null;
}
