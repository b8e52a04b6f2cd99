/** Placeholder until the shell issue fills it in. */
export function ThemeDrawerButton() {
  return null;
}
