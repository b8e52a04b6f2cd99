import { createHash } from 'node:crypto';
import nodeApk, { type Certificate as ApkCertificate, type XmlElement } from 'node-apk';
import { badRequest } from '../../plugins/errors.ts';
import { ArchiveError, BoundedZip, archiveRefusal, archiveSlots } from '../../lib/bounded-zip.ts';
import { APK_ENTRY_MAX_BYTES } from '../../lib/input-limits.ts';

// a CommonJS package whose exports Node's ESM loader cannot see by name
const { Apk, Certificate } = nodeApk;
type Apk = InstanceType<typeof Apk>;

/** v1 signature blocks read for the certificate: an APK has one, rarely two. */
const MAX_SIGNATURE_BLOCKS = 4;

/**
 * node-apk's parsers (binary XML, resources table, PKCS#7) over entries read by BoundedZip: node-apk itself would
 * read the whole file into memory and inflate any entry to whatever size it expands to.
 */
class BoundedApk extends Apk {
  constructor(private zip: BoundedZip) {
    super(Buffer.alloc(0));
  }

  override extract(key: string): Promise<Buffer> {
    const limit =
      key === 'AndroidManifest.xml'
        ? APK_ENTRY_MAX_BYTES.manifest
        : key === 'resources.arsc'
          ? APK_ENTRY_MAX_BYTES.resources
          : APK_ENTRY_MAX_BYTES.icon;
    return this.zip.read(key, limit);
  }

  override async getCertificateInfo(): Promise<ApkCertificate[]> {
    const blocks = [...this.zip.entries.keys()]
      .filter((n) => n.startsWith('META-INF/') && n.endsWith('.RSA'))
      .slice(0, MAX_SIGNATURE_BLOCKS);
    const certs: ApkCertificate[] = [];
    for (const n of blocks)
      certs.push(...Certificate.fromPkcs7(await this.zip.read(n, APK_ENTRY_MAX_BYTES.certificate)));
    return certs;
  }
}

/** A limit hit while reading an entry is said as such; any other failure is `fallback`'s. */
const limitOr =
  <T>(fallback: (e: unknown) => T) =>
  (e: unknown): T => {
    if (e instanceof ArchiveError && e.isLimit) throw e;
    return fallback(e);
  };

/** What the console and the devices need of an Android application, read from its APK. */
export interface ApkInfo {
  packageName: string;
  versionCode: number;
  versionName: string;
  label: string;
  minSdk: number | null;
  targetSdk: number | null;
  permissions: string[];
  certSha256: string;
  certSubject: string;
  /** The launcher icon's bytes (png/webp), when one was found. */
  icon: { bytes: Buffer; ext: string } | null;
}

const intOf = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};

/**
 * Reads an APK with `node-apk`'s parsers (manifest in binary XML, resources table, v1 signature's PKCS#7
 * certificates) over a BoundedZip: only the entries needed are read, each within APK_ENTRY_MAX_BYTES, and at most
 * ARCHIVE_PARSE_CONCURRENCY APKs are read at once on this node. Anything that is not a zip with a readable
 * AndroidManifest.xml is refused naming the file (400 `file`), as is an APK without a signing certificate; an entry
 * over its limit, beyond its declared size or ratio is refused naming the entry.
 */
export function readApk(file: string, name: string): Promise<ApkInfo> {
  return archiveSlots.run(async () => {
    let zip: BoundedZip | null = null;
    try {
      zip = await BoundedZip.open(file);
      return await parseApk(new BoundedApk(zip), name);
    } catch (e) {
      if (e instanceof ArchiveError)
        throw archiveRefusal(e, 'file', name, () => badRequest('file', 'package.notApk', { name }));
      throw e;
    } finally {
      await zip?.close();
    }
  });
}

async function parseApk(apk: BoundedApk, name: string): Promise<ApkInfo> {
  let manifest;
  try {
    manifest = await apk.getManifestInfo();
    if (!manifest.package) throw new Error('no package');
  } catch (e) {
    if (e instanceof ArchiveError && e.isLimit) throw e;
    throw badRequest('file', 'package.notApk', { name });
  }
  const certs = await apk.getCertificateInfo().catch(limitOr(() => []));
  const cert = certs[0];
  if (!cert) throw badRequest('file', 'package.apkUnsigned', { name });

  const raw = manifest.raw as XmlElement;
  const sdk = raw.children['uses-sdk']?.[0]?.attributes ?? {};
  const permissions = [
    ...new Set(
      (raw.children['uses-permission'] ?? [])
        .map((e) => e.attributes.name)
        .filter((n): n is string => typeof n === 'string'),
    ),
  ];
  const resources = await apk.getResources().catch(limitOr(() => null));
  const resolve = (id: unknown): unknown[] => {
    if (typeof id !== 'number' || !resources) return [];
    try {
      return resources.resolve(id).map((r) => r.value as unknown);
    } catch {
      return [];
    }
  };

  let label = manifest.applicationLabel as unknown;
  if (typeof label !== 'string') label = resolve(label).find((v) => typeof v === 'string');
  const icon = await iconOf(apk, manifest.applicationIcon as unknown, resolve);

  return {
    packageName: String(manifest.package).slice(0, 200),
    versionCode: intOf(manifest.versionCode) ?? 0,
    versionName: String(manifest.versionName ?? manifest.versionCode ?? '').slice(0, 64) || '0',
    label: typeof label === 'string' && label ? label.slice(0, 100) : String(manifest.package),
    minSdk: intOf(sdk.minSdkVersion),
    targetSdk: intOf(sdk.targetSdkVersion),
    permissions,
    certSha256: createHash('sha256').update(cert.bytes).digest('hex'),
    certSubject: [...cert.subject.entries()].map(([k, v]) => `${k}=${v}`).join(', '),
    icon,
  };
}

/**
 * The launcher icon: the manifest's icon resolved through resources.arsc to a png/webp file (the largest one), else
 * the conventional `res/mipmap-<density>/ic_launcher.png` with the highest density. An adaptive icon (xml) has no
 * picture of its own and gives none.
 */
async function iconOf(
  apk: Apk,
  ref: unknown,
  resolve: (id: unknown) => unknown[],
): Promise<{ bytes: Buffer; ext: string } | null> {
  const pictures = (paths: unknown[]) =>
    paths.filter((p): p is string => typeof p === 'string' && /\.(png|webp)$/i.test(p));
  const candidates = [
    ...pictures(typeof ref === 'string' ? [ref] : resolve(ref)).reverse(),
    ...['xxxhdpi', 'xxhdpi', 'xhdpi', 'hdpi', 'mdpi'].flatMap((d) => [
      `res/mipmap-${d}-v4/ic_launcher.png`,
      `res/mipmap-${d}/ic_launcher.png`,
      `res/drawable-${d}-v4/ic_launcher.png`,
      `res/drawable-${d}/ic_launcher.png`,
    ]),
  ];
  for (const p of candidates) {
    const bytes = await apk.extract(p).catch(limitOr(() => null));
    if (bytes && bytes.length > 0 && bytes.length <= 1024 * 1024)
      return { bytes, ext: p.toLowerCase().endsWith('.webp') ? 'webp' : 'png' };
  }
  return null;
}
