// Builds dist/ from src/: tsc emits the JavaScript (tsconfig.build.json), the SQL migrations, which
// store/migrate.js reads beside itself at run time, are copied next to it, and the initialised
// PGlite data directory new embedded stores start from, migrated, is written there too. The console
// (console/src, browser code) is bundled by esbuild into dist/console/: index.html and, under
// assets/, one script and one stylesheet whose names carry their content's hash.
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
const INPUTS = ['src', 'console', 'scripts/build.js', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((input) => path.join(root, input));
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
await buildConsole(path.join(dist, 'console'));
await writeInitialDataDir(path.join(dist, 'store', 'pglite-initial.tar.gz'), migrate);

/**
 * The console's page: console/src/main.tsx and the stylesheet it imports, minified for ES2020, as
 * assets/console-<hash>.js and .css, and index.html naming them (GET /console serves it).
 */
async function buildConsole(out) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { console: path.join(root, 'console', 'src', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: path.join(out, 'assets'),
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error(`signet build: the console's bundle is missing its script or stylesheet (${outputs.join(', ')})`);
  fs.writeFileSync(
    path.join(out, 'index.html'),
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signet console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body>
<noscript>The Signet console needs JavaScript.</noscript>
<div id="console"></div>
</body>
</html>
`,
  );
}
