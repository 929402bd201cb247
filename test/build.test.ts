// The service ships as JavaScript: dist/ holds one module per source, the migrations and the console's
// bundle, and the binary runs it with plain node and the runtime dependencies alone (tsx is a development tool).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureCompiled, ROOT, run } from './support/processes.ts';

const DIST = path.join(ROOT, 'dist');

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => fs.statSync(path.join(dir, file)).isFile())
    .sort();
}

describe('dist/', () => {
  before(() => ensureCompiled());

  test('has one JavaScript module per source file, the migrations, the initial embedded data directory and the console, and nothing else', () => {
    const sources = files(path.join(ROOT, 'src'));
    const expected = [...sources.map((file) => file.replace(/\.ts$/, '.js')), 'store/pglite-initial.tar.gz'].sort();
    assert.ok(expected.includes('cli.js') && expected.some((file) => file.endsWith('.sql')));
    const built = files(DIST);
    assert.deepEqual(built.filter((file) => !file.startsWith(`console${path.sep}`)), expected);
    // The console's page and its bundle: one script and one stylesheet, named by their content's hash.
    const consoleFiles = built.filter((file) => file.startsWith(`console${path.sep}`)).map((file) => file.split(path.sep).join('/'));
    assert.equal(consoleFiles.length, 3, consoleFiles.join(', '));
    assert.equal(consoleFiles[2], 'console/index.html');
    const assets = consoleFiles.slice(0, 2);
    assert.equal(assets.filter((file) => /^console\/assets\/console-[A-Z0-9]+\.css$/.test(file)).length, 1, assets.join(', '));
    assert.equal(assets.filter((file) => /^console\/assets\/console-[A-Z0-9]+\.js$/.test(file)).length, 1, assets.join(', '));
    const page = fs.readFileSync(path.join(DIST, 'console', 'index.html'), 'utf8');
    for (const asset of assets) assert.ok(page.includes(`/${asset}`), `index.html loads ${asset}`);
    for (const file of sources.filter((f) => f.endsWith('.sql'))) {
      assert.equal(fs.readFileSync(path.join(DIST, file), 'utf8'), fs.readFileSync(path.join(ROOT, 'src', file), 'utf8'), file);
    }
  });

  test('imports compiled modules only: no relative import names a .ts file', () => {
    const tsImports = files(DIST)
      .filter((file) => file.endsWith('.js') && !file.startsWith(`console${path.sep}`))
      .flatMap((file) => [...fs.readFileSync(path.join(DIST, file), 'utf8').matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]*)['"]/g)].map((m) => `${file}: ${m[1]}`))
      .filter((use) => !use.endsWith('.js'));
    assert.deepEqual(tsImports, []);
  });
});

describe('bin/signet.js', () => {
  // A copy of what an installation runs — bin/, dist/, package.json — with node_modules holding
  // only the runtime dependencies: no sources, and neither tsx nor any other development tool.
  let copy: string;
  before(() => {
    ensureCompiled();
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-installed-'));
    fs.cpSync(path.join(ROOT, 'bin'), path.join(copy, 'bin'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(dependencies)) {
      fs.mkdirSync(path.dirname(path.join(copy, 'node_modules', name)), { recursive: true });
      fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(copy, 'node_modules', name), 'dir');
    }
  });
  after(() => fs.rmSync(copy, { recursive: true, force: true }));

  test('without dist/ says in one line to build it, and exits 1', async () => {
    const result = await runIn(copy, [path.join(copy, 'bin', 'signet.js'), 'help']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'signet: dist/ is missing, the compiled service is not built: run `npm run build`\n');
  });

  test('runs the compiled service with plain node: a new folder starts migrated from the built image; without it, migrate applies the copied migrations', async () => {
    fs.cpSync(DIST, path.join(copy, 'dist'), { recursive: true });
    const tsx = await runIn(copy, ['--input-type=module', '-e', "await import('tsx/esm/api')"]);
    assert.match(tsx.stderr, /ERR_MODULE_NOT_FOUND/, 'tsx cannot be loaded from the copy');
    const signet = path.join(copy, 'bin', 'signet.js');

    const fromImage = await runIn(copy, [signet, 'migrate'], { SIGNET_DATA_DIR: path.join(copy, 'from-image') });
    assert.equal(fromImage.code, 0, fromImage.stderr);
    assert.equal(fromImage.stdout, 'schema is up to date\n');

    fs.rmSync(path.join(copy, 'dist', 'store', 'pglite-initial.tar.gz'));
    const migrated = await runIn(copy, [signet, 'migrate'], { SIGNET_DATA_DIR: path.join(copy, 'initdb') });
    assert.equal(migrated.code, 0, migrated.stderr);
    const migrations = fs.readdirSync(path.join(ROOT, 'src', 'store', 'migrations')).filter((f) => f.endsWith('.sql'));
    assert.equal(migrated.stdout.trim(), `applied ${migrations.sort().join(', ')}`);
  });
});

/** Runs node in `cwd` without inherited NODE_OPTIONS (which could --import tsx) and on the embedded store. */
function runIn(cwd: string, args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, args, { NODE_OPTIONS: '', SIGNET_DATABASE_URL: '', ...env }, 60_000, cwd);
}
