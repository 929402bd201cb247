// Builds dist/ from src/: tsc emits the JavaScript (tsconfig.build.json), the SQL migrations, which
// store/migrate.js reads beside itself at run time, are copied next to it, and the initialised
// PGlite data directory new embedded stores start from, migrated, is written there too.
// Run by `npm install` (prepare), `npm pack` and `npm run release` (prepack) and `npm run build`;
// with --if-stale by `npm test` (pretest) and the tests that start `signet`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

// `npm pack` (and `npm publish`) runs prepack, then prepare: prepack has just built dist/, so the
// second build, as long again, is skipped.
const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');
if (packing && process.env.npm_lifecycle_event === 'prepare' && fs.existsSync(path.join(dist, 'cli.js'))) process.exit(0);

// `--if-stale` (npm test, and the tests before they start `signet`): only when dist/ is older than
// what it is built from, or is missing; a file deleted from src/ changes its folder's time too.
const INPUTS = ['src', 'scripts/build.js', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((input) => path.join(root, input));
function newestChange(file) {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(file).reduce((newest, entry) => Math.max(newest, newestChange(path.join(file, entry))), stat.mtimeMs);
}
const BUILT = path.join(dist, 'store', 'pglite-initial.tar.gz'); // written last
if (process.argv.includes('--if-stale') && fs.existsSync(BUILT) && fs.statSync(BUILT).mtimeMs >= Math.max(...INPUTS.filter((input) => fs.existsSync(input)).map(newestChange))) {
  process.exit(0);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // `npm install --omit=dev` runs prepare without the compiler: a dist/ built before is kept.
  const built = fs.existsSync(path.join(dist, 'cli.js'));
  console.error(
    built
      ? 'signet build: typescript is not installed (dev dependencies omitted); keeping the dist/ built before.'
      : 'signet build: typescript is not installed (dev dependencies omitted), so dist/ cannot be built. Install with dev dependencies (npm ci), then drop them if you want (npm prune --omit=dev); or, for a server, install a release tarball (docs/releases.md).',
  );
  process.exit(built ? 0 : 1);
}

// From scratch, so a source that was deleted or renamed leaves no module behind.
fs.rmSync(dist, { recursive: true, force: true });
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
} catch {
  process.exit(1); // tsc printed why
}
fs.cpSync(path.join(root, 'src', 'store', 'migrations'), path.join(dist, 'store', 'migrations'), {
  recursive: true,
  filter: (source) => fs.statSync(source).isDirectory() || source.endsWith('.sql'),
});

// The embedded store's starting point, migrated (see writeInitialDataDir in src/store/db.ts).
const { writeInitialDataDir } = await import(pathToFileURL(path.join(dist, 'store', 'db.js')).href);
const { migrate } = await import(pathToFileURL(path.join(dist, 'store', 'migrate.js')).href);
await writeInitialDataDir(path.join(dist, 'store', 'pglite-initial.tar.gz'), migrate);
