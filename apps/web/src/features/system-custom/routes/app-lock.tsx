import { ProfileWorkspace } from '../components/profile-workspace';

/** `/systemCustom/appLock`: the customization profiles, with this page's part of the chosen one as the editor. */
export default function AppLockPage() {
  return <ProfileWorkspace page="appLock" />;
}
