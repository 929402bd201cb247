// Bundles each test file (test/*.test.ts) with the sources it imports into one JavaScript module
// under node_modules/.cache/signet-tests/, which `npm test` runs with plain node: loading a few
// hundred TypeScript modules through a loader's hooks cost each test process more than a second of
// CPU. The packages stay outside the bundles, loaded from node_modules as usual. Each module keeps
// its own import.meta.url (the file it was bundled from), so the paths a test or a source finds
// beside itself (fixtures, migrations, the repository's root) are the same as under tsx.
// Run by `npm test` (pretest); a single file still runs as it is: node --import tsx --test test/x.test.ts
// With --unit, only the unit tests (scripts/unit-tests.js), into signet-unit-tests/: `npm run test:unit`.
// Without it, the wallet test files of scripts/hsm-tests.js are bundled a second time as
// <name>.softhsm.test.mjs with SIGNET_TEST_KEK=softhsm built in: their servers hold the key-encryption
// key in a SoftHSM2 token (where SoftHSM2 is installed; a line says so where it is not).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hsmTests, softHsmMissing } from './hsm-tests.js';
import { unitTests } from './unit-tests.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const unit = process.argv.includes('--unit');
export const BUNDLES = path.join(root, 'node_modules', '.cache', unit ? 'signet-unit-tests' : 'signet-tests');

const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async ({ path: file }) => {
      if (file.split(path.sep).includes('node_modules')) return undefined;
      const text = await fs.promises.readFile(file, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href)),
        loader: /\.[cm]?ts$/.test(file) ? 'ts' : 'js',
      };
    });
  },
};

// `node:test` in a test file is test/support/boundedTests.ts: node:test with a bound per test and hook
// (Node 20's --test-timeout bounds a whole file, which a loaded machine stretches past it).
const BOUNDED_TESTS = path.join(root, 'test', 'support', 'boundedTests.ts');
const boundedTests = {
  name: 'bounded-tests',
  setup(build) {
    build.onResolve({ filter: /^node:test$/ }, ({ importer }) =>
      importer === BOUNDED_TESTS ? { path: 'node:test', external: true } : { path: BOUNDED_TESTS },
    );
  },
};

const tests = (unit ? unitTests() : fs.readdirSync(path.join(root, 'test')).filter((name) => name.endsWith('.test.ts'))).map((name) =>
  path.join(root, 'test', name),
);
// From scratch, so a test deleted or renamed leaves no bundle behind.
fs.rmSync(BUNDLES, { recursive: true, force: true });
const options = {
  outdir: BUNDLES,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  plugins: [boundedTests, ownImportMetaUrl],
  logLevel: 'warning',
};
await esbuild.build({ ...options, entryPoints: tests });
if (!unit) {
  const missing = softHsmMissing();
  if (missing) {
    process.stdout.write(`bundle-tests: the wallet tests run once, not again with the key-encryption key in SoftHSM2: ${missing}\n`);
  } else {
    await esbuild.build({
      ...options,
      entryPoints: Object.fromEntries(hsmTests().map((name) => [name.replace(/\.test\.ts$/, '.softhsm.test'), path.join(root, 'test', name)])),
      define: { 'process.env.SIGNET_TEST_KEK': '"softhsm"' },
    });
  }
}
