// A new user's first run: `signet serve` (what npm start runs) on an empty embedded store writes
// the dev credentials, the README example submits both activities, the email lands in the dev
// mailbox, the CLI works against the running server, and a restart keeps the same organization.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, run, serve, signet, type Served } from './support/processes.ts';
import { until } from './support/until.ts';

describe('signet migrate', () => {
  test('a fresh embedded store starts from the migrated image the build wrote: nothing to apply, then or again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-migrate-'));
    try {
      const first = await signet(['migrate'], { SIGNET_DATA_DIR: dataDir });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /schema is up to date/);
      const again = await signet(['migrate'], { SIGNET_DATA_DIR: dataDir });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /schema is up to date/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a bad setting stops it with the variable named', async () => {
    const result = await signet(['migrate'], { SIGNET_DATABASE_URL: 'mysql://nope' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /configuration error: SIGNET_DATABASE_URL/);
  });
});

describe('the examples without their server', () => {
  test('say in one line what to set, with no stack trace', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-examples-'));
    try {
      for (const example of ['submit.ts', 'verify.ts', 'otp-login.ts', 'app-login.ts']) {
        const result = await run(process.execPath, ['--import', 'tsx', `examples/${example}`], { SIGNET_DATA_DIR: empty });
        assert.equal(result.code, 1, example);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
        assert.match(result.stderr, new RegExp(`^${example.replace('.', '\\.')}: no credentials at .*: start Signet with "npm start" .* set SIGNET_DATA_DIR.*signet org create`));
      }
      // Credentials of a server that is not running.
      const port = await freePort();
      fs.writeFileSync(path.join(empty, 'dev-credentials.json'), JSON.stringify({ baseUrl: `http://127.0.0.1:${port}`, organizationId: 'x', userId: 'x', apiPublicKey: 'x', apiPrivateKey: 'x' }));
      const result = await run(process.execPath, ['--import', 'tsx', 'examples/submit.ts'], { SIGNET_DATA_DIR: empty });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`^submit\\.ts: Signet does not answer at http://127\\.0\\.0\\.1:${port} .*\\n$`));
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('first start on the embedded store', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let baseUrl: string;
  let served: Served | undefined;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-dev-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = { SIGNET_DATA_DIR: dataDir, SIGNET_PORT: String(port), SIGNET_LOG_LEVEL: 'info' };
    delete process.env.SIGNET_DATABASE_URL;
    served = await serve(env, baseUrl);
  });
  after(async () => {
    if (served) await served.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('writes dev-credentials.json (0600) and says where', async () => {
    const file = path.join(dataDir, 'dev-credentials.json');
    const credentials = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(credentials).sort(), ['apiKeyId', 'apiPrivateKey', 'apiPublicKey', 'baseUrl', 'organizationId', 'userId']);
    assert.equal(credentials.baseUrl, baseUrl);
    assert.match(credentials.apiPublicKey, /^0[23][0-9a-f]{64}$/);
    assert.match(credentials.apiPrivateKey, /^[0-9a-f]{64}$/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(dataDir, 'admin-token')).mode & 0o777, 0o600);
    // The ready line is written asynchronously: /healthz can answer before it reaches the pipe.
    await until('the ready line naming the file', () => served!.output().includes(file), { timeoutMs: 10_000, everyMs: 50 });
    assert.equal((await fetch(`${baseUrl}/readyz`)).status, 200);
  });

  test('the README example submits both activities and the email lands in the dev mailbox', async () => {
    const result = await run(process.execPath, ['--import', 'tsx', 'examples/submit.ts'], env);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /init_otp_auth: ACTIVITY_STATUS_COMPLETED otpId [0-9a-f-]{36}/);
    assert.match(result.stdout, /create_smart_contract_interface: ACTIVITY_STATUS_COMPLETED smartContractInterfaceId [0-9a-f-]{36}/);

    const mailDir = path.join(dataDir, 'mail');
    const files = await until(
      'a message in the dev mailbox',
      () => {
        // Created, then written: a file is counted once it holds the message.
        const written = fs.existsSync(mailDir) ? fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml') && fs.statSync(path.join(mailDir, f)).size > 0) : [];
        return written.length > 0 && written;
      },
      { timeoutMs: 10_000, everyMs: 50 },
    );
    assert.equal(files.length, 1);
    const eml = fs.readFileSync(path.join(mailDir, files[0]!), 'utf8');
    assert.match(eml, /^To: alice@example\.com/m);
    assert.match(eml, /Example Wallet/);
    // The line follows the file, asynchronously and through a pipe: it may arrive a moment later.
    const named = new RegExp(files[0]!.replace('.', '\\.'));
    await until('a log line naming the file', () => named.test(served!.output()), { timeoutMs: 10_000, everyMs: 50 });
  });

  test('the ready message names the exact commands, and the verify example verifies the code from the mailbox', async () => {
    assert.ok(served!.output().includes(`SIGNET_DATA_DIR=${dataDir} npx tsx examples/submit.ts`), served!.output());
    const result = await run(process.execPath, ['--import', 'tsx', 'examples/verify.ts'], env);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /^verifying OTP [0-9a-f-]{36} with the code [0-9A-Z]{9}$/m);
    assert.match(result.stdout, /verify_otp: ACTIVITY_STATUS_COMPLETED/);
    assert.match(result.stdout, /token verified: alice@example\.com \(organization [0-9a-f-]{36}\)/);

    // The code is used now: a second run says so in one line, as does a wrong argument.
    const again = await run(process.execPath, ['--import', 'tsx', 'examples/verify.ts'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^verify\.ts: .*this OTP was already used.*\n$/);
    const usage = await run(process.execPath, ['--import', 'tsx', 'examples/verify.ts', 'not-an-id'], env);
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /^verify\.ts: usage: npx tsx examples\/verify\.ts \[OTP_ID \[CODE\]\]/);
  });

  test('the login example of docs/otp.md goes from a code to a session with the ecosystem\'s libraries', async () => {
    const result = await run(process.execPath, ['--import', 'tsx', 'examples/otp-login.ts'], { ...env, EXAMPLE_EMAIL: 'login-example@example.com' });
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /create_users: userId [0-9a-f-]{36}/);
    assert.match(result.stdout, /verify_otp: token for login-example@example\.com bound to 0[23][0-9a-f]{64}/);
    assert.match(result.stdout, /otp_login: session verifies: true/);
    assert.match(result.stdout, /stamped with the session key: list_activities ACTIVITY_TYPE_OTP_LOGIN_V2, ACTIVITY_TYPE_VERIFY_OTP_V2, ACTIVITY_TYPE_INIT_OTP_V3/);
  });

  test("the sign-up and login example of docs/app-users.md puts a new person in their own sub-organization, then finds it", async () => {
    const first = await run(process.execPath, ['--import', 'tsx', 'examples/app-login.ts'], { ...env, EXAMPLE_EMAIL: 'app-user@example.com' });
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.match(first.stdout, /list_verified_suborgs: none yet/);
    const created = /create_sub_organization: ([0-9a-f-]{36})/.exec(first.stdout)?.[1];
    assert.ok(created, first.stdout);
    assert.match(first.stdout, /otp_login: session verifies: true/);
    assert.match(first.stdout, new RegExp(`whoami: app-user@example\\.com in ${created}; get_user: app-user@example\\.com`));
    // The returning person: found by the verified email, logged into the same sub-organization.
    const again = await run(process.execPath, ['--import', 'tsx', 'examples/app-login.ts'], { ...env, EXAMPLE_EMAIL: 'app-user@example.com' });
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stdout, new RegExp(`list_verified_suborgs: ${created}`));
    assert.doesNotMatch(again.stdout, /create_sub_organization/);
    assert.match(again.stdout, new RegExp(`whoami: app-user@example\\.com in ${created}`));
  });

  test('the CLI manages organizations, keys and templates through the running server', async () => {
    const created = await signet(['org', 'create', '--name', 'CLI Org', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const org = JSON.parse(created.stdout);
    // The server is the one running from the data folder: the key is written there too.
    assert.deepEqual(Object.keys(org).sort(), ['apiKeyId', 'apiPrivateKey', 'apiPublicKey', 'credentialsFile', 'organizationId', 'userId']);
    assert.equal(org.credentialsFile, path.join(dataDir, 'credentials.json'));

    const key = await signet(['apikey', 'create', '--org', org.organizationId, '--user', org.userId, '--name', 'ci', '--expires-in', '3600', '--json'], env);
    assert.equal(key.code, 0, key.stderr);
    const apiKey = JSON.parse(key.stdout);
    assert.match(apiKey.apiPublicKey, /^0[23][0-9a-f]{64}$/);
    assert.ok(apiKey.expiresAt);

    const revoked = await signet(['apikey', 'revoke', '--org', org.organizationId, '--key', apiKey.apiKeyId], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /revokedAt/);

    const html = path.join(dataDir, 'otp.html');
    const text = path.join(dataDir, 'otp.txt');
    fs.writeFileSync(html, '<p>Your {{appName}} code: <b>{{otpCode}}</b></p>');
    fs.writeFileSync(text, 'Your {{appName}} code: {{otpCode}}');
    const added = await signet(['template', 'add', '--org', org.organizationId, '--subject', '{{appName}} code', '--html', html, '--text', text, '--name', 'plain', '--json'], env);
    assert.equal(added.code, 0, added.stderr);
    const template = JSON.parse(added.stdout);
    const listed = await signet(['template', 'list', '--org', org.organizationId], env);
    assert.match(listed.stdout, new RegExp(`${template.templateId}\\s.*plain`));
    const removed = await signet(['template', 'remove', '--org', org.organizationId, '--id', template.templateId], env);
    assert.equal(removed.code, 0, removed.stderr);
    const unreadable = await signet(['template', 'add', '--org', org.organizationId, '--subject', 's', '--html', '/nonexistent.html', '--text', text], env);
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.stderr, /--html: cannot read/);

    const missing = await signet(['apikey', 'revoke', '--org', org.organizationId], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--key is required/);

    const unknown = await signet(['apikey', 'revoke', '--org', org.organizationId, '--key', '00000000-0000-4000-8000-000000000000'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /404: no API key/);
  });

  test('stops cleanly on SIGTERM and a restart keeps the same organization', async () => {
    const before = fs.readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8');
    assert.equal(await served!.stop(), 0);
    served = await serve(env, baseUrl);
    assert.equal(fs.readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8'), before);
    assert.doesNotMatch(served.output(), /Development credentials written/);
  });
});
