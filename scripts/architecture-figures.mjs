// `npm run figures:architecture`: the size and shape of the server's code (apps/server/src, test files and the
// generated row types left out), the figures the architecture step is measured by:
//   - the largest files and how many pass 500 lines;
//   - functions over 80 lines (ESLint's max-lines-per-function, blank lines and comments not counted, with a
//     configuration of its own so the repository's lint settings do not change the figure);
//   - Kysely query-builder sites (.selectFrom/.insertInto/.updateTable/.deleteFrom) and whole raw statements
//     (`sql` templates that begin with SELECT, INSERT, UPDATE, DELETE or WITH and are executed), inside
//     repositories (repository.ts, or files under a repository/ folder) and outside;
//   - the other `sql` templates (fragments of a statement) outside repositories;
//   - the modules whose code names the `devices` table (the scanner of test/table-ownership.test.ts).
// Comments are never counted: files are read with the TypeScript parser.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { tsImport } from 'tsx/esm/api';

const root = path.resolve(import.meta.dirname, '..');
// another copy of the server's sources may be measured instead (`git archive <commit> apps/server/src | tar -x -C /tmp/x`)
const src = path.resolve(process.argv[2] ?? path.join(root, 'apps/server/src'));
const GENERATED = new Set(['db/generated.ts']);
const MAX_FILE = 500;
const MAX_FUNCTION = 80;
const LONG_FUNCTION = 150;
const BUILDER = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom']);
const STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

const rel = (file) => path.relative(src, file).split(path.sep).join('/');

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !GENERATED.has(rel(full)) ? [full] : [];
  });
}

const isRepository = (file) => {
  const parts = rel(file).split('/');
  return parts.at(-1) === 'repository.ts' || parts.slice(0, -1).includes('repository');
};

/** The text of a template with its substitutions left out: `${PREPARED} UPDATE …` reads `UPDATE …`. */
const literalText = (t) =>
  ts.isNoSubstitutionTemplateLiteral(t) ? t.text : t.head.text + t.templateSpans.map((s) => s.literal.text).join('');

/**
 * A whole raw statement: a `sql` template that begins with SELECT, INSERT, UPDATE, DELETE or WITH (not with a
 * parenthesis: that is a subquery) and is executed, either at once (`sql`…`.execute(db)`) or by the function it is
 * handed to (print's `transition(sql`UPDATE …`)`). Anything else is a fragment of a statement.
 */
function isStatement(node) {
  if (!STATEMENT.test(literalText(node.template))) return false;
  const parent = node.parent;
  const executed =
    ts.isPropertyAccessExpression(parent) && parent.expression === node && parent.name.text === 'execute';
  const handed = ts.isCallExpression(parent) && parent.arguments.includes(node);
  return executed || handed;
}

/** Builder calls, whole raw statements and `sql` fragments of one file. */
function statementsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = { builder: 0, statements: 0, fragments: 0 };
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      BUILDER.has(node.expression.name.text)
    ) {
      out.builder++;
    }
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'sql') {
      if (isStatement(node)) out.statements++;
      else out.fragments++;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

async function longFunctions(files) {
  const eslint = new ESLint({
    cwd: src,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
        rules: {
          'max-lines-per-function': ['error', { max: MAX_FUNCTION, skipBlankLines: true, skipComments: true }],
        },
      },
    ],
  });
  const results = await eslint.lintFiles(files);
  const found = [];
  for (const r of results) {
    for (const m of r.messages) {
      if (m.fatal) throw new Error(`${rel(r.filePath)}: ${m.message}`);
      if (m.ruleId !== 'max-lines-per-function') continue;
      const lines = Number(/\((\d+)\)/.exec(m.message)?.[1]);
      found.push({ file: rel(r.filePath), line: m.line, lines });
    }
  }
  return found.sort((a, b) => b.lines - a.lines);
}

const started = Date.now();
const files = sourceFiles(src);
const texts = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
const sizes = files.map((f) => ({ file: rel(f), lines: lineCount(texts.get(f)) })).sort((a, b) => b.lines - a.lines);

const counts = {
  inside: { builder: 0, statements: 0, fragments: 0 },
  outside: { builder: 0, statements: 0, fragments: 0 },
};
for (const f of files) {
  const c = statementsOf(f, texts.get(f));
  const side = isRepository(f) ? counts.inside : counts.outside;
  for (const k of Object.keys(c)) side[k] += c[k];
}

const { scanTables } = await tsImport('../apps/server/test/table-scan.ts', import.meta.url);
const { TABLE_OWNERS } = await tsImport('../apps/server/src/db/table-owners.ts', import.meta.url);
const tables = new Set(Object.keys(TABLE_OWNERS));
const devicesBy = new Set();
for (const f of files) {
  const parts = rel(f).split('/');
  if (parts[0] !== 'modules') continue;
  if (scanTables(texts.get(f), tables, f).some((m) => m.table === 'devices')) devicesBy.add(parts[1]);
}
const modules = fs.readdirSync(path.join(src, 'modules'), { withFileTypes: true }).filter((e) => e.isDirectory());

const functions = await longFunctions(files);

const n = (x) => x.toLocaleString('en');
console.log(
  `apps/server/src: ${n(files.length)} files, ${n(sizes.reduce((s, x) => s + x.lines, 0))} lines (tests and db/generated.ts left out)`,
);
console.log('');
console.log('Largest files (lines):');
for (const s of sizes.slice(0, 10)) console.log(`  ${String(s.lines).padStart(5)}  ${s.file}`);
console.log(`Files over ${MAX_FILE} lines: ${sizes.filter((s) => s.lines > MAX_FILE).length}`);
console.log('');
console.log(
  `Functions over ${MAX_FUNCTION} lines (blank lines and comments not counted): ${functions.length}` +
    ` (over ${LONG_FUNCTION}: ${functions.filter((f) => f.lines > LONG_FUNCTION).length})`,
);
for (const f of functions.slice(0, 10)) console.log(`  ${String(f.lines).padStart(5)}  ${f.file}:${f.line}`);
console.log('');
console.log('                                              inside repositories   outside');
const row = (label, k) =>
  console.log(`${label.padEnd(46)}${String(counts.inside[k]).padStart(19)}${String(counts.outside[k]).padStart(10)}`);
row('Query-builder sites (selectFrom/insertInto/…)', 'builder');
row('Whole raw statements (sql`SELECT|INSERT|…`)', 'statements');
row('sql fragments', 'fragments');
console.log('');
console.log(
  `Modules whose code names devices: ${devicesBy.size} of ${modules.length} (${[...devicesBy].sort().join(', ')})`,
);
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
