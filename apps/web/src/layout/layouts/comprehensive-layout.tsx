import { findNode } from '../menu-model';
import { TopMenu } from '../top-menu';
import { useMenu } from '../use-menu';
import type { Arrangement } from './arrangement';
import { useShell } from './shell-context';
import { FoldButton, NavBar, ShellHeader, SideBar } from './shell-parts';

/** The side bar holds the children of the first-level item the header has selected. */
function ComprehensiveSideBar() {
  const menu = useMenu();
  const active = menu.activeTop ? findNode(menu.nodes, menu.activeTop) : undefined;
  return <SideBar nodes={active ? (active.children ?? [active]) : undefined} />;
}

function ComprehensiveHeader() {
  const shell = useShell();
  return (
    <ShellHeader>
      <FoldButton />
      <TopMenu depth={1} dark={shell.headerOnMenu && shell.colors.darkMenu} />
    </ShellHeader>
  );
}

/** Comprehensive: the first level across the header, the selected one's children in the side menu, the breadcrumbs below. */
export const comprehensiveLayout = (): Arrangement => ({
  side: <ComprehensiveSideBar />,
  header: (
    <>
      <ComprehensiveHeader />
      <NavBar />
    </>
  ),
});
