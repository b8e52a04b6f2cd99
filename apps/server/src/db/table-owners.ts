import type { DB } from './generated.ts';

/** The folders under `src/modules/`: each is a module (test/table-ownership.test.ts checks the list). */
export const MODULES = [
  'ai-library',
  'application',
  'auth',
  'dashboard',
  'department',
  'device',
  'device-model',
  'device-registry',
  'fence',
  'file-acquisition',
  'flow-rate',
  'identity',
  'inbox',
  'integration',
  'menu',
  'notice',
  'open-api',
  'order',
  'package',
  'print',
  'push',
  'role',
  'system',
  'system-custom',
  'system-log',
  'task',
  'upgrade',
  'upload',
  'user',
  'work-order',
  'workbench',
] as const;

/**
 * Owners below the modules: `lib` (shared helpers: secrets, captchas, rate counters, the audit trail),
 * `plugins/mqtt` (the device gateway) and `plugins/payload-keys` (the payload crypto's keys and seen requests).
 */
export const INFRASTRUCTURE_OWNERS = ['lib', 'plugins/mqtt', 'plugins/payload-keys'] as const;

export type ModuleName = (typeof MODULES)[number] | (typeof INFRASTRUCTURE_OWNERS)[number];

/**
 * Which module owns each table: the one that creates its rows and keeps them. Only the owner's code names the
 * table in a statement; others ask the owner's service. Every table of the schema has exactly one owner (a new
 * table without one does not compile). Other code that names a table today is listed in
 * test/table-crossings.json, which may only shrink; docs/architecture.md shows this map as a table.
 */
export const TABLE_OWNERS: { readonly [T in keyof DB]: ModuleName } = {
  app_deployments: 'application',
  app_key_usage: 'open-api',
  app_keys: 'integration',
  app_settings: 'lib', // lib/secrets.ts; payload-crypto keeps its key pair there too
  audit_log: 'lib', // lib/audit.ts writes it, system-log reads and prunes it
  captchas: 'lib',
  custom_profile_assignments: 'system-custom',
  custom_profile_versions: 'system-custom',
  custom_profiles: 'system-custom',
  dashboard_targets: 'dashboard',
  departments: 'department',
  device_ai_models: 'application',
  device_apps: 'application',
  device_firmware_history: 'plugins/mqtt', // written only by the gateway (presence), read by upgrade
  device_groups: 'device',
  device_inventory: 'application',
  device_models: 'device-model',
  device_positions: 'fence',
  device_profile_state: 'system-custom',
  device_status_log: 'device', // binding writes it too, not only the gateway's presence
  device_tasks: 'task',
  device_telemetry: 'plugins/mqtt', // written only by the gateway (presence)
  devices: 'device', // the data-scope rule lives with it; registry import and presence are crossings
  fence_device_state: 'fence',
  fence_events: 'fence',
  fence_targets: 'fence',
  fences: 'fence',
  file_requests: 'file-acquisition',
  identity_submissions: 'identity',
  menu_seeds: 'menu',
  menu_versions: 'menu',
  menus: 'menu',
  messages: 'inbox',
  notice_reads: 'notice',
  notices: 'notice',
  objects: 'upload',
  ocr_jobs: 'ai-library',
  open_nonces: 'open-api',
  open_rate: 'open-api',
  open_request_log: 'open-api',
  order_lines: 'order',
  orders: 'order',
  packages: 'package',
  payload_replays: 'plugins/payload-keys',
  payment_notifications: 'order',
  print_jobs: 'print',
  push_deliveries: 'push',
  pushes: 'push',
  rate_counters: 'lib',
  refresh_tokens: 'auth',
  required_apps: 'application',
  roles: 'role',
  sessions: 'auth',
  sim_usage_daily: 'flow-rate', // flow-rate reads and prunes it; the gateway's usage roll-up is a crossing
  sims: 'flow-rate',
  sms_codes: 'auth',
  social_flows: 'auth',
  social_link_tickets: 'auth',
  task_batches: 'task',
  tenants: 'auth', // created at registration; identity review is a crossing
  traffic_packages: 'order',
  upgrade_devices: 'upgrade',
  upgrade_releases: 'upgrade',
  user_identities: 'auth',
  user_roles: 'role',
  users: 'user',
  webhook_attempts: 'integration',
  webhook_deliveries: 'integration',
  work_order_attachments: 'work-order',
  work_order_canned_replies: 'work-order',
  work_order_events: 'work-order',
  work_order_targets: 'work-order',
  work_orders: 'work-order',
};
