import { Logo } from '../logo';
import { TopMenu } from '../top-menu';
import type { Arrangement } from './arrangement';
import { useShell } from './shell-context';
import { NavBar, ShellHeader } from './shell-parts';

function HorizontalBar() {
  const { colors } = useShell();
  return (
    <ShellHeader surface="menu">
      <div className="cpc-header-logo">
        <Logo dark={colors.darkMenu} />
      </div>
      <TopMenu dark={colors.darkMenu} />
    </ShellHeader>
  );
}

/** Horizontal: logo and the whole menu across the header, the breadcrumbs below it, no side bar. */
export const horizontalLayout = (): Arrangement => ({
  header: (
    <>
      <HorizontalBar />
      <NavBar />
    </>
  ),
});
