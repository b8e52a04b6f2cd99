import type { NoticeManageItem } from '@cpc/contracts/notice';

/** What staff see of a notice's life: its state, with a published one told apart by its times. */
export type NoticePhase = 'draft' | 'scheduled' | 'published' | 'ended' | 'withdrawn';

export function phaseOf(n: Pick<NoticeManageItem, 'state' | 'publishAt' | 'endsAt'>, now = Date.now()): NoticePhase {
  if (n.state !== 'published') return n.state;
  if (n.publishAt && Date.parse(n.publishAt) > now) return 'scheduled';
  if (n.endsAt && Date.parse(n.endsAt) <= now) return 'ended';
  return 'published';
}

export const PHASE_COLORS: Record<NoticePhase, string> = {
  draft: 'default',
  scheduled: 'gold',
  published: 'green',
  ended: 'default',
  withdrawn: 'red',
};

/** Which actions a notice allows in its state (the server refuses the others). */
export const canEdit = (n: Pick<NoticeManageItem, 'state'>) => n.state !== 'withdrawn';
export const canPublish = (n: Pick<NoticeManageItem, 'state'>) => n.state === 'draft';
export const canWithdraw = (n: Pick<NoticeManageItem, 'state'>) => n.state === 'published';
export const canDelete = (n: Pick<NoticeManageItem, 'state'>) => n.state !== 'published';
