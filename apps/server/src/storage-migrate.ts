/**
 * `npm run storage:migrate -w apps/server [-- --delete-local] [--from DIR]` (issue 17): copies the objects of the
 * local folder (DATA_DIR/objects, or --from) to the bucket STORAGE_URL names. Idempotent (same key and size:
 * skipped); the local copies stay unless --delete-local. Prints the counts; exits 1 when an object failed.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { LocalDriver, storageDriver } from './lib/storage/index.ts';
import { migrateObjects } from './lib/storage/migrate.ts';

// `npm run -w apps/server` runs in apps/server: relative paths (DATA_DIR, --from) are the caller's
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
const { values } = parseArgs({
  options: { 'delete-local': { type: 'boolean', default: false }, from: { type: 'string' } },
});
const config = loadConfig();
if (!config.STORAGE_URL?.startsWith('s3:')) {
  process.stderr.write('storage:migrate: set STORAGE_URL=s3://bucket?endpoint=… to the bucket to copy to\n');
  process.exit(2);
}
const from = values.from ? path.resolve(values.from) : path.join(config.dataDir, 'objects');
const target = await storageDriver(config.STORAGE_URL, from);
const log = (line: string) => process.stdout.write(`${line}\n`);
log(`copying the objects of ${from} to the bucket${values['delete-local'] ? ' (deleting the local copies)' : ''}`);
const counts = await migrateObjects(new LocalDriver(from), target, { deleteLocal: values['delete-local'], log });
log(
  `found ${counts.found}, copied ${counts.copied}, already there ${counts.skipped}, failed ${counts.failed}` +
    (values['delete-local'] ? `, local copies deleted ${counts.deleted}` : ''),
);
process.exit(counts.failed ? 1 : 0);
