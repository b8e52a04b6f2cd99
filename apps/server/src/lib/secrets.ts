import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';

/** Returns the named secret, creating it once; stored in the database so every server node shares it. */
export async function ensureSecret(db: Db, key: string, bytes = 32): Promise<string> {
  await db
    .insertInto('app_settings')
    .values({ key, value: randomBytes(bytes).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('app_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}
