import type {
  GroupAddBody,
  GroupDeleteResult,
  GroupEditBody,
  GroupNode,
  GroupTree,
  GroupView,
} from '@cpc/contracts/device';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { changedFields } from '../../lib/audit.ts';
import { DeviceGroupRepository } from './repository/groups.ts';

const view = (g: { id: number; name: string; parent_id: number | null; sort: number }): GroupView => ({
  id: g.id,
  name: g.name,
  parentId: g.parent_id,
  sort: g.sort,
});

/** Unique names among siblings: the index says so; this says it as a field error. */
function sameName(e: unknown): never {
  if ((e as { code?: string }).code === '23505') throw badRequest('name', 'device.groupNameTaken');
  throw e;
}

/** Device groups: one tree per tenant (DESIGN §4), counts including every group below. */
export class GroupService {
  private repo: DeviceGroupRepository;

  constructor(db: Db) {
    this.repo = new DeviceGroupRepository(db);
  }

  /** Counts are of the devices inside the caller's data scope. */
  async tree(user: AuthUser): Promise<GroupTree> {
    const access = dataAccessOf(user);
    const [groups, counts] = await Promise.all([
      this.repo.list(user.tenantId),
      this.repo.deviceCounts(user.tenantId, access),
    ]);
    const own = new Map(counts.map((c) => [c.group_id, { n: Number(c.n), online: Number(c.online) }]));
    const byParent = new Map<number | null, typeof groups>();
    for (const g of groups) byParent.set(g.parent_id, [...(byParent.get(g.parent_id) ?? []), g]);
    const build = (parent: number | null): GroupNode[] =>
      (byParent.get(parent) ?? [])
        .sort((a, b) => a.sort - b.sort || a.name.localeCompare(b.name) || a.id - b.id)
        .map((g) => {
          const children = build(g.id);
          const mine = own.get(g.id) ?? { n: 0, online: 0 };
          return {
            id: g.id,
            name: g.name,
            parentId: g.parent_id,
            sort: g.sort,
            deviceCount: mine.n + children.reduce((s, c) => s + c.deviceCount, 0),
            onlineCount: mine.online + children.reduce((s, c) => s + c.onlineCount, 0),
            children,
          };
        });
    const total = counts.reduce((s, c) => s + Number(c.n), 0);
    return { tree: build(null), total, ungrouped: own.get(null)?.n ?? 0 };
  }

  private async assertNameFree(
    repo: DeviceGroupRepository,
    tenantId: number,
    name: string,
    parentId: number | null,
    exceptId?: number,
  ): Promise<void> {
    if (await repo.nameTaken(tenantId, name, parentId, exceptId)) throw badRequest('name', 'device.groupNameTaken');
  }

  async add(user: AuthUser, body: Required<GroupAddBody>, ip: string): Promise<GroupView> {
    if (body.parentId !== null && !(await this.repo.exists(user.tenantId, body.parentId)))
      throw notFound('parent group');
    await this.assertNameFree(this.repo, user.tenantId, body.name, body.parentId);
    const row = await this.repo
      .insert(user.tenantId, { name: body.name, parent_id: body.parentId, sort: body.sort })
      .catch(sameName);
    await this.repo.audit({
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'device-group.add',
      result: 'ok',
      resource: 'device_group',
      resourceId: row.id,
      changes: changedFields({}, { name: row.name, parentId: row.parent_id, sort: row.sort }),
    });
    return view(row);
  }

  /** Moving under a new parent is refused when the parent is the group itself or lies below it. */
  async edit(user: AuthUser, body: GroupEditBody, ip: string): Promise<GroupView> {
    return this.repo.transaction(async (tx) => {
      // One tenant's tree changes one edit at a time, so two moves cannot build a cycle together.
      const all = await tx.lockAll(user.tenantId);
      const g = all.find((x) => x.id === body.id);
      if (!g) throw notFound('group');
      const parentId = body.parentId === undefined ? g.parent_id : body.parentId;
      if (body.parentId !== undefined && body.parentId !== null) {
        if (!all.some((x) => x.id === body.parentId)) throw notFound('parent group');
        for (let p: number | null = body.parentId; p !== null; p = all.find((x) => x.id === p)!.parent_id) {
          if (p === g.id) throw badRequest('parentId', 'device.groupCycle');
        }
      }
      const name = body.name ?? g.name;
      if (body.name !== undefined || body.parentId !== undefined)
        await this.assertNameFree(tx, user.tenantId, name, parentId, g.id);
      const row = await tx
        .update(user.tenantId, g.id, {
          name,
          parent_id: parentId,
          ...(body.sort !== undefined ? { sort: body.sort } : {}),
        })
        .catch(sameName);
      await tx.audit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'device-group.edit',
        result: 'ok',
        resource: 'device_group',
        resourceId: g.id,
        changes: changedFields(
          { name: g.name, parentId: g.parent_id, sort: g.sort },
          { name: row.name, parentId: row.parent_id, sort: row.sort },
        ),
      });
      return view(row);
    });
  }

  /** Deletes the group and the groups below it; their devices become ungrouped (never unbound or deleted). */
  async remove(user: AuthUser, id: number, ip: string): Promise<GroupDeleteResult> {
    return this.repo.transaction(async (tx) => {
      const all = await tx.lockAll(user.tenantId);
      const group = all.find((g) => g.id === id);
      if (!group) throw notFound('group');
      const subtree = new Set([id]);
      for (let grew = true; grew;) {
        grew = false;
        for (const g of all)
          if (g.parent_id !== null && subtree.has(g.parent_id) && !subtree.has(g.id)) {
            subtree.add(g.id);
            grew = true;
          }
      }
      const ids = [...subtree];
      const ungroupedDevices = await tx.ungroupDevices(user.tenantId, ids);
      await tx.delete(user.tenantId, id);
      const result = { deletedGroups: ids.length, ungroupedDevices };
      await tx.audit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'device-group.delete',
        result: 'ok',
        resource: 'device_group',
        resourceId: id,
        changes: changedFields({ name: group.name, parentId: group.parent_id }, {}),
        details: result,
      });
      return result;
    });
  }
}
