import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from './database.ts';
import { defineQueries, type QueryCalls } from './query-spec.ts';
import { compareSnapshot, formatSql, recordCall, renderFile, renderSpec, specProblems } from './sql-snapshot.ts';

/** A repository of the kind the modules have, to show what the snapshot machinery records and refuses. */
class GadgetRepository {
  constructor(private db: Db) {}

  /** Departments of a tenant, by name when asked. */
  list(tenantId: number, keyword?: string) {
    return this.db
      .selectFrom('departments')
      .select(['id', 'name'])
      .where('tenant_id', '=', tenantId)
      .$if(!!keyword, (b) => b.where('name', 'ilike', `%${keyword}%`))
      .orderBy('id')
      .execute();
  }

  /** Renames under a row lock, in one transaction; 404-like throw when the row is gone. */
  rename(id: number, name: string) {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('departments')
        .select('id')
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      await trx.updateTable('departments').set({ name }).where('id', '=', row.id).execute();
    });
  }

  /** Writes the current time: the snapshot shows the frozen clock, not today's. */
  async touch(id: number) {
    await sql`update departments set name = name where id = ${id} and ${new Date()} > now()`.execute(this.db);
  }

  transaction<T>(work: (repo: GadgetRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new GadgetRepository(trx)));
  }

  private helper() {
    return this.db.selectFrom('departments').selectAll();
  }
}

const file = fileURLToPath(import.meta.url);
const complete = defineQueries(GadgetRepository, {
  list: [[3], [3, 'sales']],
  rename: [[12, 'Sales'], { args: [12, 'Sales'], results: [[{ id: 12 }]] }],
  touch: [[12]],
});

describe('recording a repository', () => {
  it('keeps a transaction and what ran before a throw on an empty result', async () => {
    const empty = await recordCall(complete, 'rename', [12, 'Sales']);
    expect(empty.statements.map((s) => s.sql.split(' ')[0])).toEqual(['begin', 'select', 'rollback']);
    expect(empty.note).toMatch(/^threw NoResultError/);
    const found = await recordCall(complete, 'rename', { args: [12, 'Sales'], results: [[{ id: 12 }]] });
    expect(found.statements.map((s) => s.sql.split(' ')[0])).toEqual(['begin', 'select', 'update', 'commit']);
    expect(found.statements[2].parameters).toEqual(['Sales', 12]);
    expect(found.note).toBeUndefined();
  });

  it('writes the frozen clock, so a snapshot does not change with the day', async () => {
    const text = (await renderSpec(complete)).find((s) => s.key === 'GadgetRepository.touch')!.text;
    expect(text).toContain("$2 = '2026-01-01T00:00:00.000Z'");
    expect(new Date().getFullYear()).not.toBe(1970); // the real clock is back
  });

  it('breaks a statement before its keywords, not inside a function call or quotes', () => {
    expect(
      formatSql(
        'select "a" from "t" inner join "u" on "u"."id" = "t"."id" where extract(epoch from "t"."at") > 1 and "b" = \'x from y\' order by "a" limit $1',
      ),
    ).toBe(
      'select "a"\nfrom "t"\ninner join "u" on "u"."id" = "t"."id"\nwhere extract(epoch from "t"."at") > 1 and "b" = \'x from y\'\norder by "a"\nlimit $1',
    );
    expect(formatSql('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log ORDER BY at LIMIT $1)')).toBe(
      'DELETE FROM audit_log\nWHERE id IN (SELECT id\n  FROM audit_log\n  ORDER BY at\n  LIMIT $1)',
    );
    expect(formatSql('select "a" from "t" where exists (select 1 from "u" where "u"."t" = "t"."id")')).toBe(
      'select "a"\nfrom "t"\nwhere exists (select 1\n  from "u"\n  where "u"."t" = "t"."id")',
    );
  });
});

describe('the snapshot check', () => {
  it('passes when the file is what the spec gives', async () => {
    const sections = await renderSpec(complete);
    expect(compareSnapshot('gadget.sql', sections, renderFile(sections))).toEqual([]);
  });

  it('fails naming the method whose statement changed, and says how to fix it', async () => {
    const sections = await renderSpec(complete);
    const stale = renderFile(sections).replace('order by "id"', 'order by "name"');
    expect(compareSnapshot('gadget.sql', sections, stale)).toEqual([
      'gadget.sql: GadgetRepository.list differs from its statements: run npm run sql:snapshot and review the diff',
    ]);
    expect(compareSnapshot('gadget.sql', sections, undefined)[0]).toMatch(
      /gadget.sql is missing .*run npm run sql:snapshot/,
    );
  });

  it('fails when a public method has no entry, and not for a private helper', () => {
    const calls = {
      list: [[3]],
      rename: [[12, 'Sales']],
    } as unknown as QueryCalls<GadgetRepository>;
    const partial = defineQueries(GadgetRepository, calls);
    const problems = specProblems({ file, module: 'gadget', specs: [partial], classes: ['GadgetRepository'] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/GadgetRepository\.touch has no entry in the query spec/);
    expect(specProblems({ file, module: 'gadget', specs: [complete], classes: ['GadgetRepository'] })).toEqual([]);
  });

  it('fails when a repository class has no spec', () => {
    expect(specProblems({ file, module: 'gadget', specs: [], classes: ['GadgetRepository'] })[0]).toMatch(
      /GadgetRepository has no query spec/,
    );
  });
});
