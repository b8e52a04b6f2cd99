/** The upgrade module's statements: releases and their books (`releases.ts`), and what the consoles read (`reads.ts`). */
export {
  UpgradeRepository,
  type PackageRow,
  type ReleaseDeviceSeed,
  type ReleaseRow,
  type TargetQuery,
} from './releases.ts';
export { UpgradeReadRepository, type PageQuery, type WaveStateCount } from './reads.ts';
