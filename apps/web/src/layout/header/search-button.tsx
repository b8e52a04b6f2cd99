/** Placeholder until the shell issue fills it in. */
export function SearchButton() {
  return null;
}
