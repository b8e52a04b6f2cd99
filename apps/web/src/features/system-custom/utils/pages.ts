import type { SystemCustomPart } from '@cpc/contracts/system-custom';

/** The six pages of the section (route names under /systemCustom) and the part of a profile each one edits. */
export const PAGE_PARTS = {
  bootAnimation: 'bootAnimation',
  customDesktop: 'desktop',
  customWallpaper: 'wallpaper',
  defaultStartApp: 'defaultStartApp',
  topScreenMode: 'topScreen',
  appLock: 'appLock',
} as const satisfies Record<string, SystemCustomPart>;
export type CustomPage = keyof typeof PAGE_PARTS;

/** The page that edits a part (for the links between the six pages). */
export const pageOfPart = (part: SystemCustomPart): CustomPage =>
  (Object.keys(PAGE_PARTS) as CustomPage[]).find((p) => PAGE_PARTS[p] === part)!;

/** A page's path with the chosen profile kept, so moving between the six pages stays on it. */
export const pagePath = (page: CustomPage, profileId?: number | null) =>
  `/systemCustom/${page}${profileId ? `?profile=${profileId}` : ''}`;

/** The profile id in `?profile=` (0: none chosen). */
export const profileIdOf = (v: string | null): number => (v && /^\d{1,15}$/.test(v) ? Number(v) : 0);
