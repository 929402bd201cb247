// A release as an operator gets it: `npm run release` (scripts/release.js) packs the package —
// prepack compiling dist/ — and writes SHA256SUMS; the tarball installed with
// `npm install -g --omit=dev --ignore-scripts` into a fresh prefix holds no development dependency,
// and its `signet` serves (on PostgreSQL when SIGNET_TEST_DATABASE_URL is set, else on the embedded
// store), creates an organization, and takes a stamped activity from the ecosystem's own client.
// The release runs in a copy of the package's sources, so that its build never replaces the dist/
// the other tests are running.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { freePort, ROOT, run, terminate, type Finished } from './support/processes.ts';
import { until } from './support/until.ts';

const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const TARBALL = `${PACKAGE.name}-${PACKAGE.version}.tgz`;
const MIGRATIONS = fs.readdirSync(path.join(ROOT, 'src', 'store', 'migrations')).filter((file) => file.endsWith('.sql'));
// What the release is built from: the package's sources as they are in this checkout.
const SOURCES = ['package.json', 'package-lock.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'scripts', 'src', 'console', 'docs', 'deploy'];

/**
 * The environment of a shell outside npm: no npm_* variables of an enclosing `npm test` (which the
 * inner npm would take as its own configuration), no NODE_OPTIONS (which could --import tsx), no
 * SIGNET_* setting of the test run.
 */
const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|SIGNET_)/i.test(name) && name !== 'NODE_OPTIONS')) as Record<string, string>;

function exec(command: string, args: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 300_000): Promise<Finished> {
  return run(command, args, env, timeoutMs, cwd, CLEAN_ENV);
}

function ok(result: Finished, what: string): Finished {
  assert.equal(result.code, 0, `${what} failed (exit ${result.code}):\n${result.stderr}\n${result.stdout}`);
  return result;
}

test('the release refuses a version that is not the newest in CHANGELOG.md, before packing anything', async () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-release-version-'));
  try {
    fs.mkdirSync(path.join(copy, 'scripts'));
    fs.copyFileSync(path.join(ROOT, 'scripts', 'release.js'), path.join(copy, 'scripts', 'release.js'));
    fs.writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ ...PACKAGE, version: '99.0.0' }));
    fs.copyFileSync(path.join(ROOT, 'CHANGELOG.md'), path.join(copy, 'CHANGELOG.md'));
    const newest = /^## \[(\d[^\]]*)\]/m.exec(fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'))![1];
    const result = await exec(process.execPath, [path.join(copy, 'scripts', 'release.js'), path.join(copy, 'out')], copy);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^signet release: package\\.json says version 99\\.0\\.0 but the newest version in CHANGELOG\\.md is ${newest!.replace(/\./g, '\\.')}: move the Unreleased entries under "## \\[99\\.0\\.0\\] - \\d{4}-\\d{2}-\\d{2}"`));
    assert.ok(!fs.existsSync(path.join(copy, 'out')), 'nothing was written');
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

describe('a release, packed and installed without development dependencies', () => {
  const tdb = testDatabases.at(-1)!; // PostgreSQL when the run has one
  let work: string;
  let out: string;
  let installed: string; // the package's folder in the prefix
  let signetBin: string;

  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-release-'));
    const source = path.join(work, 'source');
    for (const entry of SOURCES) fs.cpSync(path.join(ROOT, entry), path.join(source, entry), { recursive: true });
    // The build's tools (typescript) and the initial store's PGlite, as after `npm ci`.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
    out = path.join(work, 'release');
    ok(await exec(process.execPath, [path.join(source, 'scripts', 'release.js'), out], source), 'scripts/release.js');

    const prefix = path.join(work, 'prefix');
    const install = ok(
      await exec('npm', ['install', '-g', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--prefix', prefix, path.join(out, TARBALL)], work),
      'npm install -g the tarball',
    );
    // Every dependency suits the Node.js the package declares (light-my-request is held at 6.6 for that).
    assert.doesNotMatch(install.stderr, /EBADENGINE/, install.stderr);
    installed = path.join(prefix, 'lib', 'node_modules', PACKAGE.name);
    signetBin = path.join(prefix, 'bin', 'signet');
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  test('the release folder holds the tarball and SHA256SUMS, which `sha256sum -c` verifies', async () => {
    assert.deepEqual(fs.readdirSync(out).sort(), ['SHA256SUMS', TARBALL]);
    assert.match(fs.readFileSync(path.join(out, 'SHA256SUMS'), 'utf8'), new RegExp(`^[0-9a-f]{64}  ${TARBALL.replace(/\./g, '\\.')}\\n$`));
    assert.equal(ok(await exec('sha256sum', ['-c', 'SHA256SUMS'], out), 'sha256sum -c').stdout, `${TARBALL}: OK\n`);
    // A changed byte is caught.
    const tampered = path.join(work, 'tampered');
    fs.mkdirSync(tampered);
    fs.copyFileSync(path.join(out, 'SHA256SUMS'), path.join(tampered, 'SHA256SUMS'));
    const bytes = fs.readFileSync(path.join(out, TARBALL));
    bytes[bytes.length - 1] = bytes.at(-1)! ^ 1;
    fs.writeFileSync(path.join(tampered, TARBALL), bytes);
    assert.notEqual((await exec('sha256sum', ['-c', 'SHA256SUMS'], tampered)).code, 0);
  });

  test('the tarball holds the binary, the compiled service with its migrations and initial store, the docs: no sources, tests or scripts', async () => {
    const listing = ok(await exec('tar', ['tzf', path.join(out, TARBALL)], work), 'tar tzf').stdout.trim().split('\n');
    const top = new Set(listing.map((entry) => entry.replace(/^package\//, '').split('/')[0]));
    assert.deepEqual([...top].sort(), ['CHANGELOG.md', 'LICENSE', 'README.md', 'bin', 'deploy', 'dist', 'docs', 'package.json']);
    for (const file of ['bin/signet.js', 'dist/cli.js', 'dist/store/pglite-initial.tar.gz', 'dist/console/index.html', ...MIGRATIONS.map((m) => `dist/store/migrations/${m}`)]) {
      assert.ok(listing.includes(`package/${file}`), `${file} is in the tarball`);
    }
    assert.ok(!listing.some((entry) => entry.endsWith('.ts') || entry.endsWith('.tsx')), 'no TypeScript source');
    // The console's bundle: one script and one stylesheet.
    assert.equal(listing.filter((entry) => /^package\/dist\/console\/assets\/console-[A-Z0-9]+\.(js|css)$/.test(entry)).length, 2);
  });

  test('the install has the runtime dependencies only, and every module of dist/ loads with plain node', async () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
    // The development dependencies no runtime dependency needs, at any version, in the lockfile
    // (`devOptional`: also an optional peer of a runtime dependency, as typescript is of ox's, which
    // an install without development dependencies leaves out).
    const entries = Object.entries(lock.packages);
    const devOnly = Object.keys(PACKAGE.devDependencies).filter((name) =>
      entries.every(([where, entry]) => !where.endsWith(`node_modules/${name}`) || entry.dev || entry.devOptional),
    );
    assert.ok(devOnly.includes('typescript') && devOnly.includes('tsx') && devOnly.includes('@turnkey/http'));
    assert.deepEqual(devOnly.filter((name) => fs.existsSync(path.join(installed, 'node_modules', name))), [], 'no development dependency is installed');
    for (const name of Object.keys(PACKAGE.dependencies)) assert.ok(fs.existsSync(path.join(installed, 'node_modules', name, 'package.json')), `${name} is installed`);

    // Static imports load with the modules (the console's bundle is the browser's, not node's); the lazy
    // ones (sharp, PGlite, @turnkey/crypto) are imported by name.
    const loader = `
      import fs from 'node:fs';
      const modules = fs.readdirSync('dist', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') && !f.startsWith('console/'));
      const lazy = new Set();
      for (const file of modules) {
        await import('./dist/' + file);
        for (const m of fs.readFileSync('dist/' + file, 'utf8').matchAll(/\\bimport\\('([^.'][^']*)'\\)/g)) lazy.add(m[1]);
      }
      for (const name of lazy) await import(name);
      const { default: sharp } = await import('sharp');
      const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#123456' } }).png().toBuffer();
      console.log(JSON.stringify({ modules: modules.length, lazy: [...lazy].sort(), png: png.subarray(1, 4).toString() }));`;
    fs.writeFileSync(path.join(installed, 'load-all.mjs'), loader);
    const loaded = JSON.parse(ok(await exec(process.execPath, ['load-all.mjs'], installed), 'loading dist/').stdout);
    fs.rmSync(path.join(installed, 'load-all.mjs'));
    assert.ok(loaded.modules > 100, `${loaded.modules} modules`);
    assert.ok(loaded.lazy.includes('sharp') && loaded.lazy.includes('@electric-sql/pglite'), String(loaded.lazy));
    assert.equal(loaded.png, 'PNG');
  });

  describe(`the installed signet on ${tdb.name === 'postgres' ? 'PostgreSQL' : 'the embedded store (SIGNET_TEST_DATABASE_URL is not set)'}`, () => {
    let store: ServerStore;
    let server: ChildProcess;
    let output = '';
    let env: Record<string, string>;
    let baseUrl: string;

    before(async () => {
      store = await serverStore(tdb, 'signet_release');
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      env = { ...store.env, SIGNET_URL: baseUrl };
      // Started from another folder than the package's, as a service is.
      server = spawn(signetBin, ['serve', '--port', String(port)], { cwd: work, env: { ...CLEAN_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      server.stdout!.on('data', (d) => (output += d));
      server.stderr!.on('data', (d) => (output += d));
      await until(
        () => `the installed signet serve to answer /healthz:\n${output}`,
        async () => {
          if (server.exitCode !== null) assert.fail(`the installed signet serve exited ${server.exitCode}:\n${output}`);
          return (await fetch(`${baseUrl}/healthz`).catch(() => undefined))?.ok;
        },
        { timeoutMs: 60_000, everyMs: 100 },
      );
    });
    after(async () => {
      if (server) await terminate(server);
      await store?.dispose();
    });

    test('serves its API reference with the swagger-ui assets of the runtime dependencies', async () => {
      const page = await fetch(`${baseUrl}/docs`);
      assert.equal(page.status, 200);
      const assets = [...(await page.text()).matchAll(/(?:src|href)="(docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.some((a) => a.endsWith('swagger-ui-bundle.js')), String(assets));
      for (const asset of assets) assert.equal((await fetch(`${baseUrl}/${asset}`)).status, 200, asset);
    });

    test('`signet org create --json` prints a key that signs activities the server completes', async () => {
      const created = ok(await exec(signetBin, ['org', 'create', '--name', 'Installed from the tarball', '--json'], work, env), 'signet org create');
      const org = JSON.parse(created.stdout) as { organizationId: string; apiPublicKey: string; apiPrivateKey: string };
      const client = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));
      assert.equal((await client.getWhoami({ organizationId: org.organizationId })).organizationId, org.organizationId);
      const { activity } = (await client.createPolicy({
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { policyName: 'Released', effect: 'EFFECT_ALLOW', condition: "activity.resource == 'SMART_CONTRACT_INTERFACE'", consensus: '', notes: 'from the installed package' },
      })) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.match(activity.result.createPolicyResult.policyId, /^[0-9a-f-]{36}$/);
      const storage = tdb.url ? /PostgreSQL|postgres/ : /embedded PGlite/;
      assert.match(output, storage, 'the server says which store it runs on');
    });
  });
});
