import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DiffChecker } from 'kysely-codegen';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { GENERATED_FILE, renderDbTypes } from '../src/db/codegen.ts';
import { createTestDatabase } from './harness.ts';

/**
 * src/db/generated.ts is what kysely-codegen gives for the migrated schema: a migration committed without
 * `npm run db:types -w apps/server` fails here, with the lines that differ.
 */
let db: Db | undefined;
let upToDate = false;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-db-types-test-'));
afterAll(async () => {
  await db?.destroy();
  // kept when it differs, for a look
  if (upToDate) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the generated row types', () => {
  it('are what the migrations give (else run npm run db:types -w apps/server)', async () => {
    db = createDb(await createTestDatabase(), 2);
    await migrate(db);
    const fresh = path.join(tmp, 'generated.ts');
    fs.writeFileSync(fresh, await renderDbTypes(db));
    const committed = fs.readFileSync(fileURLToPath(GENERATED_FILE), 'utf8');
    const diff = new DiffChecker().diff(committed, fs.readFileSync(fresh, 'utf8'));
    upToDate = diff === undefined;
    expect(
      diff,
      `src/db/generated.ts is out of date (regenerated into ${fresh}); run \`npm run db:types -w apps/server\`. Difference (- committed, + from the migrations):\n${diff}`,
    ).toBeUndefined();
  });
});
