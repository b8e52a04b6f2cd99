/** Placeholder until the shell issue fills it in. */
export function ErrorLogButton() {
  return null;
}
