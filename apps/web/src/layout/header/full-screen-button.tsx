/** Placeholder until the shell issue fills it in. */
export function FullScreenButton() {
  return null;
}
