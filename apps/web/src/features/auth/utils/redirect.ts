const PUBLIC_ENTRY = /^\/(login|login88121|register)(\/|\?|$)/;

/**
 * Where to go after signing in: the guard's `redirect` query (already decoded by URLSearchParams) when it
 * is an in-app path, else '/'. Anything absolute or protocol-relative is dropped so the login page cannot
 * be used as an open redirect.
 */
export function safeRedirect(path: string | null | undefined): string {
  if (!path) return '/';
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\')) return '/';
  if (PUBLIC_ENTRY.test(path)) return '/';
  return path;
}
