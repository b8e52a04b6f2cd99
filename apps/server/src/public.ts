/**
 * What programs beside the server (the fleet simulator) may use of it: opening its database and registering
 * devices in the factory registry as staff would. Everything else of the server is its own.
 */
export { createDb, type Db } from './db/database.ts';
export { registerDevices } from './modules/device-registry/index.ts';
