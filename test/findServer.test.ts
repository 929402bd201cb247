// How the CLI and the examples find the server, on both stores, as a user runs them: `signet serve`
// on a port that is not the default names its URL in SIGNET_DATA_DIR/server.json; the ready line
// describes only the credentials that are this server's (on PostgreSQL a leftover dev-credentials.json
// is not, and the line says how to make a first key instead); `signet org create` prints the key once
// and writes SIGNET_DATA_DIR/credentials.json, after which a stamped command and an example work
// without SIGNET_URL; a credentials file naming another server is refused with both URLs; the CLI's
// errors name the URL called.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { findServer, runningServer } from '../src/cli/serverLocation.ts';
import { renderSummary, type StartupFacts } from '../src/cli/startup.ts';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { freePort, run, serve, signet, type Served } from './support/processes.ts';

/** The fields of the `Signet is ready` line, from a server's standard output. */
function readyLine(stdout: string): Record<string, unknown> {
  const line = stdout.split('\n').find((l) => l.includes('"msg":"Signet is ready"'));
  assert.ok(line, stdout);
  return JSON.parse(line);
}

for (const tdb of testDatabases) {
  describe(`finding the server (${tdb.name})`, () => {
    let store: ServerStore;
    let served: Served | undefined;
    let baseUrl: string;
    let serveEnv: Record<string, string>;
    /** What a shell that knows only the data folder has: no SIGNET_URL, no credentials, no token. */
    let env: Record<string, string>;
    let elsewhere: string;
    const example = (name: string, extra: Record<string, string> = {}) => run(process.execPath, ['--import', 'tsx', `examples/${name}`], { ...env, ...extra });

    before(async () => {
      store = await serverStore(tdb, 'signet_find');
      elsewhere = `http://127.0.0.1:${await freePort()}`;
      if (tdb.name === 'postgres') {
        // What an earlier embedded start left in the folder: not this server's.
        const leftover = { baseUrl: elsewhere, organizationId: randomUUID(), userId: randomUUID(), ...generateApiKeyPair() };
        fs.writeFileSync(path.join(store.dataDir, 'dev-credentials.json'), JSON.stringify(leftover), { mode: 0o600 });
      }
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      serveEnv = { ...store.env, SIGNET_PORT: String(port), SIGNET_LOG_LEVEL: 'info', SIGNET_ADMIN_TOKEN: '' };
      env = { SIGNET_DATA_DIR: store.dataDir, SIGNET_URL: '', SIGNET_ADMIN_TOKEN: '', SIGNET_CREDENTIALS: '', SIGNET_DEV_CREDENTIALS: '', SIGNET_PORT: '' };
      served = await serve(serveEnv, baseUrl);
    });
    after(async () => {
      if (served) await served.stop();
      await store.dispose();
    });

    test('the ready line describes only what is this server\'s, and server.json names its URL', async () => {
      const ready = readyLine(served!.stdout());
      assert.equal(JSON.parse(fs.readFileSync(path.join(store.dataDir, 'server.json'), 'utf8')).url, baseUrl);
      if (tdb.name === 'pglite') {
        assert.equal(ready.devCredentials, path.join(store.dataDir, 'dev-credentials.json'));
        assert.ok(Array.isArray(ready.examples), JSON.stringify(ready));
        assert.equal(ready.firstKey, undefined);
      } else {
        assert.equal(ready.devCredentials, undefined, 'a leftover dev-credentials.json is not this server\'s');
        assert.equal(ready.examples, undefined);
        assert.equal(ready.firstKey, `SIGNET_DATA_DIR=${store.dataDir} npx signet org create --name NAME`);
        // The leftover names another server than the one running from the folder: refused with both URLs.
        const refused = await signet(['policy', 'list'], env);
        assert.equal(refused.code, 1);
        assert.ok(refused.stderr.includes(elsewhere) && refused.stderr.includes(baseUrl), refused.stderr);
      }
    });

    test('`signet org create` prints the key once and writes credentials.json; a stamped command and an example then find the server', async () => {
      const created = await signet(['org', 'create', '--name', 'Found', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const org = JSON.parse(created.stdout);
      const file = path.join(store.dataDir, 'credentials.json');
      assert.equal(org.credentialsFile, file);
      assert.match(org.apiPrivateKey, /^[0-9a-f]{64}$/);
      assert.match(created.stderr, /apiPrivateKey is shown once — store it now/);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const written = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.deepEqual(written, { baseUrl, organizationId: org.organizationId, userId: org.userId, apiKeyId: org.apiKeyId, apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey });

      const listed = await signet(['policy', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout, 'no policies\n');

      const submitted = await example('submit.ts');
      assert.equal(submitted.code, 0, submitted.stderr + submitted.stdout);
      assert.match(submitted.stdout, /create_smart_contract_interface: ACTIVITY_STATUS_COMPLETED/);
      const activities = JSON.parse((await signet(['activity', 'list', '--json'], env)).stdout);
      assert.ok(activities.some((a: any) => a.organizationId === org.organizationId && a.type === 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE'), 'the example used the new key');

      // A second organization leaves the file as it is; a file given that exists is a wrong command line.
      const second = await signet(['org', 'create', '--name', 'Second'], env);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stderr, new RegExp(`${file.replace(/[.]/g, '\\.')} exists .*not replaced; give --force`));
      assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), written);
      const taken = await signet(['org', 'create', '--name', 'Third', '--credentials-file', file], env);
      assert.equal(taken.code, 2);
      assert.match(taken.stderr, /--credentials-file: .* exists; give --force to replace it/);
    });

    test('a credentials file naming another server than SIGNET_URL is refused with both URLs, by the CLI and the examples', async () => {
      const other = { ...env, SIGNET_URL: elsewhere };
      const refused = await signet(['policy', 'list'], other);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, new RegExp(`is for the server at ${baseUrl}, but SIGNET_URL names ${elsewhere}: set SIGNET_URL=${baseUrl}`));
      const exampleRefused = await example('submit.ts', { SIGNET_URL: elsewhere });
      assert.equal(exampleRefused.code, 1);
      assert.match(exampleRefused.stderr, new RegExp(`^submit\\.ts: the credentials file .* is for the server at ${baseUrl}, but SIGNET_URL names ${elsewhere}`));
      // The same URL given explicitly is no disagreement.
      const agreed = await signet(['policy', 'list'], { ...env, SIGNET_URL: baseUrl });
      assert.equal(agreed.code, 0, agreed.stderr);
    });

    test('the CLI\'s errors name the URL called; a stopped server leaves no server.json, and a restart describes the written credentials', async () => {
      const deleted = await signet(['policy', 'delete', randomUUID()], env);
      assert.equal(deleted.code, 1);
      assert.match(deleted.stderr, new RegExp(`\\(POST ${baseUrl}/public/v1/submit/delete_policy\\)\\n$`));
      const missing = await signet(['user', 'list', '--org', randomUUID()], env);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, new RegExp(`\\(GET ${baseUrl}/admin/v1/organizations/`));

      assert.equal(await served!.stop(), 0);
      served = undefined;
      assert.equal(fs.existsSync(path.join(store.dataDir, 'server.json')), false);
      const down = await signet(['policy', 'list'], env);
      assert.equal(down.code, 1);
      assert.match(down.stderr, new RegExp(`cannot reach the Signet server at ${baseUrl} \\(from the credentials file ${path.join(store.dataDir, 'credentials.json').replace(/[.]/g, '\\.')}`));

      served = await serve(serveEnv, baseUrl);
      const ready = readyLine(served.stdout());
      assert.equal(ready.credentials, path.join(store.dataDir, 'credentials.json'));
      assert.ok(Array.isArray(ready.examples));
      assert.equal(ready.firstKey, undefined);
    });

    test('on another port, the written credentials are not this server\'s: not listed, and refused naming both URLs', async () => {
      await served!.stop();
      const port = await freePort();
      const moved = `http://127.0.0.1:${port}`;
      served = await serve({ ...serveEnv, SIGNET_PORT: String(port) }, moved);
      const ready = readyLine(served.stdout());
      assert.equal(ready.credentials, undefined);
      if (tdb.name === 'pglite') {
        // The data folder holds the embedded store: its development credentials follow the server.
        const dev = path.join(store.dataDir, 'dev-credentials.json');
        assert.equal(ready.devCredentials, dev);
        assert.equal(JSON.parse(fs.readFileSync(dev, 'utf8')).baseUrl, moved);
      } else {
        assert.equal(ready.devCredentials, undefined);
        // The store has the organizations made above, but no key of this server is written: how to make one for them.
        assert.equal(ready.firstKey, undefined);
        assert.ok(Number(ready.organizationsWithoutKey) >= 1, JSON.stringify(ready));
        assert.match(String((ready.keyCommands as string[] | undefined)?.at(-1)), /npx signet apikey create --org ID --user ID$/);
      }
      const refused = await signet(['policy', 'list'], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`is for the server at ${baseUrl}, but the server running from SIGNET_DATA_DIR .* names ${moved}: set SIGNET_URL=${baseUrl}`));
    });
  });
}

describe('the server file and the ready message, without a server', () => {
  test('a server.json whose process is gone is ignored; SIGNET_URL comes first; a file without baseUrl is for the server found', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-find-'));
    try {
      const gone = await run(process.execPath, ['-e', 'console.log(process.pid)'], {});
      fs.writeFileSync(path.join(dataDir, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9001', pid: Number(gone.stdout.trim()) }));
      assert.equal(runningServer(dataDir), undefined);
      assert.deepEqual(findServer({ dataDir, fallback: 'http://127.0.0.1:8080', env: {} }).url, 'http://127.0.0.1:8080');
      fs.writeFileSync(path.join(dataDir, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9001', pid: process.pid }));
      assert.equal(findServer({ dataDir, fallback: 'http://127.0.0.1:8080', env: {} }).url, 'http://127.0.0.1:9001');
      assert.equal(findServer({ dataDir, fallback: 'http://127.0.0.1:8080', env: { SIGNET_URL: 'http://10.0.0.5:8080/' } }).url, 'http://10.0.0.5:8080');
      assert.equal(findServer({ dataDir, fallback: 'x', env: {}, credentials: { file: 'k.json' } }).url, 'http://127.0.0.1:9001');
      assert.equal(findServer({ dataDir, fallback: 'x', env: {}, credentials: { file: 'k.json', baseUrl: 'http://127.0.0.1:9001/' } }).url, 'http://127.0.0.1:9001');
      assert.throws(
        () => findServer({ dataDir, fallback: 'x', env: {}, credentials: { file: 'k.json', baseUrl: 'http://127.0.0.1:8080' } }),
        /^Error: the credentials file k\.json is for the server at http:\/\/127\.0\.0\.1:8080, but the server running from SIGNET_DATA_DIR .* names http:\/\/127\.0\.0\.1:9001: set SIGNET_URL=http:\/\/127\.0\.0\.1:8080/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('without a key of this server, the summary gives the command that makes one, and no examples', () => {
    const facts: StartupFacts = {
      version: '9.9.9',
      url: 'http://127.0.0.1:9000',
      docs: 'http://127.0.0.1:9000/docs',
      console: 'http://localhost:9000/console',
      storage: 'PostgreSQL postgres://postgres@127.0.0.1:5432/signet',
      dataDir: '/srv/signet/.signet',
      connections: 'at most 960 (open-file limit 1035, 75 kept for the store, delivery and logs); no cap per client address',
      firstKey: 'SIGNET_DATA_DIR=/srv/signet/.signet npx signet org create --name NAME',
    };
    const summary = renderSummary(facts, 'warn');
    assert.ok(
      summary.includes(
        '\nNo API key of this server in the data folder yet. Create an organization and its first key, in another terminal:\n' +
          '  SIGNET_DATA_DIR=/srv/signet/.signet npx signet org create --name NAME\n' +
          'It prints the key once and writes /srv/signet/.signet/credentials.json, which the signet CLI and the examples read.\n',
      ),
      summary,
    );
    assert.doesNotMatch(summary, /Dev credentials|Credentials|Try the examples/);
  });
});
