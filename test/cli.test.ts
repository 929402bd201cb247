// The `signet` command as a user runs it (bin/signet.js, compiled): the command table drives help,
// --help on every command, --version and usage errors; `signet config` never prints a secret; the
// admin lists and removals work against a running server; and `signet serve` speaks to a person at
// a terminal (a real pseudo-terminal, through util-linux's `script`) and in JSON lines otherwise.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { commandName, commandTable } from '../src/cli/command.ts';
import { COMMANDS } from '../src/cli/commands.ts';
import { exampleCommands, renderSummary, type StartupFacts } from '../src/cli/startup.ts';
import { testDatabases } from './support/databases.ts';
import { freePort, ROOT, serve, signet, SIGNET_BIN, ensureCompiled } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from './support/server.ts';
import { until } from './support/until.ts';

const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;

describe('help, version and usage errors', () => {
  test('--version and -v print the version of package.json', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await signet([flag], {});
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${VERSION}\n`);
    }
  });

  test('`signet help` (and --help, -h) lists every command of the table with its summary', async () => {
    for (const args of [['help'], ['--help'], ['-h']]) {
      const result = await signet(args, {});
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, '');
      for (const command of COMMANDS) {
        assert.ok(result.stdout.includes(`  ${commandName(command)}`), `${args}: ${commandName(command)}`);
        assert.ok(result.stdout.replace(/\s+/g, ' ').includes(command.summary), `${args}: ${command.summary}`);
      }
    }
    const none = await signet([], {});
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^signet: give a command\n\nUsage: signet <command>/);
  });

  test('--help and -h on every command and subcommand: its page on stdout naming every option, exit 0', async () => {
    for (const command of COMMANDS) {
      const words = commandName(command).split(' ');
      const result = await signet([...words, command.name === 'proof' ? '-h' : '--help'], {});
      assert.equal(result.code, 0, `${words}: ${result.stderr}`);
      assert.ok(result.stdout.startsWith(`Usage: signet ${commandName(command)}`), result.stdout);
      for (const flag of Object.keys(command.flags)) assert.match(result.stdout, new RegExp(`\\n  --${flag}\\b`), `${words} --${flag}`);
      for (const argument of command.args ?? []) assert.match(result.stdout, new RegExp(`\\n  ${argument.name}\\b`));
      assert.match(result.stdout, /-h, --help/);
    }
    // `signet help COMMAND SUB` is the same page; a command with subcommands lists them.
    assert.equal((await signet(['help', 'apikey', 'list'], {})).stdout, (await signet(['apikey', 'list', '--help'], {})).stdout);
    const group = await signet(['sender-domain', '--help'], {});
    assert.equal(group.code, 0);
    for (const sub of ['add', 'list', 'remove']) assert.match(group.stdout, new RegExp(`signet sender-domain ${sub} --org ID`));
  });

  test('a wrong command line exits 2, naming the problem and showing the usage of its command', async () => {
    const cases: Array<[string[], RegExp, string]> = [
      [['apikey', 'revoke', '--org', 'o'], /^signet: --key is required\n/, 'Usage: signet apikey revoke --org ID --key ID [--json]'],
      [['org', 'list', '--colour'], /^signet: unknown option --colour for signet org list\n/, 'Usage: signet org list [--json]'],
      [['apikey', 'create', '--org', 'o', '--user', 'u', '--expires-in', '1h'], /--expires-in takes a whole number \(SECONDS\), got "1h"/, 'Usage: signet apikey create'],
      [['delivery', 'list', '--org', 'o', '--limit', 'ten'], /--limit takes a whole number \(N\), got "ten"/, 'Usage: signet delivery list'],
      [['serve', 'now'], /"serve" takes no arguments, got "now"/, 'Usage: signet serve'],
      [['proof', 'verify'], /"proof verify" takes FILE, got none/, 'Usage: signet proof verify FILE'],
      [['sender-domain', 'delete'], /unknown subcommand "sender-domain delete"; expected: signet sender-domain add\|list\|remove/, 'Usage: signet sender-domain add|list|remove'],
      [['organisation'], /unknown command "organisation"/, 'Usage: signet <command>'],
      [['help', 'org', 'delete'], /unknown subcommand "org delete"/, 'Usage: signet org create|list'],
    ];
    for (const [args, message, usage] of cases) {
      const result = await signet(args, {});
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.ok(result.stderr.includes(`\n\n${usage}`), `${args.join(' ')}:\n${result.stderr}`);
      assert.equal(result.stdout, '');
    }
  });

  test("docs/cli.md's command table is the one the commands declare", () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    const table = commandTable(COMMANDS);
    assert.ok(page.includes(table), `docs/cli.md's command table differs from src/cli/commands.ts; replace it with:\n\n${table}\n`);
  });
});

describe('signet config', () => {
  const OTP_SECRET = 'f0c1d2e3a4b5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f';
  const ADMIN = 'Zq9-xW3_vT7pL2mK8nB4cR6hJ1gF5dS0aY';
  const TWILIO_TOKEN = 'twilio-auth-token-5f3e2d1c';
  const env = {
    SIGNET_OTP_SECRET: OTP_SECRET,
    SIGNET_ADMIN_TOKEN: ADMIN,
    SIGNET_DATABASE_URL: 'postgres://signet:db-pa55word@db.internal:5432/signet?sslmode=require&password=query-pa55',
    SIGNET_SMTP_URL: 'smtp://mailer:smtp-pa55word@mail.internal:587',
    SIGNET_SMS_PROVIDER: 'twilio',
    SIGNET_TWILIO_ACCOUNT_SID: `AC${'0123456789abcdef'.repeat(2)}`,
    SIGNET_TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    SIGNET_TWILIO_FROM: '+14155550100',
    SIGNET_PORT: '9123',
  };
  const SECRETS = [OTP_SECRET, ADMIN, TWILIO_TOKEN, 'db-pa55word', 'query-pa55', 'smtp-pa55word'];

  test('prints every setting, its value and where it came from; no secret appears', async () => {
    const text = await signet(['config'], env);
    const json = await signet(['config', '--json'], env);
    for (const result of [text, json]) {
      assert.equal(result.code, 0, result.stderr);
      for (const secret of SECRETS) assert.ok(!(result.stdout + result.stderr).includes(secret), `${secret} was printed`);
    }
    const settings = JSON.parse(json.stdout) as Array<{ name: string; value: string; source: string }>;
    const byName = Object.fromEntries(settings.map((s) => [s.name, s]));
    assert.ok(settings.length >= 30);
    assert.deepEqual(byName.SIGNET_OTP_SECRET, { name: 'SIGNET_OTP_SECRET', value: '********', source: 'environment' });
    assert.equal(byName.SIGNET_ADMIN_TOKEN!.value, '********');
    assert.equal(byName.SIGNET_TWILIO_AUTH_TOKEN!.value, '********');
    assert.equal(byName.SIGNET_DATABASE_URL!.value, 'postgres://signet:********@db.internal:5432/signet?sslmode=require&password=********');
    assert.equal(byName.SIGNET_SMTP_URL!.value, 'smtp://mailer:********@mail.internal:587');
    assert.deepEqual(byName.SIGNET_PORT, { name: 'SIGNET_PORT', value: '9123', source: 'environment' });
    assert.deepEqual(byName.SIGNET_HOST, { name: 'SIGNET_HOST', value: '127.0.0.1', source: 'default' });
    assert.deepEqual(byName.SIGNET_URL, { name: 'SIGNET_URL', value: 'http://127.0.0.1:9123', source: 'default' });
    assert.match(text.stdout, /^SETTING +VALUE +SOURCE\n/);
    assert.match(text.stdout, /^SIGNET_OTP_SECRET +\*{8} +environment$/m);
    assert.match(text.stdout, /^SIGNET_LOG_LEVEL +info +default$/m);
    assert.equal(text.stdout.trim().split('\n').length, settings.length + 1, 'the header and one line per setting');
  });

  test('a bad setting exits 2 naming the variable, as serve does', async () => {
    const result = await signet(['config'], { SIGNET_ADMIN_TOKEN: 'short', SIGNET_PORT: 'x' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /configuration error: .*SIGNET_PORT must be a whole number/);
    assert.match(result.stderr, /SIGNET_ADMIN_TOKEN is too weak/);
    assert.ok(!result.stderr.includes('"short"'));
  });
});

for (const tdb of testDatabases) {
  describe(`admin commands against a running server (${tdb.name})`, () => {
    let server: TestServer;
    let env: Record<string, string>;
    before(async () => {
      server = await startTestServer(tdb);
      env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
    });
    after(() => server.close());

    test('a fresh server: each list says there are none, in text; [] with --json', async () => {
      // Runs first: the server's store is empty.
      const orgs = await signet(['org', 'list'], env);
      assert.equal(orgs.code, 0, orgs.stderr);
      assert.equal(orgs.stdout, 'no organizations\n');
      assert.equal((await signet(['org', 'list', '--json'], env)).stdout, '[]\n');

      const org = await server.createOrganization('Empty lists');
      const alice = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'alice' });
      const cases: Array<[string[], string]> = [
        [['suborg', 'list', '--org', org.organizationId], 'no sub-organizations'],
        [['apikey', 'list', '--org', org.organizationId, '--user', alice.userId], 'no API keys for this user'],
        [['sender-domain', 'list', '--org', org.organizationId], 'no sender domains'],
        [['template', 'list', '--org', org.organizationId], 'no email templates'],
        [['delivery', 'list', '--org', org.organizationId], 'no deliveries'],
        [['delivery', 'list', '--org', org.organizationId, '--status', 'failed'], 'no failed deliveries'],
      ];
      for (const [args, none] of cases) {
        const text = await signet(args, env);
        assert.equal(text.code, 0, `${args.join(' ')}: ${text.stderr}`);
        assert.equal(text.stdout, `${none}\n`, args.join(' '));
        const json = await signet([...args, '--json'], env);
        assert.equal(json.stdout, '[]\n', `${args.join(' ')} --json`);
      }
    });

    test('org create and apikey create: the new private key is followed by a line saying it is shown once; --json keeps stdout one JSON document', async () => {
      const created = await signet(['org', 'create', '--name', 'Shown once'], env);
      assert.equal(created.code, 0, created.stderr);
      const lines = created.stdout.trimEnd().split('\n');
      assert.match(lines.at(-2)!, /^apiPrivateKey: [0-9a-f]{64}$/);
      assert.equal(lines.at(-1), 'apiPrivateKey is shown once — store it now; Signet keeps only the public key');
      const organizationId = /^organizationId: (\S+)$/m.exec(created.stdout)![1]!;
      const userId = /^userId: (\S+)$/m.exec(created.stdout)![1]!;

      const json = await signet(['org', 'create', '--name', 'Shown once, as JSON', '--json'], env);
      assert.equal(json.code, 0, json.stderr);
      assert.match(JSON.parse(json.stdout).apiPrivateKey, /^[0-9a-f]{64}$/);
      assert.doesNotMatch(json.stdout, /shown once/);
      // Then where the key was written, or (here: the server is not the one running from SIGNET_DATA_DIR) why not.
      const [shown, ...notes] = json.stderr.trimEnd().split('\n');
      assert.equal(shown, 'signet: apiPrivateKey is shown once — store it now; Signet keeps only the public key');
      assert.deepEqual(notes.map((note) => note.replace(/:.*/s, '')), ['signet']);
      assert.match(notes[0]!, /^signet: no credentials file written: the server at \S+ is not the one running from SIGNET_DATA_DIR/);

      const key = await signet(['apikey', 'create', '--org', organizationId, '--user', userId, '--name', 'ci'], env);
      assert.equal(key.code, 0, key.stderr);
      assert.match(key.stdout, /^apiPrivateKey: [0-9a-f]{64}\napiPrivateKey is shown once — store it now; Signet keeps only the public key\n/m);
      assert.ok(key.stdout.endsWith('apiPrivateKey is shown once — store it now; Signet keeps only the public key\n'), key.stdout);
      const keyJson = await signet(['apikey', 'create', '--org', organizationId, '--user', userId, '--json'], env);
      assert.match(JSON.parse(keyJson.stdout).apiPrivateKey, /^[0-9a-f]{64}$/);
      assert.equal(keyJson.stderr, 'signet: apiPrivateKey is shown once — store it now; Signet keeps only the public key\n');

      // A public key the user holds: no private key printed, so no line about one.
      const held = await signet(['apikey', 'create', '--org', organizationId, '--user', userId, '--public-key', JSON.parse(json.stdout).apiPublicKey], env);
      assert.equal(held.code, 0, held.stderr);
      assert.doesNotMatch(held.stdout, /apiPrivateKey|shown once/);
      assert.equal(held.stderr, '');
    });

    test("a value the server refuses: its message names the flag typed, not the request's field", async () => {
      const org = await server.createOrganization('Flags named');
      const long = await signet(['org', 'create', '--name', 'x'.repeat(300)], env);
      assert.equal(long.code, 1);
      assert.equal(
        long.stderr,
        `signet: 400: invalid organization: --name: Too big: expected string to have <=256 characters (POST ${server.baseUrl}/admin/v1/organizations)\n`,
      );
      const user = await signet(['apikey', 'create', '--org', org.organizationId, '--user', 'alice'], env);
      assert.equal(user.code, 1);
      assert.match(user.stderr, /^signet: 400: invalid API key: --user: must be a UUID \(POST /);
      const path = await signet(['user', 'list', '--org', 'acme'], env);
      assert.match(path.stderr, /^signet: 400: invalid path: --org: must be a UUID \(GET /);
      const query = await signet(['delivery', 'list', '--org', org.organizationId, '--otp', 'x'], env);
      assert.match(query.stderr, /^signet: 400: invalid query: --otp: /);
      const quorum = await signet(['org', 'quorum', '--org', org.organizationId, '--threshold', '3', '--user', org.userId, '--user', 'bob'], env);
      assert.equal(quorum.code, 1);
      assert.match(quorum.stderr, /^signet: 400: invalid root quorum: .*--user bob: .*--threshold: must be at most the number of --user values/);
      assert.doesNotMatch(quorum.stderr, /userIds/);
      const taken = await signet(['user', 'create', '--org', org.organizationId, '--name', 'root2', '--email', 'ops@example.com'], env);
      assert.equal(taken.code, 0, taken.stderr);
      const again = await signet(['user', 'create', '--org', org.organizationId, '--email', 'OPS@example.com'], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^signet: 400: --email: ops@example\.com is already the email address of another user/);
    });

    test('org list, user list and apikey list show what was made, newest first, under a header', async () => {
      const created = await signet(['org', 'create', '--name', 'Listed by the CLI', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const org = JSON.parse(created.stdout);

      const orgs = await signet(['org', 'list'], env);
      assert.equal(orgs.code, 0, orgs.stderr);
      const orgLines = orgs.stdout.split('\n');
      assert.match(orgLines[0]!, /^ORGANIZATION ID +CREATED +SUB-ORGANIZATION OF +DELETED +NAME$/);
      assert.match(orgLines[1]!, new RegExp(`^${org.organizationId}  \\d{4}-\\S+Z  +-  +-  +Listed by the CLI$`));
      const orgsJson = JSON.parse((await signet(['org', 'list', '--json'], env)).stdout);
      assert.deepEqual(orgsJson[0], (await server.admin('GET', '/organizations?limit=1')).organizations[0]);

      const user = JSON.parse((await signet(['user', 'create', '--org', org.organizationId, '--email', 'ops@example.com', '--json'], env)).stdout);
      const users = await signet(['user', 'list', '--org', org.organizationId], env);
      const userLines = users.stdout.trim().split('\n');
      assert.match(userLines[0]!, /^USER ID +CREATED +EMAIL +PHONE +NAME$/);
      assert.deepEqual(userLines.slice(1).map((line) => line.split('  ')[0]), [user.userId, org.userId]);
      assert.match(userLines[1]!, /  ops@example\.com  +-  +ops@example\.com$/);

      const key = JSON.parse((await signet(['apikey', 'create', '--org', org.organizationId, '--user', user.userId, '--name', 'ci', '--json'], env)).stdout);
      await signet(['apikey', 'revoke', '--org', org.organizationId, '--key', org.apiKeyId], env);
      const keys = await signet(['apikey', 'list', '--org', org.organizationId], env);
      assert.equal(keys.code, 0, keys.stderr);
      const lines = keys.stdout.trim().split('\n');
      assert.equal(lines.length, 3);
      assert.match(lines[0]!, /^API KEY ID +CREATED +KIND +STATE +USER ID +PUBLIC KEY +NAME$/);
      assert.match(lines[1]!, new RegExp(`^${key.apiKeyId}  \\S+  api_key  active +${user.userId}  ${key.apiPublicKey}  ci$`));
      assert.match(lines[2]!, new RegExp(`^${org.apiKeyId}  \\S+  api_key  revoked \\S+Z  ${org.userId}  ${org.apiPublicKey}  root key$`));
      const ofUser = JSON.parse((await signet(['apikey', 'list', '--org', org.organizationId, '--user', user.userId, '--json'], env)).stdout);
      assert.deepEqual(ofUser.map((k: any) => [k.apiKeyId, k.kind]), [[key.apiKeyId, 'api_key']]);
    });

    test('sender-domain add, list and remove; a second removal fails naming the command that lists them', async () => {
      const org = await server.createOrganization('Domains by the CLI');
      const added = await signet(['sender-domain', 'add', '--org', org.organizationId, '--domain', 'Mail.Acme.example', '--json'], env);
      assert.equal(added.code, 0, added.stderr);
      const { senderDomainId } = JSON.parse(added.stdout);
      const listed = await signet(['sender-domain', 'list', '--org', org.organizationId], env);
      assert.match(listed.stdout, new RegExp(`^SENDER DOMAIN ID +CREATED +DOMAIN\\n${senderDomainId}  \\S+Z  mail\\.acme\\.example\\n$`));

      const removed = await signet(['sender-domain', 'remove', '--org', org.organizationId, '--domain', 'MAIL.acme.example'], env);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(removed.stdout, `senderDomainId: ${senderDomainId}\ndomain: mail.acme.example\n`);
      assert.equal((await signet(['sender-domain', 'list', '--org', org.organizationId, '--json'], env)).stdout, '[]\n');

      const again = await signet(['sender-domain', 'remove', '--org', org.organizationId, '--domain', 'mail.acme.example'], env);
      assert.equal(again.code, 1);
      assert.equal(
        again.stderr,
        `signet: 404: no sender domain mail.acme.example in organization ${org.organizationId}; ` +
          `list its sender domains with \`signet sender-domain list --org ${org.organizationId}\`` +
          ` (DELETE ${server.baseUrl}/admin/v1/organizations/${org.organizationId}/sender-domains/mail.acme.example)\n`,
      );
      const noOrg = await signet(['sender-domain', 'list', '--org', '00000000-0000-4000-8000-000000000000'], env);
      assert.equal(noOrg.code, 1);
      assert.match(noOrg.stderr, /404: no organization .*; list organizations with `signet org list`/);
    });

    test('a missing or wrong admin token says how to give the right one', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-cli-token-'));
      try {
        const missing = await signet(['org', 'list'], { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: '', SIGNET_DATA_DIR: dataDir });
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /no admin token: set SIGNET_ADMIN_TOKEN to the server's, or SIGNET_DATA_DIR to the server's data folder/);
        fs.writeFileSync(path.join(dataDir, 'admin-token'), 'another-servers-token-0123456789abcdef\n');
        const wrong = await signet(['org', 'list'], { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: '', SIGNET_DATA_DIR: dataDir });
        assert.equal(wrong.code, 1);
        assert.match(wrong.stderr, /^signet: 401: the admin API needs Authorization: Bearer <token>.*SIGNET_ADMIN_TOKEN/);
        assert.ok(wrong.stderr.includes(`(the token sent came from ${path.join(dataDir, 'admin-token')}) (GET ${server.baseUrl}/admin/v1/organizations`), wrong.stderr);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}

describe('start-up output', () => {
  const present = ['submit.ts', 'verify.ts', 'otp-login.ts'].filter((file) => fs.existsSync(path.join(ROOT, 'examples', file)));

  test('the example commands name the package folder and the data folder only when the examples would not find them', () => {
    const bare = present.map((file) => `npx tsx examples/${file}`);
    assert.deepEqual(exampleCommands(path.join(ROOT, '.signet'), ROOT), bare);
    assert.deepEqual(exampleCommands('/srv/signet data', ROOT), bare.map((c) => `SIGNET_DATA_DIR='/srv/signet data' ${c}`));
    assert.deepEqual(exampleCommands(path.join(ROOT, '.signet'), os.tmpdir()), bare.map((c) => `cd ${ROOT} && ${c}`));
  });

  test('the summary shows what applies: on PostgreSQL with SMTP, no mailbox, credentials or examples', () => {
    const facts: StartupFacts = {
      version: '9.9.9',
      url: 'http://10.0.0.5:8080',
      docs: 'http://10.0.0.5:8080/docs',
      console: 'https://signet.example.com/console',
      storage: 'PostgreSQL postgres://signet:********@db:5432/signet',
      dataDir: '/var/lib/signet',
      connections: 'at most 960 (open-file limit 1035, 75 kept for the store, delivery and logs); 64 per client address',
      smsLog: '/var/lib/signet/sms.log',
    };
    const summary = renderSummary(facts, 'info');
    assert.match(summary, /^Signet 9\.9\.9 is ready at http:\/\/10\.0\.0\.5:8080\n {2}API reference {5}http:\/\/10\.0\.0\.5:8080\/docs\n {2}Console {11}https:\/\/signet\.example\.com\/console\n/);
    assert.match(summary, /Storage {11}PostgreSQL postgres:\/\/signet:\*{8}@db:5432\/signet/);
    assert.match(summary, /SMS log {11}\/var\/lib\/signet\/sms\.log/);
    assert.match(summary, /Connections {7}at most 960 \(open-file limit 1035, 75 kept for the store, delivery and logs\); 64 per client address\n/);
    assert.doesNotMatch(summary, /Admin token|Dev mailbox|Dev credentials|examples/);
    assert.match(summary, /Logs: JSON lines at info on standard error\. Stop with Ctrl-C\.$/);
  });

  test('not at a terminal: JSON lines only on standard output, the summary as one `Signet is ready` line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-start-json-'));
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const served = await serve({ SIGNET_DATA_DIR: dataDir, SIGNET_PORT: String(port), SIGNET_LOG_LEVEL: 'info', SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_OTP_SECRET: '' }, baseUrl);
    try {
      await until('the "Signet is ready" line', () => served.stdout().includes('Signet is ready'), { timeoutMs: 10_000, everyMs: 50 });
      assert.equal(await served.stop(), 0);
      const lines = served.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line));
      const ready = lines.filter((line) => line.msg === 'Signet is ready');
      assert.equal(ready.length, 1);
      const { level, time, pid, hostname, msg, connections, ...facts } = ready[0];
      assert.equal(level, 30);
      assert.match(connections, /^at most \d+ \(open-file limit \d+, 576 kept for the store, delivery and logs\); 64 per client address$/);
      assert.deepEqual(facts, {
        version: VERSION,
        url: baseUrl,
        docs: `${baseUrl}/docs`,
        console: `http://localhost:${port}/console`,
        storage: `embedded PGlite in ${path.join(dataDir, 'pglite')}`,
        dataDir,
        devCredentials: path.join(dataDir, 'dev-credentials.json'),
        devCredentialsWritten: true,
        secretFile: { path: path.join(dataDir, 'otp-secret'), generated: true },
        mailbox: path.join(dataDir, 'mail'),
        smsLog: path.join(dataDir, 'sms.log'),
        examples: present.map((file) => `SIGNET_DATA_DIR=${dataDir} npx tsx examples/${file}`),
      });
      assert.ok(lines.some((line) => line.msg === 'Signet stopped'));
    } finally {
      if (served.child.exitCode === null) served.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  const scriptMissing =
    fs.existsSync('/usr/bin/script') || process.env.CI ? false : "util-linux's script is not installed (/usr/bin/script), so no pseudo-terminal can be made";

  test('at a terminal: a summary for a person, no log line at info, an example command that works as printed, Ctrl-C', { skip: scriptMissing }, async () => {
    ensureCompiled();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-start-tty-'));
    const port = await freePort();
    const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    // `exec`: script runs the command through $SHELL; a shell left waiting (dash) would take the
    // Ctrl-C itself and end with 130 while Signet stops cleanly.
    const child = spawn('script', ['-qefc', `exec ${quote(process.execPath)} ${quote(SIGNET_BIN)} serve`, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, SIGNET_DATA_DIR: dataDir, SIGNET_PORT: String(port), SIGNET_LOG_LEVEL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d).replace(/\r/g, '')));
    child.stderr.on('data', (d) => (output += String(d).replace(/\r/g, '')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const printed = (what: string, timeoutMs = 60_000) =>
      until(
        () => `"${what}" in:\n${output}`,
        () => {
          assert.ok(child.exitCode === null, `exited before "${what}":\n${output}`);
          return output.includes(what);
        },
        { timeoutMs, everyMs: 50 },
      );
    try {
      await printed('Stop with Ctrl-C.');
      const baseUrl = `http://127.0.0.1:${port}`;
      assert.ok(output.startsWith(`Signet ${VERSION} is ready at ${baseUrl}\n`), output);
      for (const row of [
        `  API reference     ${baseUrl}/docs`,
        `  Console           http://localhost:${port}/console`,
        `  Storage           embedded PGlite in ${path.join(dataDir, 'pglite')}`,
        `  Admin token       ${path.join(dataDir, 'admin-token')} (the signet CLI reads it)`,
        `  Dev mailbox       ${path.join(dataDir, 'mail')}/`,
        `  SMS log           ${path.join(dataDir, 'sms.log')}`,
        `Development credentials written to ${path.join(dataDir, 'dev-credentials.json')}`,
        'Logs: warnings and errors, as JSON lines on standard error (SIGNET_LOG_LEVEL=info for every event).',
      ]) {
        assert.ok(output.includes(row), `missing "${row}" in:\n${output}`);
      }
      assert.doesNotMatch(output, /"level":30/, 'no info log line at a terminal by default');

      // The printed command, run as printed by a shell that knows nothing of the server's settings.
      const tryThem = output.slice(output.indexOf('Try the examples, in another terminal:'));
      const command = tryThem.split('\n').find((line) => line.endsWith('examples/submit.ts'))!.trim();
      assert.equal(command, `SIGNET_DATA_DIR=${dataDir} npx tsx examples/submit.ts`);
      const { SIGNET_DATA_DIR: _d, SIGNET_DEV_CREDENTIALS: _c, ...clean } = process.env;
      const example = await new Promise<{ code: number | null; text: string }>((resolve) => {
        const shell = spawn('sh', ['-c', command], { cwd: ROOT, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        shell.stdout.on('data', (d) => (text += d));
        shell.stderr.on('data', (d) => (text += d));
        shell.on('close', (code) => resolve({ code, text }));
      });
      assert.equal(example.code, 0, example.text);
      assert.match(example.text, /init_otp_auth: ACTIVITY_STATUS_COMPLETED otpId/);

      child.stdin.write('\x03'); // Ctrl-C at the terminal
      await printed('Signet stopped.', 15_000);
      assert.match(output, /Stopping \(SIGINT\): finishing the requests in flight/);
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
