/** Placeholder until the personal centre is built. */
export default function PersonInfo() {
  return null;
}
