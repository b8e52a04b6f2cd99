import type { PlainKey } from '@cpc/contracts/messages';
import { MESSAGES } from '@cpc/contracts/messages';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { InboxRepository } from './repository.ts';

/** A message for one user's inbox (the message centre). */
export interface NewMessage {
  tenantId: number;
  userId: number;
  /** What it is about, dotted: 'identity.reviewed', 'sim.low', 'workOrder.replied', 'order.paid', … */
  kind: string;
  /** A key of the server's message catalogue: stored as its en text, said in the reader's language on reading. */
  title: PlainKey;
  /** Plain text (never HTML): what the message says beyond its title. */
  body?: string;
  /** The console path it leads to ('/workOrder/detail?id=12'), or ''. */
  link?: string;
}

/**
 * Puts messages into their users' inboxes and tells each user's consoles (`message` event) after the insert.
 * `db` may be a transaction: then call `announce` after it commits (the returned function does it).
 */
export async function sendMessages(
  db: Kysely<Database>,
  messages: NewMessage[],
): Promise<(events: Pick<LiveEvents, 'publish'> | undefined) => void> {
  if (!messages.length) return () => {};
  await new InboxRepository(db).insert(
    messages.map((m) => ({
      tenant_id: m.tenantId,
      user_id: m.userId,
      kind: m.kind,
      title: MESSAGES[m.title].en,
      body: m.body ?? '',
      link: m.link ?? '',
      read_at: null,
    })),
  );
  return (events) => {
    const seen = new Set<string>();
    for (const m of messages) {
      const k = `${m.tenantId}:${m.userId}`;
      if (seen.has(k)) continue;
      seen.add(k);
      events?.publish(m.tenantId, { type: 'message', data: { userId: m.userId } });
    }
  };
}
