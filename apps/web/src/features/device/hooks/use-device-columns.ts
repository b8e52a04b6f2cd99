import { Grid } from 'antd';
import type { Breakpoint } from 'antd';
import { useCallback, useMemo, useState } from 'react';
import { readStorage, writeStorage } from '@/lib/storage';
import { useSession } from '@/lib/session';

/** The list's columns a user may hide or show; status, name and actions always show. */
export const OPTIONAL_COLUMNS = [
  'paper',
  'battery',
  'signal',
  'simLeft',
  'lastSeen',
  'group',
  'model',
  'firmware',
] as const;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

/**
 * From which width on a column shows when the user has not chosen: what a fleet owner checks first (paper,
 * when last seen, battery, data left) fits beside the group tree and the menu on a 1366 px laptop; the signal
 * and the rest wait for ≥ 1600 px.
 */
export const COLUMN_PRIORITY: Record<OptionalColumn, Breakpoint> = {
  paper: 'md',
  lastSeen: 'md',
  battery: 'xl',
  signal: 'xxl',
  simLeft: 'xl',
  group: 'xxl',
  model: 'xxl',
  firmware: 'xxl',
};

export type ColumnChoice = Partial<Record<OptionalColumn, boolean>>;

const storageKey = (username: string) => `cpc.device.columns.${username || '-'}`;

export function readChoice(username: string): ColumnChoice {
  try {
    const raw = JSON.parse(readStorage('localStorage', storageKey(username)) ?? '{}') as Record<string, unknown>;
    return Object.fromEntries(
      OPTIONAL_COLUMNS.filter((k) => typeof raw[k] === 'boolean').map((k) => [k, raw[k]]),
    ) as ColumnChoice;
  } catch {
    return {};
  }
}

/** The columns on show: the user's own choice (kept per user in this browser), else the priority for the width. */
export function visibleColumns(
  choice: ColumnChoice,
  screens: Partial<Record<Breakpoint, boolean>>,
): Set<OptionalColumn> {
  return new Set(OPTIONAL_COLUMNS.filter((k) => choice[k] ?? !!screens[COLUMN_PRIORITY[k]]));
}

export function useDeviceColumns() {
  const username = useSession((s) => s.username);
  const screens = Grid.useBreakpoint();
  const [choices, setChoices] = useState<Record<string, ColumnChoice>>({});
  const choice = choices[username] ?? readChoice(username);
  const visible = useMemo(() => visibleColumns(choice, screens), [choice, screens]);

  const toggle = useCallback(
    (key: OptionalColumn, show: boolean) => {
      const next = { ...(choices[username] ?? readChoice(username)), [key]: show };
      writeStorage('localStorage', storageKey(username), JSON.stringify(next));
      setChoices((c) => ({ ...c, [username]: next }));
    },
    [choices, username],
  );
  const reset = useCallback(() => {
    writeStorage('localStorage', storageKey(username), '{}');
    setChoices((c) => ({ ...c, [username]: {} }));
  }, [username]);

  return { visible, toggle, reset, customised: Object.keys(choice).length > 0 };
}
