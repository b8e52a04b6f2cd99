import type { MessageFilter, MessageItem } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { audit, type AuditEntry } from '../../lib/audit.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { notFound } from '../../plugins/errors.ts';
import { InboxRepository, type MessageRow, type Owner } from './repository.ts';
import { sayTitle, storedTitlesSaying } from './titles.ts';

/** Who acts on their inbox, and what the audit log records of them. */
export interface InboxCaller extends Owner {
  actor: Pick<AuditEntry, 'tenantId' | 'userId' | 'ip'>;
}

/** A message as its reader reads it: a system message's title (stored as its en text) in the reader's language. */
const view = (r: MessageRow, lang: 'zh' | 'en'): MessageItem => ({
  id: r.id,
  kind: r.kind,
  title: sayTitle(r.title, lang),
  body: r.body,
  link: r.link,
  readAt: r.read_at ? new Date(r.read_at).toISOString() : null,
  createdAt: new Date(r.created_at).toISOString(),
});

/**
 * The message centre's calls (issue 14): every user's inbox. Every statement is pinned to the caller's tenant and
 * their own user id: another user's message does not exist for them (404 on detail, ignored by read and delete).
 * The user's other consoles hear of every change (`message` event).
 */
export class InboxService {
  private repo: InboxRepository;

  constructor(
    private db: Db,
    private events?: Pick<LiveEvents, 'publish'>,
  ) {
    this.repo = new InboxRepository(db);
  }

  private changed(o: Owner) {
    this.events?.publish(o.tenantId, { type: 'message', data: { userId: o.userId } });
  }

  /** A page of the caller's messages that pass the filter, newest first. */
  async list(o: Owner, f: MessageFilter, page: { pageNo: number; pageSize: number }, lang: 'zh' | 'en') {
    const titles = f.keyword ? storedTitlesSaying(f.keyword) : [];
    const { rows, total } = await this.repo.listPage(o, f, titles, page);
    return { list: rows.map((r) => view(r, lang)), total };
  }

  /** One of the caller's messages; reading it marks it read. */
  async detail(o: Owner, id: number, lang: 'zh' | 'en'): Promise<MessageItem> {
    const row = await this.repo.findMine(o, id);
    if (!row) throw notFound('message');
    if (!row.read_at) {
      const readAt = await this.repo.markOneRead(o, row.id);
      if (readAt) {
        row.read_at = readAt;
        this.changed(o);
      }
    }
    return view(row, lang);
  }

  unreadCount(o: Owner): Promise<number> {
    return this.repo.unreadCount(o);
  }

  /** Marks some of the caller's messages read; how many changed. */
  async read(o: Owner, ids: number[]): Promise<number> {
    const updated = await this.repo.markRead(o, ids);
    if (updated) this.changed(o);
    return updated;
  }

  /** Marks all the caller's messages read (or those of one group), audited; how many changed. */
  async readAll(u: InboxCaller, group: string | undefined): Promise<number> {
    const updated = await this.repo.markAllRead(u, group);
    if (updated) {
      await audit(this.db, {
        ...u.actor,
        action: 'message.readAll',
        resource: 'message',
        result: 'ok',
        details: { group: group ?? 'all', updated },
        changes: { read: { before: `${updated} unread`, after: 'read' } },
      });
      this.changed(u);
    }
    return updated;
  }

  /** Deletes some of the caller's messages, audited; how many went. */
  async delete(u: InboxCaller, ids: number[]): Promise<number> {
    const gone = await this.repo.deleteMine(u, ids);
    if (gone.length) {
      await audit(this.db, {
        ...u.actor,
        action: 'message.delete',
        resource: 'message',
        resourceId: gone.map((g) => g.id).join(','),
        result: 'ok',
        changes: {
          messages: { before: gone.map((g) => `${g.id} ${g.kind}: ${g.title}`), after: null },
        },
      });
      this.changed(u);
    }
    return gone.length;
  }
}
