/**
 * Whether the kept page of `path` is on screen: null when it is not mounted, false when it is hidden —
 * paused by React's Activity (`display: none`) or kept warm behind the active page (`cpc-kept--hidden`, inert).
 */
export function keptPageShown(path: string): boolean | null {
  const el = document.querySelector<HTMLElement>(`[data-page-path="${path}"]`);
  if (!el) return null;
  for (let node: HTMLElement | null = el; node; node = node.parentElement) {
    if (node.style.display === 'none' || node.classList.contains('cpc-kept--hidden') || node.inert) return false;
  }
  return true;
}
