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
      'workOrder.repliedTitle',
      'workOrder.askedTitle',
      'workOrder.resolvedTitle',
      'workOrder.customerRepliedTitle',
      'workOrder.reopenedTitle',
      'workOrder.assignedTitle',
    ] as const
  ).map((k) => [MESSAGES[k].en, k]),
);
export const sayTitle = (title: string, lang: 'zh' | 'en') => {
  const key = STORED_TITLES.get(title);
  return key ? renderMessage(lang, key) : title;
};
