/** The device-model module's public entry: the platform's catalogue of models. */
export { deviceModelRoutes } from './routes.ts';
