import { MESSAGES, renderMessage, type PlainKey } from '@cpc/contracts/messages';

/** The titles of system messages, stored as their en text (programs read it): said in the reader's language by key. */
export const STORED_TITLES = new Map<string, PlainKey>(
  (
    [
      'identity.approvedTitle',
      'identity.failedTitle',
      'flowRate.lowTitle',
      'flowRate.exhaustedTitle',
      'flowRate.expiringTitle',
      'flowRate.expiredTitle',
      'inbox.orderFulfilledTitle',
      'inbox.deviceFaultOut',
      'inbox.deviceFaultCoverOpen',
      'inbox.deviceFaultOverheat',
      'workOrder.repliedTitle',
      'workOrder.askedTitle',
      'workOrder.resolvedTitle',
      'workOrder.customerRepliedTitle',
      'workOrder.reopenedTitle',
      'workOrder.assignedTitle',
      'fence.enteredTitle',
      'fence.leftTitle',
    ] as const
  ).map((k) => [MESSAGES[k].en, k]),
);
export const sayTitle = (title: string, lang: 'zh' | 'en') => {
  const key = STORED_TITLES.get(title);
  return key ? renderMessage(lang, key) : title;
};

/** The stored titles (en text) that say `keyword` in either language: the keyword filter finds a title as it is read. */
export const storedTitlesSaying = (keyword: string): string[] => {
  const k = keyword.toLowerCase();
  return [...STORED_TITLES]
    .filter(([, key]) => MESSAGES[key].en.toLowerCase().includes(k) || MESSAGES[key].zh.toLowerCase().includes(k))
    .map(([en]) => en);
};
