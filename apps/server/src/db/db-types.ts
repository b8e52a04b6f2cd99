/**
 * `npm run db:types -w apps/server`: writes src/db/generated.ts, the row types of the database, from a throwaway
 * embedded PostgreSQL (temporary folder, free port) migrated to the latest (DATABASE_URL is not touched).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, migrate } from './database.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { GENERATED_FILE, renderDbTypes } from './codegen.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-db-types-'));
try {
  const pg = await startEmbeddedPostgres(dir);
  try {
    const db = createDb(pg.url, 2);
    try {
      await migrate(db);
      const text = await renderDbTypes(db);
      const file = fileURLToPath(GENERATED_FILE);
      const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      fs.writeFileSync(file, text);
      console.log(`${path.relative(process.cwd(), file)} ${before === text ? 'is up to date' : 'written'}`);
    } finally {
      await db.destroy();
    }
  } finally {
    await pg.stop();
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
