/**
 * A short, readable summary of a User-Agent for the system log ("Chrome 120 · Windows", "Safari · iOS"): the
 * browser or client and the system, nothing that singles a person out beyond what the header already says.
 * Unknown agents keep their first 60 characters.
 */
export function deviceSummary(userAgent: string): string {
  const ua = userAgent.trim();
  if (!ua) return '';
  const version = (re: RegExp) => {
    const m = re.exec(ua);
    return m ? ` ${m[1].split('.')[0]}` : '';
  };
  const browser = /Edg\//.test(ua)
    ? `Edge${version(/Edg\/([\d.]+)/)}`
    : /OPR\//.test(ua)
      ? `Opera${version(/OPR\/([\d.]+)/)}`
      : /MicroMessenger\//.test(ua)
        ? `WeChat${version(/MicroMessenger\/([\d.]+)/)}`
        : /Firefox\//.test(ua)
          ? `Firefox${version(/Firefox\/([\d.]+)/)}`
          : /(Chrome|CriOS)\//.test(ua)
            ? `Chrome${version(/(?:Chrome|CriOS)\/([\d.]+)/)}`
            : /Safari\//.test(ua) && /Version\//.test(ua)
              ? `Safari${version(/Version\/([\d.]+)/)}`
              : null;
  const system = /Windows/.test(ua)
    ? 'Windows'
    : /iPhone|iPad|iPod/.test(ua)
      ? 'iOS'
      : /Android/.test(ua)
        ? 'Android'
        : /Mac OS X|Macintosh/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : null;
  if (!browser && !system) return ua.slice(0, 60);
  return [browser ?? ua.split(/[\s/]/)[0].slice(0, 30), system].filter(Boolean).join(' · ');
}
