/** Placeholder until the shell issue fills it in. */
export function TabsBar() {
  return null;
}
