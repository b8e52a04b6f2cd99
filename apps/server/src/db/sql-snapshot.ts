/**
 * The SQL snapshots' machinery (how to write a spec: query-spec.ts). Each sample call of a spec runs against a
 * Kysely whose driver compiles like PostgreSQL's but sends nothing: it records every statement (transactions'
 * begin/commit included) and answers with no rows, or the rows the sample gives. `npm run sql:snapshot` writes
 * the result to src/queries/<module>.sql; test/sql-snapshots.test.ts compares it with the files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Database } from './schema.ts';
import type { Db } from './database.ts';
import { isQuerySpec, type QueryCall, type QuerySpec } from './query-spec.ts';
import { REPOSITORY_BASE } from './repository.ts';

/** One statement as PostgreSQL would receive it. */
export interface Recorded {
  sql: string;
  parameters: readonly unknown[];
}

/** Statements of one sample call, and why it stopped early when it threw. */
export interface CallRecord {
  statements: Recorded[];
  note?: string;
}

type Rows = readonly (readonly Record<string, unknown>[])[];

/** A connection that keeps what it is asked to run and answers from `results` (then with no rows). */
class RecordingConnection implements DatabaseConnection {
  private next = 0;
  constructor(
    readonly log: Recorded[],
    private results: Rows,
  ) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    return this.answer<R>(q);
  }

  async *streamQuery<R>(q: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield this.answer<R>(q);
  }

  /** Records a transaction's control statement without using up a sample result. */
  control(text: string): void {
    this.log.push({ sql: text, parameters: [] });
  }

  private answer<R>(q: CompiledQuery): QueryResult<R> {
    this.log.push({ sql: q.sql, parameters: q.parameters });
    const rows = (this.results[this.next++] ?? []) as R[];
    return { rows: [...rows] };
  }
}

class RecordingDriver implements Driver {
  constructor(private connection: RecordingConnection) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(_c: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const iso = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const mode = settings.accessMode ? ` ${settings.accessMode}` : '';
    this.connection.control(iso || mode ? `start transaction${iso}${mode}` : 'begin');
  }
  async commitTransaction(): Promise<void> {
    this.connection.control('commit');
  }
  async rollbackTransaction(): Promise<void> {
    this.connection.control('rollback');
  }
  async savepoint(_c: DatabaseConnection, name: string): Promise<void> {
    this.connection.control(`savepoint ${name}`);
  }
  async rollbackToSavepoint(_c: DatabaseConnection, name: string): Promise<void> {
    this.connection.control(`rollback to ${name}`);
  }
  async releaseSavepoint(_c: DatabaseConnection, name: string): Promise<void> {
    this.connection.control(`release ${name}`);
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** A Kysely that compiles for PostgreSQL and records into `log` instead of sending. */
export function recordingDb(log: Recorded[], results: Rows = []): Db {
  const connection = new RecordingConnection(log, results);
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new RecordingDriver(connection),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

/** The instant `new Date()` and `Date.now()` give while a sample runs, so the snapshot does not change daily. */
export const FROZEN_NOW = Date.UTC(2026, 0, 1);
const RealDate = Date;

async function withFrozenClock<T>(work: () => Promise<T>): Promise<T> {
  class FrozenDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(FROZEN_NOW);
      else super(...(args as [number]));
    }
    static override now(): number {
      return FROZEN_NOW;
    }
  }
  globalThis.Date = FrozenDate as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = RealDate;
  }
}

/** Runs one sample call of `method` and returns what it sent. */
export async function recordCall(spec: QuerySpec, method: string, call: QueryCall<unknown[]>): Promise<CallRecord> {
  const log: Recorded[] = [];
  const results = Array.isArray(call) ? [] : (call.results ?? []);
  const db = recordingDb(log, results);
  const args = Array.isArray(call) ? call : typeof call.args === 'function' ? call.args(db) : call.args;
  let note: string | undefined;
  await withFrozenClock(async () => {
    try {
      const repo = spec.create(db) as Record<string, (...a: unknown[]) => unknown>;
      await drain(await repo[method](...args), log);
    } catch (err) {
      const e = err as Error;
      const name = e.name === 'Error' ? e.constructor.name : e.name;
      note = `threw ${name}: ${e.message.split('\n')[0]}`;
    }
  });
  return note ? { statements: log, note } : { statements: log };
}

/** A method may hand back a query unexecuted (to be composed) or a stream: record that too. */
async function drain(result: unknown, log: Recorded[]): Promise<void> {
  if (!result || typeof result !== 'object') return;
  const r = result as { compile?: () => CompiledQuery; [Symbol.asyncIterator]?: unknown };
  if (typeof r.compile === 'function' && r.compile.length === 0 && 'toOperationNode' in r) {
    const q = r.compile();
    log.push({ sql: q.sql, parameters: q.parameters });
  } else if (typeof r[Symbol.asyncIterator] === 'function') {
    for await (const _ of result as AsyncIterable<unknown>) void _;
  }
}

// -------------------------------------------------------------------------------------------------------------
// Readable SQL: Kysely writes a statement on one line.

/** Longest first, so `left join` wins over a plain `join` and `do update set` over `set`. */
const BREAK_BEFORE = [
  'on conflict',
  'do update set',
  'inner join',
  'left join',
  'right join',
  'full join',
  'cross join',
  'order by',
  'group by',
  'returning',
  'for update',
  'for share',
  'union all',
  'having',
  'values',
  'offset',
  'where',
  'limit',
  'union',
  'from',
  'join',
  'set',
].sort((a, b) => b.length - a.length);

/**
 * Breaks a statement before its major keywords (in either case; not `delete from`), at the top level and inside sub-statements (indented by their
 * depth); a keyword inside another parenthesis (`extract(epoch from …)`) or inside quotes stays. Whitespace
 * outside quotes is collapsed first, so hand-written `sql` templates come out in the same shape.
 */
export function formatSql(text: string): string {
  const s = collapseWhitespace(text);
  let out = '';
  let quote: string | null = null;
  const groups: boolean[] = []; // per open parenthesis: does it hold a sub-statement?
  const depth = () => groups.filter(Boolean).length;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      out += c;
      if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '(') groups.push(/^\s*(select|with|update|insert|delete)\s/i.test(s.slice(i + 1, i + 9)));
    else if (c === ')') groups.pop();
    else if (c === ' ' && (groups.length === 0 || groups[groups.length - 1])) {
      const kw = BREAK_BEFORE.find(
        (k) => s.slice(i + 1, i + 1 + k.length).toLowerCase() === k && /^[\s(;]|^$/.test(s.slice(i + 1 + k.length)),
      );
      if (kw && !(kw === 'from' && out.toLowerCase().endsWith('delete'))) {
        out += `\n${'  '.repeat(depth())}${s.slice(i + 1, i + 1 + kw.length)}`;
        i += kw.length;
        continue;
      }
    }
    out += c;
  }
  return out;
}

function collapseWhitespace(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (const c of text.trim()) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (/\s/.test(c)) {
      if (!out.endsWith(' ')) out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

/** A sample value as one line of a comment. */
export function showValue(v: unknown): string {
  if (v instanceof RealDate) return Number.isNaN(v.getTime()) ? 'Invalid Date' : `'${v.toISOString()}'`;
  if (v instanceof Uint8Array) return `<${v.length} bytes>`;
  if (typeof v === 'string') return `'${v.replace(/'/g, "''").replace(/\n/g, '\\n')}'`;
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return `${v}`;
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}` : x));
}

// -------------------------------------------------------------------------------------------------------------
// Files

/** One method's part of a snapshot file: its header key (`NoticeRepository.list`) and text. */
export interface Section {
  key: string;
  text: string;
}

const sectionText = (key: string, calls: CallRecord[]): string =>
  calls
    .map((call, n) => {
      const lines = [`-- ${key}${calls.length > 1 ? ` #${n + 1}` : ''}`];
      if (!call.statements.length) lines.push('-- (no statement)');
      for (const st of call.statements) {
        if (st.parameters.length)
          lines.push(`-- ${st.parameters.map((p, i) => `$${i + 1} = ${showValue(p)}`).join(', ')}`);
        lines.push(`${formatSql(st.sql)};`);
      }
      if (call.note) lines.push(`-- (${call.note})`);
      return lines.join('\n');
    })
    .join('\n\n');

/** The sections of one spec, a method after another by name. */
export async function renderSpec(spec: QuerySpec): Promise<Section[]> {
  const name = spec.repository.name;
  const sections: Section[] = [];
  for (const method of Object.keys(spec.calls).sort()) {
    const entry = (spec.calls as Record<string, unknown>)[method];
    if (!Array.isArray(entry)) continue; // skipped, with its reason in the spec
    const calls: CallRecord[] = [];
    for (const call of entry as QueryCall<unknown[]>[]) calls.push(await recordCall(spec, method, call));
    sections.push({ key: `${name}.${method}`, text: sectionText(`${name}.${method}`, calls) });
  }
  return sections;
}

export const FILE_HEADER =
  '-- Generated by `npm run sql:snapshot` from the query specs of the repositories (src/db/query-spec.ts).\n-- Do not edit: change the repository or its spec and run it again.\n';

export function renderFile(sections: Section[]): string {
  const sorted = [...sections].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return `${FILE_HEADER}\n${sorted.map((s) => s.text).join('\n\n')}\n`;
}

/** A snapshot file read back into its sections (a section runs from its header to the next method's). */
export function parseFile(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  let key: string | null = null;
  let lines: string[] = [];
  const close = () => {
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    if (key) sections.set(key, lines.join('\n'));
  };
  for (const line of text.split('\n')) {
    const head = /^-- ([\w$]+\.[\w$]+)(?: #(\d+))?$/.exec(line);
    if (head && (!head[2] || head[2] === '1')) {
      close();
      key = head[1];
      lines = [];
    }
    lines.push(line);
  }
  close();
  return sections;
}

/** What differs between the sections a module's specs give and its file on disk: one line per method. */
export function compareSnapshot(file: string, sections: Section[], onDisk: string | undefined): string[] {
  const advice = 'run npm run sql:snapshot and review the diff';
  if (onDisk === undefined) return [`${file} is missing (${sections.map((s) => s.key).join(', ')}): ${advice}`];
  if (onDisk === renderFile(sections)) return [];
  const disk = parseFile(onDisk);
  const problems: string[] = [];
  for (const s of sections) {
    const there = disk.get(s.key);
    if (there === undefined) problems.push(`${file}: ${s.key} is not in the file: ${advice}`);
    else if (there !== s.text) problems.push(`${file}: ${s.key} differs from its statements: ${advice}`);
  }
  const keys = new Set(sections.map((s) => s.key));
  for (const key of disk.keys())
    if (!keys.has(key)) problems.push(`${file}: ${key} is no longer a spec'd method: ${advice}`);
  return problems.length ? problems : [`${file} differs (layout): ${advice}`];
}

// -------------------------------------------------------------------------------------------------------------
// Discovery

/** The repository files under `modulesDir`: every `repository.ts` and every file of a `repository/` folder. */
export function findRepositoryFiles(modulesDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (/\.ts$/.test(d.name) && !/\.test\.ts$/.test(d.name)) {
        if (d.name === 'repository.ts' || path.basename(dir) === 'repository') found.push(p);
      }
    }
  };
  walk(modulesDir);
  return found.sort();
}

/** A repository file's specs and the repository classes it exports (a class named `…Repository`). */
export interface RepositoryFile {
  file: string;
  module: string;
  specs: QuerySpec[];
  classes: string[];
}

export async function loadRepositoryFiles(modulesDir: string): Promise<RepositoryFile[]> {
  const files: RepositoryFile[] = [];
  for (const file of findRepositoryFiles(modulesDir)) {
    const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const values = Object.values(exports);
    files.push({
      file,
      module: path.relative(modulesDir, file).split(path.sep)[0],
      specs: values.filter(isQuerySpec),
      classes: values
        .filter((v): v is abstract new () => unknown => typeof v === 'function' && /Repository$/.test(v.name))
        .map((c) => c.name)
        .filter((name) => declaredClass(file, name) !== undefined), // not one an index re-exports
    });
  }
  return files;
}

function declaredClass(file: string, className: string): ts.ClassDeclaration | undefined {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  return source.statements.find(
    (s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === className,
  );
}

/**
 * The public methods a class declares in its source (not private, protected, `#private` or static), but those of
 * every repository (`REPOSITORY_BASE`).
 */
export function publicMethods(file: string, className: string): string[] {
  const cls = declaredClass(file, className);
  if (!cls) return [];
  const hidden = [ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.StaticKeyword];
  return cls.members
    .filter(
      (m) =>
        ts.isMethodDeclaration(m) ||
        (ts.isPropertyDeclaration(m) && !!m.initializer && ts.isArrowFunction(m.initializer)),
    )
    .filter(
      (m) =>
        m.name &&
        ts.isIdentifier(m.name) &&
        !(ts.getModifiers(m as ts.HasModifiers) ?? []).some((x) => hidden.includes(x.kind)),
    )
    .map((m) => (m.name as ts.Identifier).text)
    .filter((name, i, all) => all.indexOf(name) === i && !(REPOSITORY_BASE as readonly string[]).includes(name));
}

/** What a file's specs leave out: a class without a spec, a public method without an entry, an entry too many. */
export function specProblems(f: RepositoryFile): string[] {
  const rel = path.relative(process.cwd(), f.file);
  const problems: string[] = [];
  for (const cls of f.classes) {
    const spec = f.specs.find((s) => s.repository.name === cls);
    if (!spec) {
      problems.push(`${rel}: ${cls} has no query spec (export defineQueries(${cls}, {...}), see src/db/query-spec.ts)`);
      continue;
    }
    const entries = Object.keys(spec.calls);
    const methods = publicMethods(f.file, cls);
    for (const m of methods)
      if (!entries.includes(m))
        problems.push(`${rel}: ${cls}.${m} has no entry in the query spec (sample calls, or skip('reason'))`);
    for (const e of entries)
      if (!methods.includes(e)) problems.push(`${rel}: ${cls}.${e} in the query spec is not a public method`);
    const empty = entries.filter(
      (e) =>
        Array.isArray((spec.calls as Record<string, unknown>)[e]) &&
        !(spec.calls as Record<string, unknown[]>)[e].length,
    );
    for (const e of empty) problems.push(`${rel}: ${cls}.${e} has no sample call`);
  }
  return problems;
}

/** Every module's snapshot file name (`<module>.sql`) and text. */
export async function renderModules(files: RepositoryFile[]): Promise<Map<string, Section[]>> {
  const modules = new Map<string, Section[]>();
  const seen = new Set<QuerySpec>(); // a spec an index re-exports counts once
  for (const f of files) {
    for (const spec of f.specs) {
      if (seen.has(spec)) continue;
      seen.add(spec);
      const sections = modules.get(`${f.module}.sql`) ?? [];
      sections.push(...(await renderSpec(spec)));
      modules.set(`${f.module}.sql`, sections);
    }
  }
  return modules;
}
