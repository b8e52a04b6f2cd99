import { ProfileWorkspace } from '../components/profile-workspace';

/** `/systemCustom/bootAnimation`: the customization profiles, with this page's part of the chosen one as the editor. */
export default function BootAnimationPage() {
  return <ProfileWorkspace page="bootAnimation" />;
}
