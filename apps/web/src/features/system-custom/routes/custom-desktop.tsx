import { ProfileWorkspace } from '../components/profile-workspace';

/** `/systemCustom/customDesktop`: the customization profiles, with this page's part of the chosen one as the editor. */
export default function CustomDesktopPage() {
  return <ProfileWorkspace page="customDesktop" />;
}
