// The server's import rules, checked by `npm test` (`npx depcruise --config .dependency-cruiser.cjs src` here):
// the floors below modules (lib, db, plugins) never import a module, db and lib never import a plugin, and no
// file reaches itself again through its imports. See docs/architecture.md.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle: the files in it can only be understood, tested and loaded together.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-upward',
      comment: 'lib, db and plugins sit below the modules: they are given what they need or publish events.',
      severity: 'error',
      from: { path: '^src/(lib|plugins|db)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'no-lib-to-plugins',
      comment: 'db and lib sit below the plugins: the plugins use them, never the other way round.',
      severity: 'error',
      from: { path: '^src/(lib|db)/' },
      to: { path: '^src/plugins/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
