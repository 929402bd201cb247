// A client in any language can stamp: the shell and Python examples of docs/stamping.md run here as
// they appear there (read from the page's code blocks, so the page and the test cannot differ), with
// bash, openssl, xxd and curl, and python3 with `cryptography`, against a real server; so does the
// page's `signet stamp` example, and `signet stamp --key-file`'s header used with a plain fetch. Each
// gets its activity completed or its query answered, and a wrong key gets the 401.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { ensureCompiled, ROOT, run, SIGNET_BIN } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const page = fs.readFileSync(path.join(ROOT, 'docs', 'stamping.md'), 'utf8');
const blocks = (language: string) => [...page.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const shellScript = blocks('sh').find((block) => block.includes('openssl dgst'));
const signetExample = blocks('sh').find((block) => block.includes('signet stamp'));
const pythonSnippet = blocks('python')[0];

/** Which of the tools a recipe needs are missing here, for its skip message. */
function missing(...tools: string[]): string[] {
  return tools.filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
}

function hasCryptography(): boolean {
  try {
    execFileSync('python3', ['-c', 'import cryptography'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const shellTools = missing('bash', 'openssl', 'xxd', 'curl', 'tr');
const pythonReady = missing('python3').length === 0 && hasCryptography();

for (const tdb of testDatabases) {
  describe(`stamping from any language (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let dir: string;
    /** The page's variables for org's key; `privateKey` replaces its private key (a wrong one). */
    const env = (privateKey = org.apiPrivateKey) => ({
      SIGNET_URL: server.baseUrl,
      ORGANIZATION_ID: org.organizationId,
      API_PUBLIC_KEY: org.apiPublicKey,
      API_PRIVATE_KEY: privateKey,
    });
    const wrongKey = () => generateApiKeyPair().apiPrivateKey;

    before(async () => {
      server = await startTestServer(tdb);
      org = await server.createOrganization('stamping');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-stamping-'));
    });
    after(async () => {
      await server?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('the docs hold a shell script, a Python snippet and a signet stamp example', () => {
      assert.ok(shellScript && pythonSnippet && signetExample, 'docs/stamping.md lost one of its examples');
    });

    test('the shell script: openssl signs, curl sends; the activity completes, and a wrong key is a 401', { skip: shellTools.length ? `${shellTools.join(', ')} not installed here` : false }, async () => {
      const done = await run('bash', ['-c', shellScript!], env(), 30_000, dir);
      assert.equal(done.code, 0, done.stderr + done.stdout);
      const { activity } = JSON.parse(done.stdout);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE');
      assert.equal(activity.intent.createSmartContractInterfaceIntent.label, 'from a shell');
      assert.equal(fs.existsSync(path.join(dir, 'key.der')), false, 'the script removes the key file');

      const refused = await run('bash', ['-c', shellScript!], env(wrongKey()), 30_000, dir);
      assert.equal(refused.code, 22, 'curl --fail-with-body exits 22 on the 401');
      assert.equal(JSON.parse(refused.stdout).code, 16);
      assert.match(refused.stdout, /does not verify/);
    });

    test('the Python snippet: cryptography signs, urllib sends; the activity completes, and a wrong key is a 401', { skip: pythonReady ? false : 'python3 with the cryptography package is not installed here' }, async () => {
      const done = await run('python3', ['-c', pythonSnippet!], env(), 30_000, dir);
      assert.equal(done.code, 0, done.stderr);
      const { activity } = JSON.parse(done.stdout);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.intent.createSmartContractInterfaceIntent.label, 'from Python');

      const refused = await run('python3', ['-c', pythonSnippet!], env(wrongKey()), 30_000, dir);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /HTTP Error 401/);
    });

    test('signet stamp --key-file: its header with a plain fetch completes an activity; --value alone; a key the server does not know is a 401', async () => {
      ensureCompiled();
      const keyFile = path.join(dir, 'credentials.json');
      fs.writeFileSync(keyFile, JSON.stringify(org), { mode: 0o600 });
      const body = JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'signet stamp' },
      });
      fs.writeFileSync(path.join(dir, 'body.json'), body);
      const stamp = (file: string, ...flags: string[]) => run('sh', ['-c', 'exec "$0" "$@" < body.json', process.execPath, SIGNET_BIN, 'stamp', '--key-file', file, ...flags], {}, 30_000, dir);

      const line = await stamp(keyFile);
      assert.equal(line.code, 0, line.stderr);
      const [, header, value] = /^(X-Stamp): (\S+)\n$/.exec(line.stdout) ?? [];
      assert.ok(header && value, line.stdout);
      const response = await fetch(`${server.baseUrl}/public/v1/submit/create_smart_contract_interface`, { method: 'POST', headers: { 'content-type': 'application/json', [header]: value }, body });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as any).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const bare = await stamp(keyFile, '--value');
      assert.match(bare.stdout, /^[A-Za-z0-9_-]+\n$/);
      assert.deepEqual(Object.keys(JSON.parse(Buffer.from(bare.stdout.trim(), 'base64url').toString())), ['publicKey', 'scheme', 'signature']);

      // A PEM key the server does not know: a valid stamp of another key.
      const pemFile = path.join(dir, 'other.pem');
      execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', pemFile]);
      const other = await stamp(pemFile, '--value');
      assert.equal(other.code, 0, other.stderr);
      const refused = await fetch(`${server.baseUrl}/public/v1/submit/create_smart_contract_interface`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-stamp': other.stdout.trim() }, body });
      assert.equal(refused.status, 401);

      const mismatched = path.join(dir, 'mismatched.json');
      fs.writeFileSync(mismatched, JSON.stringify({ ...org, apiPrivateKey: wrongKey() }), { mode: 0o600 });
      const bad = await stamp(mismatched);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /apiPrivateKey is not the private key of apiPublicKey/);
      const none = await run(process.execPath, [SIGNET_BIN, 'stamp', '--key-file', path.join(dir, 'absent.json')], {}, 30_000, dir);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /--key-file: cannot read .*absent\.json/);
    });

    test("the page's signet stamp example, run as shown, gets the query answered", { skip: missing('curl').length ? 'curl is not installed here' : false }, async () => {
      ensureCompiled();
      const bin = path.join(dir, 'bin');
      fs.mkdirSync(bin, { recursive: true });
      fs.writeFileSync(path.join(bin, 'signet'), `#!/bin/sh\nexec "${process.execPath}" "${SIGNET_BIN}" "$@"\n`, { mode: 0o755 });
      fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(org), { mode: 0o600 });
      fs.writeFileSync(path.join(dir, 'body.json'), JSON.stringify({ organizationId: org.organizationId }));
      const done = await run('sh', ['-c', signetExample!], { ...env(), PATH: `${bin}:${process.env.PATH}` }, 30_000, dir);
      assert.equal(done.code, 0, done.stderr + done.stdout);
      assert.deepEqual(JSON.parse(done.stdout).userId, org.userId);
    });
  });
}
