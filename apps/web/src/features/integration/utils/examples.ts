import { OPEN_API_PREFIX, OPEN_HEADERS } from '@cpc/contracts/integration-constants';

/**
 * Copyable examples of the open API (contracts/open-api.ts) in curl, Node and Python, from one template per
 * language. They carry the user's app id and read the secret from the environment: the page never has it.
 */

export type ExampleLanguage = 'curl' | 'node' | 'python';
export const EXAMPLE_LANGUAGES: readonly ExampleLanguage[] = ['curl', 'node', 'python'];

export type OpenCallId = 'print' | 'job' | 'jobs' | 'cancel' | 'clear' | 'status' | 'devices';

export interface OpenCall {
  id: OpenCallId;
  method: 'GET' | 'POST';
  /** The path template as the reference shows it: `/open/v1/print/{id}`. */
  route: string;
  /** Path and query of the example call; kept in canonical order so curl can sign it as written. */
  example: (v: ExampleValues) => string;
  body?: (v: ExampleValues) => Record<string, unknown>;
}

export interface ExampleValues {
  /** Where the console is served; the open API lives beside it. */
  origin: string;
  appId: string;
  deviceSn: string;
  jobId: string;
}

export const SECRET_ENV = 'CPC_APP_SECRET';
export const APP_ID_PLACEHOLDER = 'YOUR_APP_ID';
export const DEVICE_SN_PLACEHOLDER = 'YOUR_DEVICE_SN';
export const JOB_ID_PLACEHOLDER = 'JOB_ID';

const P = OPEN_API_PREFIX;
const encSeg = encodeURIComponent;

export const SAMPLE_CONTENT = '<C><B>Order 1001</B></C>\n<HR>\nCoffee x2      30.00\n<R>Total 30.00</R>\n<CUT>';

export const OPEN_CALLS: readonly OpenCall[] = [
  {
    id: 'print',
    method: 'POST',
    route: `${P}/print`,
    example: () => `${P}/print`,
    body: (v) => ({ deviceSn: v.deviceSn, content: SAMPLE_CONTENT, copies: 1, originId: 'order-1001' }),
  },
  { id: 'job', method: 'GET', route: `${P}/print/{id}`, example: (v) => `${P}/print/${encSeg(v.jobId)}` },
  { id: 'jobs', method: 'GET', route: `${P}/print`, example: () => `${P}/print?pageNo=1&pageSize=20&state=printed` },
  {
    id: 'cancel',
    method: 'POST',
    route: `${P}/print/{id}/cancel`,
    example: (v) => `${P}/print/${encSeg(v.jobId)}/cancel`,
  },
  {
    id: 'clear',
    method: 'POST',
    route: `${P}/devices/{sn}/clear`,
    example: (v) => `${P}/devices/${encSeg(v.deviceSn)}/clear`,
  },
  {
    id: 'status',
    method: 'GET',
    route: `${P}/devices/{sn}/status`,
    example: (v) => `${P}/devices/${encSeg(v.deviceSn)}/status`,
  },
  {
    id: 'devices',
    method: 'GET',
    route: `${P}/devices`,
    example: () => `${P}/devices?pageNo=1&pageSize=20&status=online`,
  },
];

/** The same JSON text in every language, so the body hashed is the body sent. */
const bodyText = (call: OpenCall, v: ExampleValues): string | null => (call.body ? JSON.stringify(call.body(v)) : null);

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const header = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

function curl(call: OpenCall, v: ExampleValues): string {
  const url = call.example(v);
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const body = bodyText(call, v);
  const lines = [
    `APP_ID=${sq(v.appId)}`,
    `# the secret from your own safe place, never from source code`,
    `APP_SECRET="$${SECRET_ENV}"`,
    ...(body !== null ? [`BODY=${sq(body)}`] : [`BODY=''`]),
    `TS=$(date +%s)`,
    `NONCE=$(openssl rand -hex 12)`,
    `BODY_SHA=$(printf '%s' "$BODY" | openssl dgst -sha256 | sed 's/^.* //')`,
    // method \n path \n canonical query \n timestamp \n nonce \n sha256(body)
    `SIGNATURE=$(printf '%s\\n%s\\n%s\\n%s\\n%s\\n%s' ${call.method} ${sq(path)} ${sq(query)} "$TS" "$NONCE" "$BODY_SHA" | openssl dgst -sha256 -hmac "$APP_SECRET" | sed 's/^.* //')`,
    `curl -sS -X ${call.method} ${sq(v.origin + url)} \\`,
    `  -H "${header(OPEN_HEADERS.appId)}: $APP_ID" \\`,
    `  -H "${header(OPEN_HEADERS.timestamp)}: $TS" \\`,
    `  -H "${header(OPEN_HEADERS.nonce)}: $NONCE" \\`,
    body !== null
      ? `  -H "${header(OPEN_HEADERS.signature)}: $SIGNATURE" \\`
      : `  -H "${header(OPEN_HEADERS.signature)}: $SIGNATURE"`,
    ...(body !== null ? [`  -H 'Content-Type: application/json' \\`, `  --data-binary "$BODY"`] : []),
  ];
  return lines.join('\n');
}

function node(call: OpenCall, v: ExampleValues): string {
  const body = call.body ? JSON.stringify(call.body(v), null, 2) : null;
  return [
    `// Node 18 or later: node example.mjs`,
    `import { createHash, createHmac, randomBytes } from 'node:crypto';`,
    ``,
    `const BASE_URL = ${JSON.stringify(v.origin)};`,
    `const APP_ID = ${JSON.stringify(v.appId)};`,
    `// the secret from your own safe place, never from source code`,
    `const APP_SECRET = process.env.${SECRET_ENV};`,
    ``,
    `// RFC 3986: everything but A-Z a-z 0-9 - _ . ~ percent-encoded`,
    `const rfc3986 = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());`,
    ``,
    `async function callOpenApi(method, pathAndQuery, body) {`,
    `  const [path, query = ''] = pathAndQuery.split('?');`,
    `  const raw = body === undefined ? '' : JSON.stringify(body);`,
    `  const canonicalQuery = [...new URLSearchParams(query)]`,
    `    .map(([k, v]) => [rfc3986(k), rfc3986(v)])`,
    `    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))`,
    `    .map(([k, v]) => k + '=' + v)`,
    `    .join('&');`,
    `  const timestamp = String(Math.floor(Date.now() / 1000));`,
    `  const nonce = randomBytes(12).toString('hex');`,
    `  const bodySha256 = createHash('sha256').update(raw).digest('hex');`,
    `  const stringToSign = [method, path, canonicalQuery, timestamp, nonce, bodySha256].join('\\n');`,
    `  const signature = createHmac('sha256', APP_SECRET).update(stringToSign).digest('hex');`,
    `  const res = await fetch(BASE_URL + pathAndQuery, {`,
    `    method,`,
    `    headers: {`,
    `      '${header(OPEN_HEADERS.appId)}': APP_ID,`,
    `      '${header(OPEN_HEADERS.timestamp)}': timestamp,`,
    `      '${header(OPEN_HEADERS.nonce)}': nonce,`,
    `      '${header(OPEN_HEADERS.signature)}': signature,`,
    `      ...(raw ? { 'Content-Type': 'application/json' } : {}),`,
    `    },`,
    `    body: raw || undefined,`,
    `  });`,
    `  return res.json();`,
    `}`,
    ``,
    body !== null
      ? `console.log(await callOpenApi('${call.method}', ${JSON.stringify(call.example(v))}, ${body}));`
      : `console.log(await callOpenApi('${call.method}', ${JSON.stringify(call.example(v))}));`,
  ].join('\n');
}

const pyString = (s: string) => JSON.stringify(s);
/** A JSON value as Python source (the body's values are strings and numbers). */
const pyValue = (value: unknown, indent = ''): string => {
  if (value && typeof value === 'object') {
    const inner = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${indent}    ${pyString(k)}: ${pyValue(v, `${indent}    `)},`,
    );
    return `{\n${inner.join('\n')}\n${indent}}`;
  }
  return typeof value === 'string' ? pyString(value) : String(value);
};

function python(call: OpenCall, v: ExampleValues): string {
  return [
    `# Python 3.8 or later, standard library only`,
    `import hashlib, hmac, json, os, secrets, time, urllib.error, urllib.request`,
    `from urllib.parse import parse_qsl, quote`,
    ``,
    `BASE_URL = ${pyString(v.origin)}`,
    `APP_ID = ${pyString(v.appId)}`,
    `# the secret from your own safe place, never from source code`,
    `APP_SECRET = os.environ[${pyString(SECRET_ENV)}]`,
    ``,
    ``,
    `def call_open_api(method, path_and_query, body=None):`,
    `    path, _, query = path_and_query.partition("?")`,
    `    raw = b"" if body is None else json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")`,
    `    pairs = sorted((quote(k, safe="-_.~"), quote(v, safe="-_.~")) for k, v in parse_qsl(query, keep_blank_values=True))`,
    `    canonical_query = "&".join(k + "=" + v for k, v in pairs)`,
    `    timestamp = str(int(time.time()))`,
    `    nonce = secrets.token_hex(12)`,
    `    string_to_sign = "\\n".join([method, path, canonical_query, timestamp, nonce, hashlib.sha256(raw).hexdigest()])`,
    `    signature = hmac.new(APP_SECRET.encode("utf-8"), string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()`,
    `    headers = {`,
    `        "${header(OPEN_HEADERS.appId)}": APP_ID,`,
    `        "${header(OPEN_HEADERS.timestamp)}": timestamp,`,
    `        "${header(OPEN_HEADERS.nonce)}": nonce,`,
    `        "${header(OPEN_HEADERS.signature)}": signature,`,
    `    }`,
    `    if raw:`,
    `        headers["Content-Type"] = "application/json"`,
    `    req = urllib.request.Request(BASE_URL + path_and_query, data=raw or None, method=method, headers=headers)`,
    `    try:`,
    `        with urllib.request.urlopen(req) as res:`,
    `            return json.load(res)`,
    `    except urllib.error.HTTPError as err:  # a refusal still answers the envelope`,
    `        return json.load(err)`,
    ``,
    ``,
    call.body
      ? `print(call_open_api(${pyString(call.method)}, ${pyString(call.example(v))}, ${pyValue(call.body(v))}))`
      : `print(call_open_api(${pyString(call.method)}, ${pyString(call.example(v))}))`,
  ].join('\n');
}

const TEMPLATES: Record<ExampleLanguage, (call: OpenCall, v: ExampleValues) => string> = { curl, node, python };

export const buildExample = (language: ExampleLanguage, call: OpenCall, values: ExampleValues): string =>
  TEMPLATES[language](call, values);

/** The document of the calls, unsigned. */
export const openApiDocUrl = (origin: string) => `${origin}${P}/docs/json`;
