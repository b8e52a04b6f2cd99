import { Breadcrumbs } from '../breadcrumbs';
import type { Arrangement, ArrangementContext } from './arrangement';
import { FoldButton, MobileSideBar, ShellHeader, SideBar } from './shell-parts';

/** Vertical (SPEC §2, the default and the mobile layout): side menu, header with breadcrumbs. */
export const verticalLayout = ({ isMobile }: ArrangementContext): Arrangement => ({
  side: isMobile ? <MobileSideBar /> : <SideBar />,
  header: (
    <ShellHeader>
      <FoldButton />
      {!isMobile && <Breadcrumbs />}
    </ShellHeader>
  ),
});
