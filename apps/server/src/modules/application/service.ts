import type {
  DeploymentCreated,
  DeploymentDetail,
  DeploymentKind,
  DeploymentView,
  DeployablePackage,
  DeviceInventory,
  InstalledResult,
  Paged,
  RequiredApp,
  deploymentBody,
  deploymentListQuery,
  installedQuery,
  requiredAppsBody,
} from '@cpc/contracts';
import type { InventoryMsg } from '@cpc/contracts/device-protocol';
import type { RawBuilder } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { ScopedCaller } from '../../lib/data-scope.ts';
import type { EventSink, TaskService } from '../task/index.ts';
import { Deployments } from './deployments.ts';
import { Inventories } from './inventory.ts';
import { ApplicationRepository } from './repository/index.ts';
import { RequiredApps } from './required-apps.ts';

/** The caller and its data scope (`scopedCaller`): the tenant's scope, the user, the devices its scope reaches. */
export type AppCaller = ScopedCaller;

/**
 * The application module's service (issue 15): deployments of apps and models (deployments.ts), the inventories
 * devices report (inventory.ts) and the required-apps policy (required-apps.ts), over ApplicationRepository.
 */
export class ApplicationService {
  private deployments: Deployments;
  private inventories: Inventories;
  private required: RequiredApps;

  constructor(db: Db, tasks: TaskService, events: EventSink) {
    const repo = new ApplicationRepository(db);
    this.deployments = new Deployments(repo, tasks, events);
    this.required = new RequiredApps(repo, this.deployments);
    this.inventories = new Inventories(repo, events, (tenantId, deviceIds) =>
      this.required.applyPolicy(tenantId, deviceIds),
    );
  }

  // Deployments

  create(u: AppCaller, body: z.output<typeof deploymentBody>): Promise<DeploymentCreated> {
    return this.deployments.create(u, body);
  }

  list(u: AppCaller, q: z.output<typeof deploymentListQuery>): Promise<Paged<DeploymentView>> {
    return this.deployments.list(u, q);
  }

  detail(u: AppCaller, id: number): Promise<DeploymentDetail> {
    return this.deployments.detail(u, id);
  }

  /** Cancels the unfinished tasks (of the devices the caller reaches); the finished ones keep their outcome. */
  cancel(u: AppCaller, id: number): Promise<{ id: number; tasks: number }> {
    return this.deployments.cancel(u, id);
  }

  /** Sends the deployment again to each device whose latest task failed, timed out or expired (a new task each). */
  retry(u: AppCaller, id: number): Promise<{ id: number; tasks: number }> {
    return this.deployments.retry(u, id);
  }

  /** Every undeleted version of the kind (at most 500), for the install drawer's picker. */
  packages(u: AppCaller, kind: DeploymentKind): Promise<DeployablePackage[]> {
    return this.deployments.packages(u, kind);
  }

  // Inventory

  /**
   * A device's inventory (the gateway calls it for each `inventory` message): stored only when it changed (a hash
   * of the sorted lists), then the required-apps policy is applied to the device.
   */
  onInventory(deviceId: number, msg: InventoryMsg): Promise<void> {
    return this.inventories.onInventory(deviceId, msg);
  }

  inventory(u: AppCaller, deviceId: number): Promise<DeviceInventory> {
    return this.inventories.inventory(u, deviceId);
  }

  /** "Which devices run version X": the devices with the app (or model), and how many run each version. */
  installed(u: AppCaller, q: z.output<typeof installedQuery>): Promise<InstalledResult> {
    return this.inventories.installed(u, q);
  }

  // Required apps

  requiredApps(u: { scope: TenantScope; devices?: RawBuilder<boolean> }): Promise<RequiredApp[]> {
    return this.required.requiredApps({ tenantId: u.scope.tenantId, devices: u.devices });
  }

  /** Replaces the tenant's required apps, then sends them to the reporting devices that lack one. */
  setRequired(u: AppCaller, body: z.output<typeof requiredAppsBody>): Promise<{ apps: RequiredApp[]; tasks: number }> {
    return this.required.setRequired(u, body);
  }

  /** Applies the policy of every tenant that has one (the periodic reconcile); answers the tasks sent. */
  reconcilePolicy(): Promise<number> {
    return this.required.reconcilePolicy();
  }

  /** The required-apps policy on the reporting devices of the tenant (of `deviceIds`, or all); the tasks sent. */
  applyPolicy(tenantId: number, deviceIds?: number[]): Promise<number> {
    return this.required.applyPolicy(tenantId, deviceIds);
  }
}
