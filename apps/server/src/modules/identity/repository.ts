import { sql, type Insertable, type Selectable } from 'kysely';
import { MESSAGES } from '@cpc/contracts/messages';
import type { IdentitySubmissions } from '../../db/generated.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { audit, type AuditEntry } from '../../lib/audit.ts';
import { Repository } from '../../db/repository.ts';

/** A submission with the username and mobile of the account that sent it. */
export type SubmissionRow = Selectable<IdentitySubmissions> & { username: string; mobile: string | null };

/** What a new submission holds (its tenant comes from the tenant it is filed for). */
export type SubmissionValues = Omit<Insertable<IdentitySubmissions>, 'tenant_id'>;

/** A review's decision as the submission keeps it. */
export interface Decision {
  status: number;
  reason: string | null;
  reviewed_by: number;
  reviewed_at: Date;
}

/** A message to the customer's inbox (the `messages` table of the inbox module). */
export interface MessageValues {
  tenant_id: number;
  user_id: number;
  kind: string;
  title: string;
  body: string;
  link: string;
}

/**
 * Every statement of identity authentication: `identity_submissions`, the tenant's `auth_status` and attested
 * name, the check that an image is the tenant's own object, the inbox message a review sends and the system log
 * entries written inside the same transactions.
 */
export class IdentityRepository extends Repository {
  /** The ids of the platform tenants (where the staff consoles live). */
  async platformTenantIds(): Promise<number[]> {
    const rows = await this.db.selectFrom('tenants').select('id').where('kind', '=', 'platform').execute();
    return rows.map((r) => r.id);
  }

  /** The tenant's newest submission, or undefined. */
  latestOfTenant(tenantId: number): Promise<SubmissionRow | undefined> {
    return new TenantScope(this.db, tenantId)
      .selectFrom('identity_submissions')
      .innerJoin('users as u', 'u.id', 'identity_submissions.user_id')
      .selectAll('identity_submissions')
      .select(['u.username', 'u.mobile'])
      .orderBy('identity_submissions.created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Whether `key` is an object the tenant uploaded. */
  async hasObject(tenantId: number, key: string): Promise<boolean> {
    const owned = await new TenantScope(this.db, tenantId)
      .selectFrom('objects')
      .select('mime')
      .where('key', '=', key)
      .executeTakeFirst();
    return owned !== undefined;
  }

  /** The tenant's authentication status, its row locked until the transaction ends. */
  async lockTenantStatus(tenantId: number): Promise<number> {
    const tenant = await this.db
      .selectFrom('tenants')
      .select('auth_status')
      .where('id', '=', tenantId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    return tenant.auth_status;
  }

  /** Files a submission for the tenant; returns its id. */
  async insertSubmission(tenantId: number, values: SubmissionValues): Promise<number> {
    const inserted = await new TenantScope(this.db, tenantId)
      .insertInto('identity_submissions', values)
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  /** Sets the tenant's authentication status (and, approved, the name it is attested under). */
  async setTenantStatus(tenantId: number, values: { auth_status: number; attest_name?: string }): Promise<void> {
    await this.db.updateTable('tenants').set(values).where('id', '=', tenantId).execute();
  }

  /** One system log entry, in this repository's transaction when it has one. */
  writeAudit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }

  /** A page of submissions (by status; by username, mobile, real or company name), newest first; how many match. */
  async list(q: { pageNo: number; pageSize: number; status?: number; keyword?: string }) {
    let query = this.withAccount();
    if (q.status !== undefined) query = query.where('s.status', '=', q.status);
    if (q.keyword) {
      const like = `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`;
      query = query.where((eb) =>
        eb.or([
          eb('u.username', 'ilike', like),
          eb('u.mobile', 'like', like),
          eb('s.real_name', 'ilike', like),
          eb('s.company_name', 'ilike', like),
        ]),
      );
    }
    const [rows, total] = await Promise.all([
      query
        .orderBy('s.created_at', 'desc')
        .orderBy('s.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query
        .clearSelect()
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** One submission with its account's names (throws when there is none). */
  findWithAccount(id: number): Promise<SubmissionRow> {
    return this.withAccount().where('s.id', '=', id).executeTakeFirstOrThrow();
  }

  /** One submission, its row locked until the transaction ends; undefined when there is none. */
  lockSubmission(id: number) {
    return this.db.selectFrom('identity_submissions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  async decide(id: number, decision: Decision): Promise<void> {
    await this.db.updateTable('identity_submissions').set(decision).where('id', '=', id).execute();
  }

  /** Puts a message into the customer's inbox, unread. */
  async insertMessage(values: MessageValues): Promise<void> {
    await this.db
      .insertInto('messages')
      .values({ ...values, read_at: null })
      .execute();
  }

  private withAccount() {
    return this.db
      .selectFrom('identity_submissions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .selectAll('s')
      .select(['u.username', 'u.mobile']);
  }
}

const reviewed = new Date('2026-03-02T09:30:00Z');

export const identityQueries = defineQueries(IdentityRepository, {
  platformTenantIds: [[]],
  latestOfTenant: [[7]],
  hasObject: [[7, 'tenants/7/images/2026/03/idcard-front.jpg']],
  lockTenantStatus: [{ args: [7], results: [[{ auth_status: 0 }]] }],
  insertSubmission: [
    {
      args: [
        7,
        {
          user_id: 41,
          kind: 'enterprise',
          company_name: 'Acme Printing Ltd',
          credit_code: '91310000MA1FL4XX2K',
          legal_person: 'Li Wei',
          licence_key: 'tenants/7/images/2026/03/licence.jpg',
          status: 2,
          reason: null,
          reviewed_by: null,
          reviewed_at: null,
        },
      ],
      results: [[{ id: 15 }]],
    },
  ],
  setTenantStatus: [
    [7, { auth_status: 2 }],
    [7, { auth_status: 1, attest_name: 'Acme Printing Ltd' }],
  ],
  writeAudit: [
    [
      {
        tenantId: 1,
        userId: 1,
        ip: '203.0.113.9',
        action: 'identity.approve',
        result: 'ok',
        resource: 'identity_submission',
        resourceId: 15,
        changes: { status: { before: 2, after: 1 } },
        details: { customerTenantId: 7 },
      },
    ],
  ],
  list: [[{ pageNo: 1, pageSize: 20 }], [{ pageNo: 1, pageSize: 20, status: 2, keyword: '138' }]],
  findWithAccount: [[15]],
  lockSubmission: [[15]],
  decide: [[15, { status: 1, reason: null, reviewed_by: 1, reviewed_at: reviewed }]],
  insertMessage: [
    [
      {
        tenant_id: 7,
        user_id: 41,
        kind: 'identity.reviewed',
        title: MESSAGES['identity.approvedTitle'].en,
        body: '',
        link: '/person/info',
      },
    ],
  ],
});
