import ts from 'typescript';

/** One place a source file names a table in a statement. */
export interface TableMention {
  table: string;
  line: number;
  /** `selectFrom`, `innerJoin`, … for the query builder; `sql FROM`, `sql UPDATE`, … for raw SQL in a template or
   * a string literal. */
  via: string;
}

/** Kysely calls whose string arguments ('t', 't as x', or an array of those) name tables. */
const BUILDER_CALLS = new Set([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'using',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoin',
  'crossJoinLateral',
  'table', // sql.table('t')
]);

/**
 * SQL words after which a table's name comes: FROM t, JOIN t (every kind, LATERAL too), INTO t, UPDATE t,
 * DELETE FROM t, TABLE t (LOCK TABLE, TABLE t), TRUNCATE t, USING t (DELETE … USING, MERGE … USING), with
 * ONLY, a schema or double quotes allowed. Lower case counts: the code writes SQL in both.
 */
const SQL_NAME =
  /\b(from|join|into|update|table|truncate|using)\s+(?:lateral\s+)?(?:only\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi;

/** The table a builder argument names: 'devices as d' → devices, 'public.devices' → devices. */
function builderTable(text: string): string {
  const name = text
    .trim()
    .split(/\s+as\s+/i)[0]!
    .trim();
  return name.startsWith('public.') ? name.slice('public.'.length) : name;
}

/**
 * The tables (of `tables`) a TypeScript source names in statements: the query builder's table arguments and
 * raw SQL in `sql` templates and string literals. Comments are not read (the parser drops them), and a word
 * after FROM/JOIN/… counts only when it is a real table, so prose such as 'from the user' never does.
 */
export function scanTables(source: string, tables: ReadonlySet<string>, fileName = 'snippet.ts'): TableMention[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: TableMention[] = [];
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const add = (table: string, node: ts.Node, via: string) => {
    if (tables.has(table)) found.push({ table, line: lineOf(node), via });
  };
  const builderArg = (arg: ts.Expression, via: string) => {
    if (ts.isStringLiteralLike(arg)) add(builderTable(arg.text), arg, via);
    else if (ts.isArrayLiteralExpression(arg)) for (const el of arg.elements) builderArg(el, via);
  };
  const rawText = (text: string, node: ts.Node) => {
    for (const m of text.matchAll(SQL_NAME)) add(m[2]!.toLowerCase(), node, `sql ${m[1]!.toUpperCase()}`);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : undefined;
      if (name && BUILDER_CALLS.has(name) && node.arguments.length > 0) builderArg(node.arguments[0]!, name);
    }
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      rawText(node.text, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Who a server source file belongs to, by its path under `src/`: its module, `plugins/<name>` or `lib`. */
export function ownerOfFile(relPath: string): string | undefined {
  const parts = relPath.split('/');
  if (parts[0] === 'modules' && parts.length > 2) return parts[1];
  if (parts[0] === 'plugins') return `plugins/${parts[1]!.replace(/\.ts$/, '')}`;
  if (parts[0] === 'lib') return 'lib';
  return undefined;
}

/** One module (or plugin, or lib) naming a table another owns, and the files where it does. */
export interface Crossing {
  module: string;
  table: string;
  files: string[];
}

/**
 * The crossings of a set of source files (paths under `src/`): every (owner of the file, table) pair where the
 * file names a table that `owners` gives to someone else, sorted by module then table.
 */
export function findCrossings(
  files: ReadonlyArray<{ path: string; source: string }>,
  owners: Readonly<Record<string, string>>,
): Crossing[] {
  const tables = new Set(Object.keys(owners));
  const pairs = new Map<string, Crossing>();
  for (const file of files) {
    const module = ownerOfFile(file.path);
    if (!module) continue;
    for (const { table } of scanTables(file.source, tables, file.path)) {
      if (owners[table] === module) continue;
      const key = `${module} ${table}`;
      const crossing = pairs.get(key) ?? { module, table, files: [] };
      if (!crossing.files.includes(file.path)) crossing.files.push(file.path);
      pairs.set(key, crossing);
    }
  }
  return [...pairs.values()]
    .map((c) => ({ ...c, files: c.files.sort() }))
    .sort((a, b) => a.module.localeCompare(b.module) || a.table.localeCompare(b.table));
}

/**
 * What differs between the crossings found and the listed ones, as messages, compared by (module, table) pair
 * only (the files are information: statements move between a module's files).
 */
export function compareCrossings(
  found: readonly Crossing[],
  listed: ReadonlyArray<Pick<Crossing, 'module' | 'table'>>,
  owners: Readonly<Record<string, string>>,
): string[] {
  const key = (c: Pick<Crossing, 'module' | 'table'>) => `${c.module} ${c.table}`;
  const listedKeys = new Set(listed.map(key));
  const foundKeys = new Set(found.map(key));
  const problems: string[] = [];
  for (const c of found) {
    if (listedKeys.has(key(c))) continue;
    problems.push(
      `${c.files.join(', ')} names the table ${c.table}, owned by ${owners[c.table]}: ` +
        `ask the owner's service (${owners[c.table]}) instead of naming its table in ${c.module}`,
    );
  }
  for (const c of listed) {
    if (foundKeys.has(key(c))) continue;
    problems.push(
      `${c.module} no longer names the table ${c.table}: remove it from the list (test/table-crossings.json)`,
    );
  }
  return problems;
}
