import { Logo } from '../logo';
import type { Arrangement } from './arrangement';
import { useShell } from './shell-context';
import { NavBar, ShellHeader, SideBar } from './shell-parts';

function CommonTopBar() {
  const { colors } = useShell();
  return (
    <ShellHeader surface="menu" className="cpc-header--top" testId="top-bar">
      <div className="cpc-header-logo">
        <Logo dark={colors.darkMenu} />
      </div>
    </ShellHeader>
  );
}

/**
 * Common: a header across the top with the logo and the tools, the side menu below it, and a slim bar
 * with the fold button and breadcrumbs above the page. Its header scrolls away (no fixed header).
 */
export const commonLayout = (): Arrangement => ({
  top: <CommonTopBar />,
  side: <SideBar logo={false} />,
  header: <NavBar fold />,
});
