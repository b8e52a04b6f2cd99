import { AUTH_STATUS, type AuthenticateState, type IdentityBody, type IdentityView, type Paged } from '@cpc/contracts';
import { MESSAGES } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { changedFields } from '../../lib/audit.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { IdentityRepository, type SubmissionRow as Row } from './repository.ts';

/** Identity authentication (DESIGN §3): status 0 → 2 → 1, or 2 → 3 → 2 again. */
export class IdentityService {
  private repo: IdentityRepository;

  constructor(
    db: Db,
    private storage: ObjectStorage,
    private events?: LiveEvents,
  ) {
    this.repo = new IdentityRepository(db);
  }

  /** Staff consoles live in the platform tenant: its review queue changes when a customer submits or staff decide. */
  private async notifyStaff(data: { id: number; tenantId: number; status: number }): Promise<void> {
    if (!this.events) return;
    for (const id of await this.repo.platformTenantIds()) this.events.publish(id, { type: 'identity', data });
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
    const latest = await this.repo.latestOfTenant(user.tenantId);
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
      if (!(await this.repo.hasObject(user.tenantId, key))) throw badRequest(field, 'upload.imageFirst');
    }
    const submissionId = await this.repo.transaction(async (tx) => {
      const authStatus = await tx.lockTenantStatus(user.tenantId);
      if (authStatus === AUTH_STATUS.waiting) throw new AppError(400, 'identity.alreadyWaiting');
      if (authStatus === AUTH_STATUS.authenticated) throw new AppError(400, 'identity.alreadyAuthenticated');
      const submissionId = await tx.insertSubmission(user.tenantId, {
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
      });
      await tx.setTenantStatus(user.tenantId, { auth_status: AUTH_STATUS.waiting });
      // the names the customer gave, not its id or licence numbers nor its images
      await tx.writeAudit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'identity.submit',
        result: 'ok',
        resource: 'tenant',
        resourceId: user.tenantId,
        changes: changedFields(
          { authStatus },
          {
            authStatus: AUTH_STATUS.waiting,
            type: body.type,
            ...(body.type === 'individual' ? { realName: body.realName } : { companyName: body.companyName }),
          },
        ),
        details: { submissionId },
      });
      return submissionId;
    });
    await this.notifyStaff({ id: submissionId, tenantId: user.tenantId, status: AUTH_STATUS.waiting });
    return this.state({ ...user, authStatus: AUTH_STATUS.waiting });
  }

  async list(q: { pageNo: number; pageSize: number; status?: number; keyword?: string }): Promise<Paged<IdentityView>> {
    const { rows, total } = await this.repo.list(q);
    return { list: rows.map((r) => this.view(r)), total };
  }

  async review(
    staff: AuthUser,
    id: number,
    decision: 'approve' | 'reject',
    reason: string | null,
    ip: string,
  ): Promise<IdentityView> {
    const decided = await this.repo.transaction(async (tx) => {
      const s = await tx.lockSubmission(id);
      if (!s) throw notFound('identity submission');
      if (s.status !== AUTH_STATUS.waiting) throw new AppError(400, 'identity.notWaiting');
      const status = decision === 'approve' ? AUTH_STATUS.authenticated : AUTH_STATUS.failed;
      await tx.decide(id, { status, reason, reviewed_by: staff.id, reviewed_at: new Date() });
      await tx.setTenantStatus(s.tenant_id, {
        auth_status: status,
        ...(decision === 'approve'
          ? { attest_name: (s.kind === 'individual' ? s.real_name : s.company_name) ?? '' }
          : {}),
      });
      await tx.insertMessage({
        tenant_id: s.tenant_id,
        user_id: s.user_id,
        kind: 'identity.reviewed',
        title: MESSAGES[decision === 'approve' ? 'identity.approvedTitle' : 'identity.failedTitle'].en,
        body: reason ?? '',
        link: '/person/info',
      });
      await tx.writeAudit({
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
    return this.view(await this.repo.findWithAccount(id));
  }
}
