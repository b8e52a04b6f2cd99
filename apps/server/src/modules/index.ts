import type { ServerModule } from '../plugins/module.ts';
import { aiLibraryModule } from './ai-library/module.ts';
import { applicationModule } from './application/module.ts';
import { authModule } from './auth/module.ts';
import { dashboardModule } from './dashboard/module.ts';
import { departmentModule } from './department/module.ts';
import { deviceModelModule } from './device-model/module.ts';
import { deviceRegistryModule } from './device-registry/module.ts';
import { deviceModule } from './device/module.ts';
import { fenceModule } from './fence/module.ts';
import { fileAcquisitionModule } from './file-acquisition/module.ts';
import { flowRateModule } from './flow-rate/module.ts';
import { identityModule } from './identity/module.ts';
import { inboxModule } from './inbox/module.ts';
import { integrationModule } from './integration/module.ts';
import { menuModule } from './menu/module.ts';
import { noticeModule } from './notice/module.ts';
import { openApiModule } from './open-api/module.ts';
import { orderModule } from './order/module.ts';
import { packageModule } from './package/module.ts';
import { printModule } from './print/module.ts';
import { pushModule } from './push/module.ts';
import { roleModule } from './role/module.ts';
import { systemCustomModule } from './system-custom/module.ts';
import { systemLogModule } from './system-log/module.ts';
import { systemModule } from './system/module.ts';
import { taskModule } from './task/module.ts';
import { upgradeModule } from './upgrade/module.ts';
import { uploadModule } from './upload/module.ts';
import { userModule } from './user/module.ts';
import { workOrderModule } from './work-order/module.ts';
import { workbenchModule } from './workbench/module.ts';

/**
 * Every module of the server, in the order they are registered: each after the modules it declares as
 * dependencies (Fastify refuses the start otherwise). The console API's routes follow the same order.
 */
export const MODULES: readonly ServerModule[] = [
  authModule,
  userModule,
  identityModule,
  menuModule,
  systemModule,
  noticeModule,
  inboxModule,
  uploadModule,
  taskModule,
  packageModule,
  fileAcquisitionModule,
  upgradeModule,
  pushModule,
  applicationModule,
  systemCustomModule,
  integrationModule,
  printModule,
  openApiModule,
  aiLibraryModule,
  fenceModule,
  roleModule,
  departmentModule,
  deviceModule,
  deviceModelModule,
  deviceRegistryModule,
  dashboardModule,
  workbenchModule,
  orderModule,
  flowRateModule,
  workOrderModule,
  systemLogModule,
];
