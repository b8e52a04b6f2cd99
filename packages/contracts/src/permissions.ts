/** Permission strings (DESIGN §3). Roles group these; the platform role `Admin` holds all of them. */
export const ADMIN_ROLE = 'Admin';

export const PERMISSIONS = {
  identityReview: 'identity:review',
  noticeEdit: 'notice:edit',
  deviceView: 'device:view',
  deviceEdit: 'device:edit',
  deviceReboot: 'device:reboot',
  userEdit: 'system:user:edit',
} as const;

/** What a customer's main account (is_super = 1) holds inside its own tenant. */
export const CUSTOMER_PERMISSIONS: string[] = [
  PERMISSIONS.deviceView,
  PERMISSIONS.deviceEdit,
  PERMISSIONS.deviceReboot,
  PERMISSIONS.userEdit,
];
