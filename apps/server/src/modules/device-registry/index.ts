/** The device-registry module's public entry: factory registration and bind keys. */
export { deviceRegistryRoutes } from './routes.ts';
export { newBindKey, registerDevices } from './service.ts';
