/** The print module's public entry: print jobs, their content and their upkeep. */
export { PrintContent } from './content.ts';
export { PrintService, toOpenJob, type PrintDownlink } from './service.ts';
