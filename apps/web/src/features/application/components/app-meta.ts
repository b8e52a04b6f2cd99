import type { ApkMeta, PackageItem } from '@cpc/contracts';

/** An app package's meta as the server wrote it (absent fields read as empty). */
export function apkMetaOf(p: PackageItem): ApkMeta {
  const m = p.meta as Partial<ApkMeta>;
  return {
    label: m.label ?? p.name,
    minSdk: m.minSdk ?? null,
    targetSdk: m.targetSdk ?? null,
    permissions: Array.isArray(m.permissions) ? m.permissions : [],
    certSha256: m.certSha256 ?? '',
    certSubject: m.certSubject ?? '',
    iconKey: m.iconKey ?? null,
    downgrade: m.downgrade === true,
  };
}
