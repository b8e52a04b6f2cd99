import { Breadcrumbs } from '../breadcrumbs';
import type { Arrangement } from './arrangement';
import { FoldButton, ShellHeader, SideBar } from './shell-parts';

/** Float: the side menu as a detached, rounded panel beside the page (no decorative background). */
export const floatLayout = (): Arrangement => ({
  side: <SideBar float />,
  header: (
    <ShellHeader>
      <FoldButton />
      <Breadcrumbs />
    </ShellHeader>
  ),
});
