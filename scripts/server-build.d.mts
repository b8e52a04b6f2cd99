/** The compiled entry `node` runs: apps/server/dist/<name>.mjs ('main' for `npm start`, 'supervised' for a parent program). */
export function serverEntry(name?: 'main' | 'supervised'): string;
/** Compiles the server when its compiled entries are missing or older than their sources. */
export function ensureServerBuilt(options?: { force?: boolean; quiet?: boolean }): Promise<void>;
/** The Node flags `npm start` runs the compiled server with. */
export const SERVER_NODE_FLAGS: string[];
