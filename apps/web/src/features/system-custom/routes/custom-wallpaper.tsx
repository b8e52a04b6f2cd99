import { ProfileWorkspace } from '../components/profile-workspace';

/** `/systemCustom/customWallpaper`: the customization profiles, with this page's part of the chosen one as the editor. */
export default function CustomWallpaperPage() {
  return <ProfileWorkspace page="customWallpaper" />;
}
