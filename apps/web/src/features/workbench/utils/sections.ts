import type { WorkbenchSectionKey } from '@cpc/contracts/workbench';

/** How urgent a section is, for its colour: `danger` needs action now, `warning` soon, `info` to read. */
export type SectionTone = 'danger' | 'warning' | 'info';

/** Which code list a section's item tags come from (their words are `workbench.tag.<group>.<code>`). */
export type TagGroup = 'priority' | 'workOrderState' | 'simState' | 'paper' | 'identityKind';

interface SectionMeta {
  tone: SectionTone;
  tags: TagGroup | null;
}

/** Each section's look; the order is the order of the cards (most pressing first within a role). */
export const SECTION_META: Record<WorkbenchSectionKey, SectionMeta> = {
  workOrderWaiting: { tone: 'danger', tags: 'priority' },
  workOrderUnread: { tone: 'warning', tags: 'workOrderState' },
  deviceOffline: { tone: 'danger', tags: null },
  deviceFault: { tone: 'warning', tags: 'paper' },
  simLow: { tone: 'danger', tags: 'simState' },
  simExpiring: { tone: 'warning', tags: null },
  notices: { tone: 'info', tags: null },
  workOrderOverdue: { tone: 'danger', tags: 'priority' },
  workOrderUnassigned: { tone: 'warning', tags: 'priority' },
  identityWaiting: { tone: 'warning', tags: 'identityKind' },
  refundPending: { tone: 'danger', tags: null },
};

const ORDER = Object.keys(SECTION_META) as WorkbenchSectionKey[];

/** Sections in the order the cards show them: those with something to do first, then the quiet ones. */
export function orderSections<T extends { key: WorkbenchSectionKey; count: number }>(sections: readonly T[]): T[] {
  return [...sections].sort(
    (a, b) => Number(b.count > 0) - Number(a.count > 0) || ORDER.indexOf(a.key) - ORDER.indexOf(b.key),
  );
}

/** The total of what needs doing (announcements are to read, not to do: left out). */
export const pendingTotal = (sections: readonly { key: WorkbenchSectionKey; count: number }[]): number =>
  sections.filter((s) => s.key !== 'notices').reduce((n, s) => n + s.count, 0);
