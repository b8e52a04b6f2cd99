// The linter, `npm run lint` (and part of `npm test`, with Prettier's check of the formatting). Type-aware
// rules where a mistake costs a user something (a promise nobody waits for, a switch that forgets a state),
// React's rules of hooks, and the import boundaries of STYLE.md as rules rather than habits.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importX from 'eslint-plugin-import-x';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import globals from 'globals';

const root = import.meta.dirname;
const dirs = (p) =>
  fs
    .readdirSync(path.join(root, p), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);

const FEATURES = 'apps/web/src/features';
const MODULES = 'apps/server/src/modules';

/** The import boundaries: features never import each other, the shell and lib never import features, server
 * modules reach each other only through a module's public entry (`index.ts`). */
const zones = [
  ...dirs(FEATURES).map((f) => ({
    target: `./${FEATURES}/${f}`,
    from: `./${FEATURES}`,
    except: [`./${f}`],
    message: 'A feature does not import another feature: move what both need to lib/ or components/.',
  })),
  ...['lib', 'components', 'layout', 'config'].map((d) => ({
    target: `./apps/web/src/${d}`,
    from: `./${FEATURES}`,
    message: 'The shell, lib/ and components/ never import a feature.',
  })),
  ...dirs(MODULES).flatMap((m) =>
    dirs(MODULES)
      .filter((other) => other !== m)
      .map((other) => ({
        target: `./${MODULES}/${m}`,
        from: `./${MODULES}/${other}`,
        except: ['./index.ts'],
        message: `Reach the ${other} module through its public entry, modules/${other}/index.ts.`,
      })),
  ),
  {
    target: './apps/device-sim/src',
    from: './apps/server/src',
    except: ['./public.ts'],
    message: 'The simulator reaches the server only through apps/server/src/public.ts.',
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'test-artifacts/**',
      '.scratch/**',
      'bench/reference/**',
      'scripts/*.d.mts',
      '**/vitest.config.ts',
      '**/vite.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  comments.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser },
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: [] }],
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
      'max-len': ['error', { code: 200, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // the server's services, route plugins and repositories stay readable (docs/architecture.md): files of at most
    // 500 lines, functions of at most 80; migrations are schema listings and exempt
    files: ['apps/server/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'apps/server/src/db/migrations/**', 'apps/server/src/db/generated.ts'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // the two rules of hooks; the React Compiler's further rules (set-state-in-effect, refs, purity) come later
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
