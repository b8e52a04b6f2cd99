import { Breadcrumbs } from '../breadcrumbs';
import { ColumnSide } from '../column-menu';
import type { Arrangement } from './arrangement';
import { FoldButton, ShellHeader } from './shell-parts';

/** Column: an icon column of the first level and a second column of the selected item's children. */
export const columnLayout = (): Arrangement => ({
  side: <ColumnSide />,
  header: (
    <ShellHeader>
      <FoldButton />
      <Breadcrumbs />
    </ShellHeader>
  ),
});
