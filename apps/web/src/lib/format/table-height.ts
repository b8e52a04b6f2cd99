import { useEffect, useState } from 'react';

/** SPEC §9: what the page around a table takes (header, tabs, search bar, pagination, footer). */
export const TABLE_HEIGHT_OFFSET = 291;
/** SPEC §9: each extra row of filters above the table takes this much more. */
export const TABLE_EXTRA_ROW_HEIGHT = 60;

/**
 * Height for a table's scroll area: window height − 291 − 60 × extra filter rows (SPEC §9). Never below
 * `min`, so a very short window still shows a few rows.
 */
export function tableHeight(extraRows = 0, windowHeight: number = window.innerHeight, min = 0): number {
  const rows = Math.max(0, Math.floor(extraRows));
  return Math.max(min, windowHeight - TABLE_HEIGHT_OFFSET - TABLE_EXTRA_ROW_HEIGHT * rows);
}

/** `tableHeight` that follows the window as it is resized. */
export function useTableHeight(extraRows = 0, min = 0): number {
  const [height, setHeight] = useState(() => tableHeight(extraRows, window.innerHeight, min));
  useEffect(() => {
    const update = () => setHeight(tableHeight(extraRows, window.innerHeight, min));
    update();
    window.addEventListener('resize', update);
    return () => window.removeEventListener('resize', update);
  }, [extraRows, min]);
  return height;
}
