import { ProfileWorkspace } from '../components/profile-workspace';

/** `/systemCustom/topScreenMode`: the customization profiles, with this page's part of the chosen one as the editor. */
export default function TopScreenModePage() {
  return <ProfileWorkspace page="topScreenMode" />;
}
