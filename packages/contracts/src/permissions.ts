/** Permission strings (DESIGN §3). Roles group these; the platform role `Admin` holds all of them. */
export const ADMIN_ROLE = 'Admin';

export const PERMISSIONS = {
  identityReview: 'identity:review',
  noticeEdit: 'notice:edit',
  deviceView: 'device:view',
  deviceEdit: 'device:edit',
  deviceReboot: 'device:reboot',
  deviceShutdown: 'device:shutdown',
  /** See and cancel the tasks sent to the account's devices. */
  deviceTask: 'device:task',
  /** Bind and unbind devices of the account. */
  deviceBind: 'device:bind',
  /** Create, rename, move and delete device groups. */
  deviceGroup: 'device:group',
  /** Platform staff: the device model catalogue. */
  deviceModelManage: 'device:model:manage',
  /** Platform staff: factory registration of devices (single and CSV import). */
  deviceRegister: 'device:register',
  userEdit: 'system:user:edit',
  /** App keys of the open API, their logs and webhooks, test prints, canceling print jobs. */
  integrationManage: 'integration:manage',
  /** The account's print jobs and their previews. */
  printView: 'print:view',
} as const;

/** What a customer's main account (is_super = 1) holds inside its own tenant. */
export const CUSTOMER_PERMISSIONS: string[] = [
  PERMISSIONS.deviceView,
  PERMISSIONS.deviceEdit,
  PERMISSIONS.deviceReboot,
  PERMISSIONS.deviceShutdown,
  PERMISSIONS.deviceTask,
  PERMISSIONS.deviceBind,
  PERMISSIONS.deviceGroup,
  PERMISSIONS.userEdit,
  PERMISSIONS.integrationManage,
  PERMISSIONS.printView,
];

/** Permissions meant for platform staff only; their routes also refuse a caller outside the platform tenant. */
export const STAFF_PERMISSIONS: string[] = [
  PERMISSIONS.identityReview,
  PERMISSIONS.noticeEdit,
  PERMISSIONS.deviceModelManage,
  PERMISSIONS.deviceRegister,
];
