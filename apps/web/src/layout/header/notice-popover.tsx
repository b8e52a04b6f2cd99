/** Placeholder until the shell issue fills it in. */
export function NoticePopover() {
  return null;
}
