import { sql, type Kysely } from 'kysely';

/** Menu management: every change of the menu tree stored as a version; which seed records were already put in. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- One row per change of the menu (and per rollback): the whole tree after it, with the records' ids.
    CREATE TABLE menu_versions (
      id bigserial PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now(),
      user_id bigint REFERENCES users(id) ON DELETE SET NULL,
      note text NOT NULL DEFAULT '',
      tree jsonb NOT NULL
    );

    -- The seed records already put in, by name, with the seed version that brought them: the seed inserts a
    -- name only once, so staff edits, moves and deletions survive a restart.
    CREATE TABLE menu_seeds (
      name text PRIMARY KEY,
      version int NOT NULL
    );
    INSERT INTO menu_seeds (name, version) SELECT name, 1 FROM menus;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE menu_seeds, menu_versions`.execute(db);
}
