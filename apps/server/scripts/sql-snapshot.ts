/**
 * `npm run sql:snapshot`: writes src/queries/<module>.sql, every statement of the modules' repositories as their
 * query specs call them (src/db/query-spec.ts says how to write one), and removes the files of modules that
 * have none left. test/sql-snapshots.test.ts checks the files are what this writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRepositoryFiles, renderFile, renderModules, specProblems } from '../src/db/sql-snapshot.ts';

const MODULES_DIR = fileURLToPath(new URL('../src/modules', import.meta.url));
const QUERIES_DIR = fileURLToPath(new URL('../src/queries', import.meta.url));

const files = await loadRepositoryFiles(MODULES_DIR);
const modules = await renderModules(files);
fs.mkdirSync(QUERIES_DIR, { recursive: true });
const written: string[] = [];
for (const [name, sections] of [...modules].sort(([a], [b]) => a.localeCompare(b))) {
  const file = path.join(QUERIES_DIR, name);
  const text = renderFile(sections);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (before !== text) fs.writeFileSync(file, text);
  written.push(
    `${path.relative(process.cwd(), file)} ${before === text ? 'is up to date' : 'written'} (${sections.length} methods)`,
  );
}
for (const stale of fs.readdirSync(QUERIES_DIR).filter((f) => f.endsWith('.sql') && !modules.has(f))) {
  fs.rmSync(path.join(QUERIES_DIR, stale));
  written.push(`${path.relative(process.cwd(), path.join(QUERIES_DIR, stale))} removed (no spec left)`);
}
console.log(written.join('\n'));
const problems = files.flatMap(specProblems);
if (problems.length) {
  console.error(`\nThe specs leave out:\n${problems.join('\n')}`);
  process.exitCode = 1;
}
