import type { ColumnType, Generated } from 'kysely';

/** Row types of the database, kept beside the migrations that create them. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Id = ColumnType<number, number | undefined, number>;

export interface TenantsTable {
  id: Generated<number>;
  kind: 'individual' | 'enterprise' | 'platform';
  name: string;
  auth_status: Generated<number>;
  attest_name: Generated<string>;
  created_at: Generated<Date>;
}
export interface UsersTable {
  id: Generated<number>;
  tenant_id: Id;
  username: string;
  mobile: string | null;
  password_hash: string;
  is_super: Generated<number>;
  state: Generated<'active' | 'disabled'>;
  avatar: Generated<string>;
  created_at: Generated<Date>;
}
export interface RolesTable {
  id: Generated<number>;
  tenant_id: Id;
  code: string;
  name: string;
  permissions: Generated<string[]>;
}
export interface UserRolesTable {
  tenant_id: Id;
  user_id: number;
  role_id: number;
}
export interface SessionsTable {
  id: string;
  tenant_id: Id;
  user_id: number;
  ip: Generated<string>;
  user_agent: Generated<string>;
  created_at: Generated<Date>;
  revoked_at: Timestamp | null;
  revoke_reason: string | null;
}
export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}
export interface CaptchasTable {
  id: string;
  answer: string;
  expires_at: Timestamp;
}
export interface SmsCodesTable {
  id: Generated<number>;
  mobile: string;
  purpose: string;
  code_hash: string;
  attempts: Generated<number>;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Generated<Date>;
}
export interface ObjectsTable {
  key: string;
  tenant_id: Id;
  user_id: number;
  bucket: string;
  size: ColumnType<number, number, number>;
  mime: string;
  original_name: string;
  created_at: Generated<Date>;
}
export interface IdentitySubmissionsTable {
  id: Generated<number>;
  tenant_id: Id;
  user_id: number;
  kind: 'individual' | 'enterprise';
  real_name: string | null;
  id_number: string | null;
  id_front_key: string | null;
  id_back_key: string | null;
  company_name: string | null;
  credit_code: string | null;
  legal_person: string | null;
  licence_key: string | null;
  status: Generated<number>;
  reason: string | null;
  reviewed_by: number | null;
  reviewed_at: Timestamp | null;
  created_at: Generated<Date>;
}
export interface MenusTable {
  id: Generated<number>;
  parent_id: number | null;
  path: string;
  name: string;
  component: string | null;
  redirect: string | null;
  meta: ColumnType<Record<string, unknown>, string, string>;
  sort: Generated<number>;
}
export interface NoticesTable {
  id: Generated<number>;
  title: string;
  body_html: string;
  image: Generated<string>;
  pinned: Generated<boolean>;
  published_at: Generated<Date>;
}
export interface MessagesTable {
  id: Generated<number>;
  tenant_id: Id;
  user_id: number;
  kind: string;
  title: string;
  body: Generated<string>;
  read_at: Timestamp | null;
  created_at: Generated<Date>;
}
export interface AuditLogTable {
  id: Generated<number>;
  at: Generated<Date>;
  tenant_id: number | null;
  user_id: number | null;
  ip: string;
  action: string;
  resource: Generated<string>;
  resource_id: Generated<string>;
  result: 'ok' | 'fail' | 'denied';
  subject: Generated<string>;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
}

export interface Database {
  app_settings: { key: string; value: string };
  tenants: TenantsTable;
  users: UsersTable;
  roles: RolesTable;
  user_roles: UserRolesTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  captchas: CaptchasTable;
  sms_codes: SmsCodesTable;
  objects: ObjectsTable;
  identity_submissions: IdentitySubmissionsTable;
  menus: MenusTable;
  notices: NoticesTable;
  messages: MessagesTable;
  audit_log: AuditLogTable;
}

/** Tables whose rows belong to a tenant: every query on them goes through a TenantScope. */
export type TenantTable = 'users' | 'roles' | 'user_roles' | 'sessions' | 'objects' | 'identity_submissions' | 'messages' | 'audit_log';
