// The linter (`npm run lint`; docs/development.md, "Lint"): ESLint's and typescript-eslint's
// recommended rules, a few that catch real bugs, and the layers of docs/architecture.md as
// import-x/no-restricted-paths zones made from layers.json, the table test/layout.test.ts reads too.
// No formatting rules: the code's layout is its authors'.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import fs from 'node:fs';
import path from 'node:path';
import tseslint from 'typescript-eslint';

const ROOT = import.meta.dirname;
const SRC = path.join(ROOT, 'src');
const layers = JSON.parse(fs.readFileSync(path.join(ROOT, 'layers.json'), 'utf8'));

/**
 * One zone per folder of layers.json: what of src/ its files may not import, every other folder and
 * every file at the root of src/ but those it may ("pure" standing for the pure rules).
 */
function layerZones() {
  const entries = fs.readdirSync(SRC, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const rootFiles = entries.filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name)).map((entry) => entry.name);
  const zones = Object.entries(layers.mayImport).map(([folder, mayImport]) => {
    const allowed = mayImport.flatMap((name) => (name === 'pure' ? layers.pure : [name]));
    return {
      target: `src/${folder}`,
      from: [...folders.filter((other) => other !== folder), ...rootFiles].filter((name) => !allowed.includes(name)).map((name) => `src/${name}`),
      message: `src/${folder}/ may import only ${allowed.map((name) => (name.endsWith('.ts') ? name : `${name}/`)).join(', ') || 'its own files'} (layers.json, docs/architecture.md "The layers").`,
    };
  });
  return zones.filter((zone) => zone.from.length > 0);
}

/** The TypeScript that a tsconfig.json covers: the type-aware rules read its types. */
const TYPED = ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts', 'console/src/**/*.{ts,tsx}'];

export default tseslint.config(
  { ignores: ['dist/', 'release/', 'scratch/', '.signet/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver()],
      // import-x/no-cycle follows the imports through the files it reads with this parser.
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Unused variables are bugs or dead code; a leading _ marks one kept on purpose, and the
      // siblings of a ...rest are how an object is copied without some of its fields.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      eqeqeq: ['error', 'always'],
      // A variable declared before the closures that read it and assigned once after them (the
      // server's outbox worker, which the engine it is given wakes) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Turned off, each a practice of this code base:
      // the API's JSON answers, read back by tests, the CLI and the console, are typed `any` where
      // the reader checks them (assertions, the server's own schemas); strict mode rules out the
      // implicit any.
      '@typescript-eslint/no-explicit-any': 'off',
      // the input checks match control characters on purpose, to refuse them.
      'no-control-regex': 'off',
      // the tests match the CLI's and the fuzzer's columns, two spaces apart, as printed.
      'no-regex-spaces': 'off',
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: layerZones() }],
      'import-x/no-self-import': 'error',
      'import-x/no-duplicates': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-console': 'error',
    },
  },
  {
    files: TYPED,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process). node:test's
      // test() and suite() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'suite', 'describe'] }] },
      ],
    },
  },
);
