import { sql } from 'kysely';
import { PERMISSIONS } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { defineQueries, skip } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { audit, type AuditEntry } from '../../../lib/audit.ts';
import { inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { assertOwnObjects } from '../../../lib/rich-html.ts';
import { sendMessages, type NewMessage } from '../../inbox/index.ts';
import { DEPARTMENT_ACCESS } from './samples.ts';
import { escapeLike } from './types.ts';
import { countDevicesOf } from '../../device/index.ts';

/**
 * The work-order statements on other sections' tables: the devices, (print) orders and uploaded objects an order
 * names, the users and tenants it involves, the inbox's messages and the system log. WorkOrderRepository holds one
 * as `crossings`, on the same connection (a transaction's when it was made on one).
 */
export class WorkOrderCrossingsRepository {
  constructor(private readonly db: Db) {}

  /** The customer accounts (not the platform) whose name matches `like`, 100 at most. */
  async tenantsNamed(like: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('tenants')
      .select('id')
      .where('name', 'ilike', like)
      .where('kind', '<>', 'platform')
      .limit(100)
      .execute();
    return rows.map((t) => t.id);
  }

  /** The platform tenant (staff's), the first one. */
  async platformTenantId(): Promise<number | null> {
    const r = await this.db
      .selectFrom('tenants')
      .select('id')
      .where('kind', '=', 'platform')
      .orderBy('id')
      .executeTakeFirst();
    return r?.id ?? null;
  }

  /** The devices an order names, of its tenant; within `access` when given (a customer reader). */
  devicesNamed(tenantId: number, ids: number[], access: DataAccess | null) {
    return this.db
      .selectFrom('devices')
      .select(['id', 'sn', 'name'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .$if(access != null, (q) => q.where(inDataScope(access!, 'devices')))
      .orderBy('id')
      .execute();
  }

  /** The (print) orders an order names, of its tenant; within `access` when given (a customer reader). */
  ordersNamed(tenantId: number, ids: number[], access: DataAccess | null) {
    return this.db
      .selectFrom('orders')
      .select(['id', 'order_no'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .$if(access != null, (q) => q.where(inDataScope(access!, 'orders')))
      .orderBy('id')
      .execute();
  }

  /** How many of `ids` are devices of the tenant within `access`. */
  countDevicesInScope(access: DataAccess, ids: number[]): Promise<number> {
    return countDevicesOf(this.db, access.tenantId, ids, inDataScope(access, 'devices'));
  }

  /** How many of `ids` are (print) orders of the tenant. */
  async countOrdersOfTenant(tenantId: number, ids: number[]): Promise<number> {
    const found = await new TenantScope(this.db, tenantId)
      .selectFrom('orders')
      .select('orders.id')
      .where('orders.id', 'in', ids)
      .execute();
    return found.length;
  }

  /** The objects among `keys` the tenant uploaded to the `attachment` bucket. */
  uploadedAttachments(tenantId: number, keys: string[]) {
    return new TenantScope(this.db, tenantId)
      .selectFrom('objects')
      .select(['objects.key', 'objects.original_name', 'objects.size', 'objects.mime'])
      .where('objects.key', 'in', keys)
      .where('objects.bucket', '=', 'attachment')
      .execute();
  }

  /** Refuses (400 naming `field`) image keys that are not objects of the writer's tenant. */
  assertOwnObjects(tenantId: number, keys: string[], field: string): Promise<void> {
    return assertOwnObjects(new TenantScope(this.db, tenantId), keys, field);
  }

  /** The devices (within `access`) and (print) orders a customer may name, matching `keyword`, 20 of each. */
  subjectOptions(access: DataAccess, keyword: string | undefined) {
    const like = keyword ? `%${escapeLike(keyword)}%` : null;
    const scope = new TenantScope(this.db, access.tenantId);
    return Promise.all([
      scope
        .selectFrom('devices')
        .select(['devices.id', 'devices.sn', 'devices.name'])
        .where(inDataScope(access, 'devices'))
        .$if(like != null, (q) =>
          q.where((eb) => eb.or([eb('devices.sn', 'ilike', like!), eb('devices.name', 'ilike', like!)])),
        )
        .orderBy('devices.id', 'desc')
        .limit(20)
        .execute(),
      scope
        .selectFrom('orders')
        .select(['orders.id', 'orders.order_no'])
        .$if(like != null, (q) => q.where('orders.order_no', 'ilike', like!))
        .orderBy('orders.id', 'desc')
        .limit(20)
        .execute(),
    ]);
  }

  /** Active staff users who hold workOrder:handle (the Admin role holds all); only `ids` when given. */
  handlers(ids?: number[]) {
    return this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.nickname', 'u.username'])
      .where('t.kind', '=', 'platform')
      .where('u.state', '=', 'active')
      .where(
        sql<boolean>`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id and (r.code = 'Admin' or ${PERMISSIONS.workOrderHandle} = any(r.permissions)))`,
      )
      .$if(ids != null, (q) => q.where('u.id', 'in', ids!.length ? ids! : [0]))
      .orderBy('u.id')
      .execute();
  }

  /** A user's tenant. */
  userTenant(userId: number) {
    return this.db.selectFrom('users').select(['id', 'tenant_id']).where('id', '=', userId).executeTakeFirst();
  }

  /** The active users of the account who hear of staff's answers: its main account(s) and the order's opener. */
  async customerRecipients(tenantId: number, openerId: number | null): Promise<number[]> {
    const rows = await this.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('state', '=', 'active')
      .where((eb) => eb.or([eb('is_super', '=', 1), ...(openerId ? [eb('id', '=', openerId)] : [])]))
      .execute();
    return [...new Set(rows.map((r) => r.id))];
  }

  /** The inbox's messages; the function that tells the recipients' consoles once the transaction committed. */
  sendMessages(messages: NewMessage[]) {
    return sendMessages(this.db, messages);
  }

  /** A line of the system log. */
  audit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }
}

export const crossingQueries = defineQueries(WorkOrderCrossingsRepository, {
  tenantsNamed: [['%Acme%']],
  platformTenantId: [[]],
  devicesNamed: [
    [3, [101, 102], null],
    [3, [101, 102], DEPARTMENT_ACCESS],
  ],
  ordersNamed: [
    [3, [501], null],
    [3, [501], DEPARTMENT_ACCESS],
  ],
  countDevicesInScope: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  countOrdersOfTenant: [[3, [501, 502]]],
  uploadedAttachments: [[3, ['attachment/3/printer-log.txt', 'attachment/3/photo.jpg']]],
  assertOwnObjects: [{ args: [3, ['rich/3/paper-jam.png'], 'bodyHtml'], results: [[{ key: 'rich/3/paper-jam.png' }]] }],
  subjectOptions: [
    [DEPARTMENT_ACCESS, undefined],
    [DEPARTMENT_ACCESS, 'HP_01'],
  ],
  handlers: [[], [[12]], [[]]],
  userTenant: [[12]],
  customerRecipients: [
    [3, 7],
    [3, null],
  ],
  sendMessages: [
    [
      [
        {
          tenantId: 3,
          userId: 7,
          kind: 'workOrder.replied',
          title: 'workOrder.repliedTitle',
          body: 'WO20260101000041 · Printer offline',
          link: '/workOrder/detail?id=41',
        },
      ],
    ],
  ],
});
