// `npm run test:unit` runs the unit tests, the test files that start nothing (scripts/unit-tests.js
// finds them by a rule), each in a process where starting a child process or a server throws
// (scripts/unit-guard.js). This file starts processes: it is not one of them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ROOT } from './support/root.ts';

/** The rule of scripts/unit-tests.js (plain JavaScript, which npm scripts run without a compiler). */
const { testFiles } = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'unit-tests.js')).href)) as {
  testFiles(): Array<{ name: string; starts: string[] }>;
};

test('the unit tests are the test files that import nothing that starts a store, a server, a process or a browser', () => {
  const files = new Map(testFiles().map(({ name, starts }) => [name, starts]));
  const unit = [...files].filter(([, starts]) => starts.length === 0).map(([name]) => name);
  for (const name of ['policyLanguage.test.ts', 'policyDecision.test.ts', 'contracts.test.ts', 'parseStamp.test.ts', 'layout.test.ts']) {
    assert.ok(unit.includes(name), `${name} is not a unit test: ${files.get(name)}`);
  }
  // Directly, or through a test helper: support/activities.ts opens no store itself, but imports src/store/db.ts.
  assert.ok(files.get('users.test.ts')!.includes('src/server.ts'));
  assert.ok(files.get('browser.test.ts')!.includes('playwright-core'));
  assert.ok(files.get('cli.test.ts')!.includes('node:child_process'));
  assert.ok(files.get('createSmartContractInterfaceHandler.test.ts')!.includes('src/store/db.ts'));
  assert.ok(!unit.includes('unitTests.test.ts'));
});

test('in a unit test process, starting a child process or listening on a socket fails and says why', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-unit-guard-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(
    path.join(dir, 'starts.test.mjs'),
    [
      "import { execFileSync } from 'node:child_process';",
      "import net from 'node:net';",
      "import { test } from 'node:test';",
      "test('a child process', () => { execFileSync(process.execPath, ['--version']); });",
      "test('a server', async () => { const server = net.createServer(); await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)); server.close(); });",
      "test('nothing', () => {});",
    ].join('\n'),
  );
  // A test runner of its own, as npm run test:unit starts it (this process's NODE_TEST_CONTEXT would
  // make it a test file's process).
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = (guarded: boolean) =>
    spawnSync(process.execPath, [...(guarded ? ['--import', path.join(ROOT, 'scripts', 'unit-guard.js')] : []), '--test', 'starts.test.mjs'], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });

  const unguarded = run(false);
  assert.equal(unguarded.status, 0, unguarded.stdout + unguarded.stderr);

  const guarded = run(true);
  assert.equal(guarded.status, 1, guarded.stdout + guarded.stderr);
  assert.match(guarded.stdout, /^# pass 1$/m);
  assert.match(guarded.stdout, /^# fail 2$/m);
  assert.match(guarded.stdout, /a unit test started a child process \(child_process\.execFileSync\), which only the whole suite \(npm test\) may/);
  assert.match(guarded.stdout, /a unit test listened on a socket \(a server\)/);
});
