import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareSnapshot, loadRepositoryFiles, renderModules, specProblems } from '../src/db/sql-snapshot.ts';

/**
 * src/queries/<module>.sql holds every statement the repositories send, as their query specs call them: a
 * statement changed without `npm run sql:snapshot`, a repository method without a sample call, or a repository
 * without a spec fails here, naming the repository and method.
 */
const MODULES_DIR = fileURLToPath(new URL('../src/modules', import.meta.url));
const QUERIES_DIR = fileURLToPath(new URL('../src/queries', import.meta.url));

describe('the SQL snapshots', () => {
  it('cover every public method of every repository', async () => {
    const files = await loadRepositoryFiles(MODULES_DIR);
    expect(files.flatMap(specProblems)).toEqual([]);
  });

  it('are what the repositories send (else run npm run sql:snapshot and review the diff)', async () => {
    const modules = await renderModules(await loadRepositoryFiles(MODULES_DIR));
    const problems: string[] = [];
    for (const [name, sections] of modules) {
      const file = path.join(QUERIES_DIR, name);
      const onDisk = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
      problems.push(...compareSnapshot(`src/queries/${name}`, sections, onDisk));
    }
    const stale = fs.existsSync(QUERIES_DIR)
      ? fs.readdirSync(QUERIES_DIR).filter((f) => f.endsWith('.sql') && !modules.has(f))
      : [];
    for (const f of stale)
      problems.push(`src/queries/${f} belongs to no repository spec: run npm run sql:snapshot and review the diff`);
    expect(problems).toEqual([]);
  });
});
