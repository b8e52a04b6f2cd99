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
  nickname: Generated<string>;
  email: Generated<string>;
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
  last_active_at: Generated<Date>;
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

export type DeviceStatus = 'online' | 'offline';
export type PaperState = 'ok' | 'out' | 'cover-open' | 'overheat';
export type TaskType = 'reboot' | 'shutdown' | 'apply_profile' | 'install_app' | 'uninstall_app' | 'fetch_file' | 'upgrade' | 'push_message' | 'deploy_model';
export type TaskState = 'queued' | 'sent' | 'delivered' | 'running' | 'succeeded' | 'failed' | 'timeout' | 'expired' | 'canceled';
type Json<T = Record<string, unknown>> = ColumnType<T, string | undefined, string>;
/** numeric columns come back from pg as strings */
type Numeric = ColumnType<string, number | string | undefined, number | string>;

export interface DeviceModelsTable {
  id: Generated<number>;
  code: string;
  name: string;
  kind: 'printer' | 'android-terminal';
  paper_width_mm: Generated<number>;
  capabilities: Generated<string[]>;
  created_at: Generated<Date>;
}
export interface DeviceGroupsTable {
  id: Generated<number>;
  tenant_id: Id;
  parent_id: number | null;
  name: string;
  sort: Generated<number>;
  created_at: Generated<Date>;
}
export interface DevicesTable {
  id: Generated<number>;
  sn: string;
  /** NULL until bound (factory registration); a TenantScope only ever sees bound devices */
  tenant_id: number | null;
  model_id: number;
  bind_key_hash: string;
  secret: string;
  bound_at: Timestamp | null;
  name: Generated<string>;
  remark: Generated<string>;
  group_id: number | null;
  firmware: Generated<string>;
  status: Generated<DeviceStatus>;
  connected_at: Timestamp | null;
  last_seen_at: Timestamp | null;
  heartbeat_s: Generated<number>;
  paper: Generated<PaperState>;
  battery: number | null;
  signal: number | null;
  imei: Generated<string>;
  iccid: string | null;
  lat: number | null;
  lng: number | null;
  located_at: Timestamp | null;
  province: Generated<string>;
  created_at: Generated<Date>;
  /** The current MQTT connection's id (from its hello and last will); 0004-gateway */
  conn_id: string | null;
  /** When its client was provisioned on the external broker's dynamic security; null: still to do (0008-devices-2) */
  broker_synced_at: Timestamp | null;
}
export interface SimsTable {
  iccid: string;
  tenant_id: number | null;
  device_id: number | null;
  msisdn: Generated<string>;
  carrier: Generated<string>;
  plan_total_mb: Numeric;
  used_mb: Numeric;
  expires_at: Timestamp | null;
  /** Set by the sims_data_state trigger from the data left (0008-devices-2); only `suspended` is written by hand. */
  state: Generated<'active' | 'low' | 'suspended'>;
}
export interface TaskBatchesTable {
  id: Generated<number>;
  tenant_id: Id;
  type: TaskType;
  targets: Json;
  strategy: Json;
  created_by: number | null;
  created_at: Generated<Date>;
}
export interface DeviceTasksTable {
  id: Generated<string>;
  tenant_id: Id;
  batch_id: number | null;
  device_id: number;
  type: TaskType;
  params: Json;
  state: Generated<TaskState>;
  progress: Generated<number>;
  error: Generated<string>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  created_by: number | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  sent_at: Timestamp | null;
  delivered_at: Timestamp | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  expire_at: Timestamp;
}
export interface DeviceTelemetryTable {
  device_id: number;
  tenant_id: number | null;
  at: Generated<Date>;
  battery: number | null;
  signal: number | null;
  paper: string | null;
  used_mb: Numeric | null;
  lat: number | null;
  lng: number | null;
}
export interface DeviceStatusLogTable {
  id: Generated<number>;
  device_id: number;
  tenant_id: number | null;
  status: DeviceStatus;
  reason: Generated<string>;
  at: Generated<Date>;
}

// Cloud printing (0006-printing)
export type PrintJobState = 'queued' | 'sent' | 'delivered' | 'printing' | 'printed' | 'failed' | 'timeout' | 'expired' | 'canceled';
export interface AppKeysTable {
  id: Generated<number>;
  tenant_id: Id;
  app_id: string;
  secret: string;
  name: string;
  state: Generated<'active' | 'disabled'>;
  callback_url: Generated<string>;
  ip_allow: Generated<string[]>;
  created_by: number | null;
  created_at: Generated<Date>;
  secret_rotated_at: Generated<Date>;
  last_used_at: Timestamp | null;
  /** Calls per second (0007-printing-2); null follows OPEN_RATE_LIMIT. */
  rate_limit: number | null;
}
export interface OpenNoncesTable {
  app_key_id: number;
  nonce: string;
  expires_at: Timestamp;
}
export interface OpenRateTable {
  app_key_id: number;
  window_s: number;
  hits: number;
}
/** Attempts per bucket and key in a fixed window (lib/counters.ts): logins, lock-screen passwords, rate limits. */
export interface RateCountersTable {
  bucket: string;
  key: string;
  hits: number;
  reset_at: Timestamp;
}
export interface OpenRequestLogTable {
  id: Generated<number>;
  tenant_id: Id;
  app_key_id: number;
  at: Timestamp;
  method: string;
  path: string;
  call: string;
  code: number;
  reason: string | null;
  latency_ms: number;
  ip: string;
  job_id: string | null;
  test_print: Generated<boolean>;
}
export interface AppKeyUsageTable {
  app_key_id: number;
  tenant_id: Id;
  hour: Timestamp;
  calls: Generated<number>;
  errors: Generated<number>;
  jobs: Generated<number>;
}
export interface PrintJobsTable {
  id: Generated<string>;
  seq: Generated<number>;
  tenant_id: Id;
  app_key_id: number | null;
  device_id: number;
  origin_id: string;
  content: string;
  format: 'escpos' | 'markup';
  payload: Buffer;
  preview: string;
  columns: number;
  copies: Generated<number>;
  state: Generated<PrintJobState>;
  error: Generated<string>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  /** Deliveries an online printer left unacknowledged (0007-printing-2); max_attempts bounds these. */
  ack_timeouts: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  sent_at: Timestamp | null;
  delivered_at: Timestamp | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  expire_at: Timestamp;
}
export interface WebhookDeliveriesTable {
  id: Generated<string>;
  tenant_id: Id;
  app_key_id: number;
  job_id: string;
  job_state: PrintJobState;
  job_error: Generated<string>;
  occurred_at: Generated<Date>;
  state: Generated<'pending' | 'retrying' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: Generated<string>;
  next_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  created_at: Generated<Date>;
}
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  tenant_id: Id;
  attempt: number;
  manual: Generated<boolean>;
  at: Generated<Date>;
  status: number | null;
  duration_ms: number;
  error: Generated<string>;
  response: Generated<string>;
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
  device_models: DeviceModelsTable;
  device_groups: DeviceGroupsTable;
  devices: DevicesTable;
  sims: SimsTable;
  task_batches: TaskBatchesTable;
  device_tasks: DeviceTasksTable;
  device_telemetry: DeviceTelemetryTable;
  device_status_log: DeviceStatusLogTable;
  app_keys: AppKeysTable;
  open_nonces: OpenNoncesTable;
  open_rate: OpenRateTable;
  rate_counters: RateCountersTable;
  open_request_log: OpenRequestLogTable;
  app_key_usage: AppKeyUsageTable;
  print_jobs: PrintJobsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

/** Tables whose rows belong to a tenant: every query on them goes through a TenantScope. */
export type TenantTable =
  | 'users'
  | 'roles'
  | 'user_roles'
  | 'sessions'
  | 'objects'
  | 'identity_submissions'
  | 'messages'
  | 'audit_log'
  | 'device_groups'
  | 'devices'
  | 'sims'
  | 'task_batches'
  | 'device_tasks'
  | 'device_telemetry'
  | 'device_status_log'
  | 'app_keys'
  | 'open_request_log'
  | 'app_key_usage'
  | 'print_jobs'
  | 'webhook_deliveries'
  | 'webhook_attempts';
