/** What a session list shows of a browser: its name and major version, the system, and the kind of device. */
export interface Agent {
  browser: string;
  version: string;
  os: string;
  mobile: boolean;
}

// Order matters: Edge and Opera also say "Chrome", Chrome also says "Safari".
const BROWSERS: Array<[string, RegExp]> = [
  ['Edge', /Edg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /(?:OPR|Opera)\/(\d+)/],
  ['WeChat', /MicroMessenger\/(\d+)/],
  ['Samsung Internet', /SamsungBrowser\/(\d+)/],
  ['Firefox', /(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /(?:HeadlessChrome|Chrome|CriOS)\/(\d+)/],
  ['Safari', /Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//],
];

const SYSTEMS: Array<[string, RegExp]> = [
  ['HarmonyOS', /HarmonyOS|OpenHarmony/],
  ['Windows', /Windows NT/],
  ['Android', /Android/],
  ['iOS', /iPhone|iPad|iPod/],
  ['macOS', /Mac OS X|Macintosh/],
  ['ChromeOS', /CrOS/],
  ['Linux', /Linux/],
];

/** A rough reading of a User-Agent header; anything unknown stays '' and the caller shows a fallback. */
export function parseUserAgent(ua: string | null | undefined): Agent {
  const s = ua ?? '';
  let browser = '';
  let version = '';
  for (const [name, re] of BROWSERS) {
    const m = re.exec(s);
    if (m) {
      browser = name;
      version = m[1];
      break;
    }
  }
  const os = SYSTEMS.find(([, re]) => re.test(s))?.[0] ?? '';
  return { browser, version, os, mobile: /Mobile|Android|iPhone|iPad|iPod|HarmonyOS/i.test(s) };
}
