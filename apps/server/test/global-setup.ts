import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

/** One real PostgreSQL for the whole run (external when DATABASE_URL is set); each test file gets its own database. */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgUrl', process.env.DATABASE_URL);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-test-pg-'));
  const pg = await startEmbeddedPostgres(dir);
  project.provide('pgUrl', pg.url);
  return async () => {
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
