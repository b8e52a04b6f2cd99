import { MESSAGE_GROUPS, messageGroupOf, type MessageGroup } from '@cpc/contracts';

export { MESSAGE_GROUPS, messageGroupOf, type MessageGroup };

/** The tag colour of each group of messages. */
export const GROUP_COLOR: Record<MessageGroup, string> = {
  identity: 'green',
  workOrder: 'blue',
  notice: 'purple',
  order: 'gold',
  sim: 'orange',
  device: 'red',
};

/** A link the console can open itself: a path of its own (never another origin). */
export const isConsolePath = (link: string): boolean => /^\/(?!\/)/.test(link);
