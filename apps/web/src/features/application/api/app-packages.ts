/** The package catalogue as the "My applications" page uses it (the calls and hooks live in lib, shared). */
export {
  useAppGroups,
  useCreatePackage,
  useDeletePackage,
  useInvalidatePackages,
  usePackageDetail,
  usePackageList,
} from '@/lib/packages';
export type { AppGroup, PackageDetail, PackageItem } from '@cpc/contracts';
