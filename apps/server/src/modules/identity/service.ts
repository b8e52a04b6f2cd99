import { sql } from 'kysely';
import { AUTH_STATUS, type AuthenticateState, type IdentityBody, type IdentityView, type Paged } from '@cpc/contracts';
import { MESSAGES } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { IdentitySubmissionsTable } from '../../db/schema.ts';
import type { Selectable } from 'kysely';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';

type Row = Selectable<IdentitySubmissionsTable> & { username: string; mobile: string | null };

/** Identity authentication (DESIGN §3): status 0 → 2 → 1, or 2 → 3 → 2 again. */
export class IdentityService {
  constructor(
    private db: Db,
    private storage: ObjectStorage,
    private events?: LiveEvents,
  ) {}

  /** Staff consoles live in the platform tenant: its review queue changes when a customer submits or staff decide. */
  private async notifyStaff(data: { id: number; tenantId: number; status: number }): Promise<void> {
    if (!this.events) return;
    const platforms = await this.db.selectFrom('tenants').select('id').where('kind', '=', 'platform').execute();
    for (const p of platforms) this.events.publish(p.id, { type: 'identity', data });
  }

  private view(r: Row): IdentityView {
    const keys = { idFront: r.id_front_key, idBack: r.id_back_key, licence: r.licence_key };
    const images = Object.fromEntries(
      Object.entries(keys)
        .filter(([, k]) => k)
        .map(([n, k]) => [n, this.storage.signedUrl(k as string)]),
    );
    return {
      id: r.id,
      tenantId: r.tenant_id,
      type: r.kind,
      status: r.status,
      reason: r.reason,
      realName: r.real_name,
      idNumber: r.id_number,
      companyName: r.company_name,
      creditCode: r.credit_code,
      legalPerson: r.legal_person,
      images,
      username: r.username,
      mobile: r.mobile,
      submittedAt: r.created_at.toISOString(),
      reviewedAt: r.reviewed_at ? new Date(r.reviewed_at).toISOString() : null,
    };
  }

  async state(user: AuthUser): Promise<AuthenticateState> {
    const latest = await user.scope
      .selectFrom('identity_submissions')
      .innerJoin('users as u', 'u.id', 'identity_submissions.user_id')
      .selectAll('identity_submissions')
      .select(['u.username', 'u.mobile'])
      .orderBy('identity_submissions.created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const type = user.tenantKind === 'enterprise' ? 'enterprise' : 'individual';
    return { status: user.authStatus, type, submission: latest ? this.view(latest) : null };
  }

  /** Who may submit: a customer's main account, for its tenant. Checked before the body is read. */
  static assertMaySubmit(user: AuthUser): void {
    if (user.tenantKind === 'platform') throw new AppError(403, 'identity.platformNeedsNone');
    if (user.isSuper !== 1) throw new AppError(403, 'identity.mainAccountOnly');
  }

  async submit(user: AuthUser, body: IdentityBody, ip: string): Promise<AuthenticateState> {
    IdentityService.assertMaySubmit(user);
    if (body.type !== user.tenantKind) throw badRequest('type', 'identity.wrongKind', { kind: user.tenantKind });
    const images =
      body.type === 'individual'
        ? { idFrontKey: body.idFrontKey, idBackKey: body.idBackKey }
        : { licenceKey: body.licenceKey };
    for (const [field, key] of Object.entries(images)) {
      const owned = await user.scope.selectFrom('objects').select('mime').where('key', '=', key).executeTakeFirst();
      if (!owned) throw badRequest(field, 'upload.imageFirst');
    }
    const submissionId = await user.scope.transaction(async (tx) => {
      const tenant = await tx.db
        .selectFrom('tenants')
        .select('auth_status')
        .where('id', '=', user.tenantId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (tenant.auth_status === AUTH_STATUS.waiting) throw new AppError(400, 'identity.alreadyWaiting');
      if (tenant.auth_status === AUTH_STATUS.authenticated) throw new AppError(400, 'identity.alreadyAuthenticated');
      const inserted = await tx
        .insertInto('identity_submissions', {
          user_id: user.id,
          kind: body.type,
          real_name: body.type === 'individual' ? body.realName : null,
          id_number: body.type === 'individual' ? body.idNumber.toUpperCase() : null,
          id_front_key: body.type === 'individual' ? body.idFrontKey : null,
          id_back_key: body.type === 'individual' ? body.idBackKey : null,
          company_name: body.type === 'enterprise' ? body.companyName : null,
          credit_code: body.type === 'enterprise' ? body.creditCode : null,
          legal_person: body.type === 'enterprise' ? body.legalPerson : null,
          licence_key: body.type === 'enterprise' ? body.licenceKey : null,
          status: AUTH_STATUS.waiting,
          reason: null,
          reviewed_by: null,
          reviewed_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await tx.db
        .updateTable('tenants')
        .set({ auth_status: AUTH_STATUS.waiting })
        .where('id', '=', user.tenantId)
        .execute();
      // the names the customer gave, not its id or licence numbers nor its images
      await audit(tx.db, {
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'identity.submit',
        result: 'ok',
        resource: 'tenant',
        resourceId: user.tenantId,
        changes: changedFields(
          { authStatus: tenant.auth_status },
          {
            authStatus: AUTH_STATUS.waiting,
            type: body.type,
            ...(body.type === 'individual' ? { realName: body.realName } : { companyName: body.companyName }),
          },
        ),
        details: { submissionId: inserted.id },
      });
      return inserted.id;
    });
    await this.notifyStaff({ id: submissionId, tenantId: user.tenantId, status: AUTH_STATUS.waiting });
    return this.state({ ...user, authStatus: AUTH_STATUS.waiting });
  }

  private base() {
    return this.db
      .selectFrom('identity_submissions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .selectAll('s')
      .select(['u.username', 'u.mobile']);
  }

  async list(q: { pageNo: number; pageSize: number; status?: number; keyword?: string }): Promise<Paged<IdentityView>> {
    let query = this.base();
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
    return { list: rows.map((r) => this.view(r)), total: Number(total.n) };
  }

  async review(
    staff: AuthUser,
    id: number,
    decision: 'approve' | 'reject',
    reason: string | null,
    ip: string,
  ): Promise<IdentityView> {
    const decided = await this.db.transaction().execute(async (trx) => {
      const s = await trx
        .selectFrom('identity_submissions')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!s) throw notFound('identity submission');
      if (s.status !== AUTH_STATUS.waiting) throw new AppError(400, 'identity.notWaiting');
      const status = decision === 'approve' ? AUTH_STATUS.authenticated : AUTH_STATUS.failed;
      await trx
        .updateTable('identity_submissions')
        .set({ status, reason, reviewed_by: staff.id, reviewed_at: new Date() })
        .where('id', '=', id)
        .execute();
      await trx
        .updateTable('tenants')
        .set({
          auth_status: status,
          ...(decision === 'approve'
            ? { attest_name: (s.kind === 'individual' ? s.real_name : s.company_name) ?? '' }
            : {}),
        })
        .where('id', '=', s.tenant_id)
        .execute();
      await trx
        .insertInto('messages')
        .values({
          tenant_id: s.tenant_id,
          user_id: s.user_id,
          kind: 'identity.reviewed',
          title: MESSAGES[decision === 'approve' ? 'identity.approvedTitle' : 'identity.failedTitle'].en,
          body: reason ?? '',
          link: '/person/info',
          read_at: null,
        })
        .execute();
      await audit(trx, {
        tenantId: staff.tenantId,
        userId: staff.id,
        ip,
        action: `identity.${decision}`,
        result: 'ok',
        resource: 'identity_submission',
        resourceId: id,
        changes: changedFields({ status: s.status, reason: s.reason }, { status, reason }),
        details: { customerTenantId: s.tenant_id },
      });
      return { id, tenantId: s.tenant_id, status, userId: s.user_id };
    });
    // the customer's console counts its unread messages again (the bell and any menu badge of them)
    this.events?.publish(decided.tenantId, { type: 'message', data: { userId: decided.userId } });
    await this.notifyStaff({ id: decided.id, tenantId: decided.tenantId, status: decided.status });
    const row = await this.base().where('s.id', '=', id).executeTakeFirstOrThrow();
    return this.view(row);
  }
}
