/**
 * Each table belongs to one module (src/db/table-owners.ts): only the owner's code names it in a statement, the
 * others ask the owner's service. This test reads every non-test source file of src/modules, src/plugins and
 * src/lib (no database) and finds the tables each names: the Kysely calls (selectFrom, insertInto, updateTable,
 * deleteFrom, mergeInto, the joins) and raw SQL in `sql` templates and string literals (FROM, JOIN, INTO,
 * UPDATE, TABLE, …), comments left out. A module naming another's table is a crossing; the ones there are today
 * are listed, per (module, table) pair, in test/table-crossings.json (its `files` are information only). The
 * test fails when a crossing appears that is not listed, and when a listed one no longer happens, so the list
 * only shrinks. It also checks that the table of owners in docs/architecture.md is the one TABLE_OWNERS gives.
 *
 * After removing a crossing (or changing an owner), regenerate the list and the document's table:
 *   UPDATE_CROSSINGS=1 npx vitest run --root apps/server test/table-ownership.test.ts
 * and review the diff: the list should lose lines, not gain them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { INFRASTRUCTURE_OWNERS, MODULES, TABLE_OWNERS } from '../src/db/table-owners.ts';
import { compareCrossings, findCrossings, scanTables, type Crossing } from './table-scan.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const SRC = path.resolve(here, '../src');
const LIST = path.join(here, 'table-crossings.json');
const DOC = path.resolve(here, '../../../docs/architecture.md');
const START = '<!-- tables:start -->';
const END = '<!-- tables:end -->';
const UPDATE = process.env.UPDATE_CROSSINGS === '1';

const owners: Readonly<Record<string, string>> = TABLE_OWNERS;
const tables = new Set(Object.keys(TABLE_OWNERS));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

function currentCrossings(): Crossing[] {
  const files = ['modules', 'plugins', 'lib'].flatMap((d) =>
    sourceFiles(path.join(SRC, d)).map((f) => ({
      path: path.relative(SRC, f).split(path.sep).join('/'),
      source: fs.readFileSync(f, 'utf8'),
    })),
  );
  return findCrossings(files, owners);
}

/** The document's table of owners: every module (those owning nothing too), then the floors below them. */
async function ownersTable(): Promise<string> {
  const row = (owner: string) => {
    const owned = Object.keys(TABLE_OWNERS)
      .filter((t) => owners[t] === owner)
      .sort();
    return `| \`${owner}\` | ${owned.length ? owned.map((t) => `\`${t}\``).join(', ') : '—'} |`;
  };
  const text = [
    '| owner | tables |',
    '| --- | --- |',
    ...[...MODULES].sort().map(row),
    ...[...INFRASTRUCTURE_OWNERS].map(row),
  ].join('\n');
  return (await prettier.format(text, { ...(await prettier.resolveConfig(DOC)), parser: 'markdown' })).trim();
}

async function formatted(file: string, text: string): Promise<string> {
  return prettier.format(text, { ...(await prettier.resolveConfig(file)), filepath: file });
}

describe('table ownership', () => {
  it('names each folder of src/modules as a module', () => {
    const folders = fs
      .readdirSync(path.join(SRC, 'modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...MODULES].sort(), 'src/db/table-owners.ts MODULES lists the folders of src/modules').toEqual(folders);
  });

  it('gives tables to owners below the modules that exist', () => {
    for (const owner of INFRASTRUCTURE_OWNERS) {
      const exists = fs.existsSync(path.join(SRC, owner)) || fs.existsSync(path.join(SRC, `${owner}.ts`));
      expect(exists, `src/${owner} (or src/${owner}.ts) exists`).toBe(true);
    }
  });

  it('has only the listed crossings of one module into the tables of another', async () => {
    const found = currentCrossings();
    if (UPDATE) {
      fs.writeFileSync(LIST, await formatted(LIST, JSON.stringify(found, null, 2)));
      return;
    }
    const listed = JSON.parse(fs.readFileSync(LIST, 'utf8')) as Crossing[];
    const keys = listed.map((c) => `${c.module} ${c.table}`);
    expect(
      keys.filter((k, i) => keys.indexOf(k) !== i),
      'pairs listed twice',
    ).toEqual([]);
    const problems = compareCrossings(found, listed, owners);
    expect(problems, `\n${problems.join('\n')}\n`).toEqual([]);
  });

  it('shows the owners in docs/architecture.md', async () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    const start = doc.indexOf(START);
    const end = doc.indexOf(END);
    expect(start >= 0 && end > start, `docs/architecture.md has ${START} … ${END}`).toBe(true);
    const table = await ownersTable();
    if (UPDATE) {
      fs.writeFileSync(DOC, `${doc.slice(0, start + START.length)}\n\n${table}\n\n${doc.slice(end)}`);
      return;
    }
    expect(
      doc.slice(start + START.length, end).trim(),
      'the table of owners in docs/architecture.md is out of date: UPDATE_CROSSINGS=1 npx vitest run --root apps/server test/table-ownership.test.ts',
    ).toBe(table);
  });
});

describe('the table scanner', () => {
  const named = (source: string) => [...new Set(scanTables(source, tables).map((m) => m.table))].sort();
  const owned = { devices: 'device', fences: 'fence', messages: 'inbox' };

  it('finds a table in the query builder, with an alias, in an array and in a join', () => {
    expect(named(`db.selectFrom('devices as d').selectAll().execute();`)).toEqual(['devices']);
    expect(named(`db.selectFrom(['fences as f', 'devices']).selectAll().execute();`)).toEqual(['devices', 'fences']);
    expect(named(`db.selectFrom('fences').innerJoin('devices as d', 'd.id', 'fences.id');`)).toEqual([
      'devices',
      'fences',
    ]);
    expect(named(`trx.insertInto('messages').values(row); db.deleteFrom('sims').execute();`)).toEqual([
      'messages',
      'sims',
    ]);
  });

  it('finds a table in raw SQL, upper or lower case, around substitutions', () => {
    expect(named('await sql`UPDATE devices SET status = ${s} WHERE id = ${id}`.execute(db);')).toEqual(['devices']);
    expect(named('sql`select 1 from fences f join lateral (select 1) x on true left join devices d on true`')).toEqual([
      'devices',
      'fences',
    ]);
    expect(named('sql`WITH u AS (${q}) INSERT INTO messages (a) SELECT a FROM u`')).toEqual(['messages']);
    expect(named(`const q = 'DELETE FROM "devices" WHERE id = $1';`)).toEqual(['devices']);
  });

  it('does not count comments, prose or words that are not tables', () => {
    const source = [
      '// SELECT * FROM devices: a comment',
      '/* UPDATE devices SET x = 1 */',
      `log.info('moved from the device list');`,
      `const label = 'devices';`,
      `const route = '/apiAdmin/devices/list';`,
      'sql`select 1 from generate_series(1, 3) join unnest(${a}) on true`',
      `db.selectFrom(table).selectAll();`,
    ].join('\n');
    expect(named(source)).toEqual([]);
  });

  it('reports a module naming another module’s table, by file and owner', () => {
    const files = [
      { path: 'modules/fence/service.ts', source: `db.selectFrom('devices as d').select('d.id');` },
      { path: 'modules/fence/repository.ts', source: 'sql`UPDATE devices SET x = 1`; db.selectFrom("fences");' },
      { path: 'modules/device/service.ts', source: `db.updateTable('devices').set({ x: 1 });` },
      { path: 'plugins/mqtt/presence.ts', source: `// INSERT INTO messages\nconst s = 'from devices';` },
    ];
    const found = findCrossings(files, owned);
    expect(found).toEqual([
      { module: 'fence', table: 'devices', files: ['modules/fence/repository.ts', 'modules/fence/service.ts'] },
      { module: 'plugins/mqtt', table: 'devices', files: ['plugins/mqtt/presence.ts'] },
    ]);
    const problems = compareCrossings(found, [{ module: 'fence', table: 'devices' }], owned);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('plugins/mqtt/presence.ts names the table devices, owned by device');
    expect(problems[0]).toContain("ask the owner's service");
  });

  it('asks for a listed crossing that no longer happens to be removed from the list', () => {
    const problems = compareCrossings(
      [],
      [
        { module: 'fence', table: 'devices' },
        { module: 'inbox', table: 'fences' },
      ],
      owned,
    );
    expect(problems).toEqual([
      'fence no longer names the table devices: remove it from the list (test/table-crossings.json)',
      'inbox no longer names the table fences: remove it from the list (test/table-crossings.json)',
    ]);
  });
});
