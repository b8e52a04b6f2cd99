import type { Selectable } from 'kysely';
import type { DB, JsonObject, JsonValue } from './generated.ts';

/** The database's row types: generated from the migrations into generated.ts (`npm run db:types -w apps/server`). */
export type Database = DB;

// Names the services use for column types that the schema's CHECK constraints define.
export type DeviceStatus = Selectable<DB['devices']>['status'];
export type PaperState = Selectable<DB['devices']>['paper'];
export type TaskType = DB['device_tasks']['type'];
export type TaskState = Selectable<DB['device_tasks']>['state'];
export type PrintJobState = Selectable<DB['print_jobs']>['state'];
export type IdentitySubmissionsTable = DB['identity_submissions'];

/** A json(b) value that is an object (what the server writes into its json columns). */
export const isJsonObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Tables whose rows belong to a tenant: every query on them goes through a TenantScope. */
export type TenantTable =
  | 'users'
  | 'user_identities'
  | 'roles'
  | 'user_roles'
  | 'departments'
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
  | 'webhook_attempts'
  | 'orders'
  | 'order_lines'
  | 'work_orders'
  | 'work_order_events'
  | 'work_order_attachments'
  | 'dashboard_targets'
  | 'packages'
  | 'file_requests'
  | 'ocr_jobs'
  | 'upgrade_releases'
  | 'upgrade_devices'
  | 'device_firmware_history'
  | 'app_deployments'
  | 'device_inventory'
  | 'device_apps'
  | 'device_ai_models'
  | 'required_apps'
  | 'fences'
  | 'fence_targets'
  | 'fence_device_state'
  | 'fence_events';
