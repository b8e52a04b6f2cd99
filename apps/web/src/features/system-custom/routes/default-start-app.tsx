import { ProfileWorkspace } from '../components/profile-workspace';

/** `/systemCustom/defaultStartApp`: the customization profiles, with this page's part of the chosen one as the editor. */
export default function DefaultStartAppPage() {
  return <ProfileWorkspace page="defaultStartApp" />;
}
