import type { SystemCustomPart } from '@cpc/contracts/system-custom';
import { appLockEditor } from './app-lock-editor';
import { bootAnimationEditor } from './boot-animation-editor';
import { desktopEditor } from './desktop-editor';
import { startAppEditor } from './start-app-editor';
import { topScreenEditor } from './top-screen-editor';
import type { PartEditorDef } from './types';
import { wallpaperEditor } from './wallpaper-editor';

/** The editor of each part (one per page). */
export const EDITORS: Record<SystemCustomPart, PartEditorDef<never, never, unknown>> = {
  bootAnimation: bootAnimationEditor as never,
  desktop: desktopEditor as never,
  wallpaper: wallpaperEditor as never,
  defaultStartApp: startAppEditor as never,
  topScreen: topScreenEditor as never,
  appLock: appLockEditor as never,
};
