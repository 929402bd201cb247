// The `signet` commands that act as a user of an organization (bin/signet.js, compiled): they stamp
// the public API's requests with an API key from --credentials FILE, SIGNET_CREDENTIALS or the
// development credentials in SIGNET_DATA_DIR. quorum show and set, and activity list, against a
// running server; a wrong command line of every one of them exits 2 before any request; an error of
// the server is printed with the URL called.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ABI = JSON.stringify([{ type: 'event', name: 'Ping', inputs: [] }]);
const FINGERPRINT = `sha256:${'ab'.repeat(32)}`;

describe('user commands: a wrong command line exits 2 before any request', () => {
  test('each names the problem and shows the usage of its command', async () => {
    // No server and no credentials: each must fail on its arguments alone.
    const env = { SIGNET_URL: 'http://127.0.0.1:9', SIGNET_CREDENTIALS: '', SIGNET_DATA_DIR: os.tmpdir() };
    const cases: Array<[string[], RegExp, string]> = [
      [['policy', 'create', '--effect', 'ALLOW'], /^signet: --name is required\n/, 'Usage: signet policy create --name N --effect ALLOW|DENY'],
      [['policy', 'create', '--name', 'p', '--effect', 'MAYBE'], /^signet: --effect takes ALLOW or DENY, got "MAYBE"\n/, 'Usage: signet policy create'],
      [['policy', 'create', '--name', 'p'], /^signet: --effect is required\n/, 'Usage: signet policy create'],
      [['policy', 'delete'], /"policy delete" takes ID, got none/, 'Usage: signet policy delete ID'],
      [['policy', 'list', 'all'], /"policy list" takes no arguments, got "all"/, 'Usage: signet policy list'],
      [['quorum', 'set', '--threshold', '1'], /^signet: --user is required \(once per value\)\n/, 'Usage: signet quorum set --threshold N --user ID [--user ID]...'],
      [['quorum', 'set', '--threshold', 'two', '--user', 'u'], /--threshold takes a whole number \(N\), got "two"/, 'Usage: signet quorum set'],
      [['quorum', 'set', '--user', 'u'], /^signet: --threshold is required\n/, 'Usage: signet quorum set'],
      [['activity', 'list', '--status', 'DONE'], /--status takes one of CREATED, PENDING, COMPLETED, FAILED, CONSENSUS_NEEDED, REJECTED, AUTHENTICATORS_NEEDED; got "DONE"/, 'Usage: signet activity list'],
      [['activity', 'list', '--limit', '0'], /--limit takes 1 to 1000, got 0/, 'Usage: signet activity list'],
      [['activity', 'approve'], /"activity approve" takes FINGERPRINT, got none/, 'Usage: signet activity approve FINGERPRINT'],
      [['activity', 'approve', 'abc'], /FINGERPRINT must be sha256: and 64 lowercase hex digits/, 'Usage: signet activity approve FINGERPRINT'],
      [['activity', 'reject', `${FINGERPRINT}0`], /FINGERPRINT must be sha256:/, 'Usage: signet activity reject FINGERPRINT'],
      [['activity', 'reject', FINGERPRINT, FINGERPRINT], /"activity reject" takes FINGERPRINT, got/, 'Usage: signet activity reject FINGERPRINT'],
      [['activity', 'approve', FINGERPRINT, '--credentials', '/nonexistent/key.json'], /no credentials file \/nonexistent\/key\.json \(--credentials\)/, 'Usage: signet activity approve'],
      [['quorum', 'drop'], /unknown subcommand "quorum drop"; expected: signet quorum show\|set/, 'Usage: signet quorum show|set'],
    ];
    for (const [args, message, usage] of cases) {
      const result = await signet(args, env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.ok(result.stderr.includes(`\n\n${usage}`), `${args.join(' ')}:\n${result.stderr}`);
      assert.equal(result.stdout, '');
    }
  });
});

for (const tdb of testDatabases) {
  describe(`user commands against a running server (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let dir: string;
    let env: Record<string, string>;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Commanded');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-cli-user-'));
      const file = path.join(dir, 'root.json');
      fs.writeFileSync(file, JSON.stringify(org));
      env = { SIGNET_URL: server.baseUrl, SIGNET_CREDENTIALS: file, SIGNET_DATA_DIR: dir };
    });
    after(async () => {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('quorum show and set: the quorum replaced as the root user, shown with names; a refusal printed with the URL', async () => {
      const shown = await signet(['quorum', 'show'], env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(shown.stdout, `threshold: 1 of 1\nUSER ID${' '.repeat(31)}NAME\n${org.userId}  root\n`);

      const alice = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'alice' });
      const set = await signet(['quorum', 'set', '--threshold', '2', '--user', alice.userId, '--user', org.userId], env);
      assert.equal(set.code, 0, set.stderr);
      const lines = set.stdout.trim().split('\n');
      assert.deepEqual(lines.slice(0, 2), ['status: COMPLETED', 'type: UPDATE_ROOT_QUORUM']);
      assert.match(lines[2]!, /^activityId: [0-9a-f-]{36}$/);
      assert.match(lines[3]!, /^fingerprint: sha256:[0-9a-f]{64}$/);

      const again = await signet(['quorum', 'show'], env);
      assert.equal(again.stdout, `threshold: 2 of 2\nUSER ID${' '.repeat(31)}NAME\n${org.userId}  root\n${alice.userId}  alice\n`);
      const json = await signet(['quorum', 'show', '--json'], env);
      assert.deepEqual(JSON.parse(json.stdout), { threshold: 2, userIds: [org.userId, alice.userId] });
      const { configs } = (await server.client(org).getOrganizationConfigs({ organizationId: org.organizationId })) as any;
      assert.deepEqual(configs.quorum, { threshold: 2, userIds: [org.userId, alice.userId] }, 'what the API shows');

      const refused = await signet(['quorum', 'set', '--threshold', '3', '--user', org.userId], env);
      assert.equal(refused.code, 1);
      assert.equal(
        refused.stderr,
        `signet: 400: invalid parameters: --threshold: must be at most the number of --user values (POST ${server.baseUrl}/public/v1/submit/update_root_quorum)\n`,
      );
      assert.equal(refused.stdout, '');
    });

    test('activity list: newest first with status, type, submitter and fingerprint; filtered, limited, as JSON', async () => {
      const team = await server.createOrganization('Listed');
      const file = path.join(dir, 'listed.json');
      fs.writeFileSync(file, JSON.stringify(team));
      const listedEnv = { ...env, SIGNET_CREDENTIALS: '', SIGNET_DATA_DIR: dir };
      // No credentials in SIGNET_DATA_DIR yet: the message says what to give.
      const none = await signet(['activity', 'list'], listedEnv);
      assert.equal(none.code, 1);
      assert.match(none.stderr, new RegExp(`^signet: no credentials file ${path.join(dir, 'dev-credentials.json')} \\(the development credentials in SIGNET_DATA_DIR\\); give --credentials FILE or set SIGNET_CREDENTIALS`));

      const empty = await signet(['activity', 'list', '--credentials', file], listedEnv);
      assert.equal(empty.code, 0, empty.stderr);
      assert.equal(empty.stdout, 'no activities\n');

      const client = server.client(team);
      const made: any[] = [];
      for (const label of ['one', 'two', 'three']) {
        made.push(
          ((await client.createSmartContractInterface({
            type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
            timestampMs: String(Date.now()),
            organizationId: team.organizationId,
            parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: ABI, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label },
          })) as any).activity,
        );
      }
      // The development credentials file of SIGNET_DATA_DIR is found without a flag.
      fs.writeFileSync(path.join(dir, 'dev-credentials.json'), JSON.stringify({ baseUrl: server.baseUrl, ...team }));
      const listed = await signet(['activity', 'list'], listedEnv);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = listed.stdout.trim().split('\n');
      assert.match(rows[0]!, /^CREATED +STATUS +TYPE +SUBMITTER +FINGERPRINT$/);
      assert.deepEqual(rows.slice(1).map((row) => row.split(/ +/)), made.reverse().map((a) => [a.createdAt, 'COMPLETED', 'CREATE_SMART_CONTRACT_INTERFACE', 'root', a.fingerprint]));

      const limited = await signet(['activity', 'list', '--limit', '2', '--status', 'completed', '--json'], listedEnv);
      assert.deepEqual(JSON.parse(limited.stdout).map((a: any) => a.id), made.slice(0, 2).map((a) => a.id));
      const failed = await signet(['activity', 'list', '--status', 'ACTIVITY_STATUS_FAILED'], listedEnv);
      assert.equal(failed.stdout, 'no FAILED activities\n');
    });

    test('policy create, list and delete; activity approve and reject: waiting activities decided from the command line', async () => {
      const team = await server.createOrganization('Voted');
      const rootFile = path.join(dir, 'voted-root.json');
      fs.writeFileSync(rootFile, JSON.stringify(team));
      const alice = await server.admin('POST', `/organizations/${team.organizationId}/users`, { userName: 'alice' });
      const aliceKey = await server.admin('POST', `/organizations/${team.organizationId}/api-keys`, { userId: alice.userId });
      const aliceFile = path.join(dir, 'voted-alice.json');
      fs.writeFileSync(aliceFile, JSON.stringify({ organizationId: team.organizationId, ...aliceKey }));
      const asRoot = (args: string[]) => signet([...args, '--credentials', rootFile], env);
      const asAlice = (args: string[]) => signet([...args, '--credentials', aliceFile], env);
      const field = (stdout: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(stdout)?.[1];

      assert.equal((await asRoot(['policy', 'list'])).stdout, 'no policies\n');
      const created = await asRoot([
        'policy', 'create', '--name', 'alice registers interfaces', '--effect', 'ALLOW',
        '--condition', "activity.resource == 'SMART_CONTRACT_INTERFACE'",
        '--consensus', `approvers.any(user, user.id == '${alice.userId}')`,
      ]);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(field(created.stdout, 'status'), 'COMPLETED');
      const policyId = field(created.stdout, 'policyId')!;
      assert.match(policyId, /^[0-9a-f-]{36}$/);
      const listed = await asRoot(['policy', 'list']);
      assert.match(listed.stdout, new RegExp(`${policyId} +alice registers interfaces +ALLOW`));
      const bad = await asRoot(['policy', 'create', '--name', 'broken', '--effect', 'DENY', '--condition', "activity.type == 'X' &&"]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^signet: 400: .*--condition: .*at \d+: /);
      assert.doesNotMatch(bad.stderr, /parameters\./);
      const unnamed = await asRoot(['policy', 'create', '--name', ' ', '--effect', 'ALLOW']);
      assert.equal(unnamed.code, 1);
      assert.match(unnamed.stderr, /^signet: 400: .*--name: /);
      const notAnId = await asRoot(['policy', 'delete', 'p1']);
      assert.equal(notAnId.code, 1);
      assert.match(notAnId.stderr, /^signet: 400: invalid parameters: ID: must be a policy id/, 'the argument, not parameters.policyId');
      const notAUser = await asRoot(['quorum', 'set', '--threshold', '1', '--user', 'bob']);
      assert.equal(notAUser.code, 1);
      assert.match(notAUser.stderr, /^signet: 400: invalid parameters: --user bob: must be a user id/, 'the value of --user, not parameters.userIds[0]');

      // Root and alice as a quorum of two: the root's own writes now wait for alice.
      assert.equal((await asRoot(['quorum', 'set', '--threshold', '2', '--user', team.userId, '--user', alice.userId])).code, 0);
      const removal = await asRoot(['policy', 'delete', policyId]);
      assert.equal(removal.code, 0, removal.stderr);
      assert.equal(field(removal.stdout, 'status'), 'CONSENSUS_NEEDED');
      const fingerprint = field(removal.stdout, 'fingerprint')!;
      assert.match(removal.stdout, new RegExp(`signet activity approve ${fingerprint}`));
      const waiting = await asAlice(['activity', 'list', '--status', 'CONSENSUS_NEEDED']);
      assert.match(waiting.stdout, new RegExp(`CONSENSUS_NEEDED +DELETE_POLICY +root +${fingerprint}`));

      // Alice rejects it: final. A second deletion, approved by alice, executes.
      const rejected = await asAlice(['activity', 'reject', fingerprint]);
      assert.equal(rejected.code, 0, rejected.stderr);
      assert.equal(field(rejected.stdout, 'status'), 'REJECTED');
      assert.match((await asRoot(['policy', 'list'])).stdout, new RegExp(policyId));
      const again = await asRoot(['policy', 'delete', policyId]);
      const approved = await asAlice(['activity', 'approve', field(again.stdout, 'fingerprint')!]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(field(approved.stdout, 'status'), 'COMPLETED');
      assert.equal((await asRoot(['policy', 'list'])).stdout, 'no policies\n');
      // A second vote by the same user is refused, with the URL called.
      const late = await asAlice(['activity', 'approve', fingerprint]);
      assert.equal(late.code, 1);
      assert.match(late.stderr, new RegExp(`^signet: 400: .*has already voted.* \\(POST ${server.baseUrl}/public/v1/submit/approve_activity\\)\\n$`));
    });

    test("a key that does not match, or is revoked: the message names the file; the server's error the URL", async () => {
      const mismatched = path.join(dir, 'mismatched.json');
      fs.writeFileSync(mismatched, JSON.stringify({ ...org, apiPrivateKey: generateApiKeyPair().apiPrivateKey }));
      const wrong = await signet(['quorum', 'show', '--credentials', mismatched], env);
      assert.equal(wrong.code, 1);
      assert.equal(wrong.stderr, `signet: the credentials file ${mismatched}: apiPrivateKey is not the private key of apiPublicKey\n`);

      const notJson = path.join(dir, 'not-json.json');
      fs.writeFileSync(notJson, 'organizationId=x');
      assert.match((await signet(['quorum', 'show', '--credentials', notJson], env)).stderr, /the credentials file .*not-json\.json is not JSON/);

      const other = await server.createOrganization('Revoked');
      const file = path.join(dir, 'revoked.json');
      fs.writeFileSync(file, JSON.stringify(other));
      await server.admin('DELETE', `/organizations/${other.organizationId}/api-keys/${other.apiKeyId}`);
      const revoked = await signet(['activity', 'list', '--credentials', file], env);
      assert.equal(revoked.code, 1);
      assert.match(revoked.stderr, new RegExp(`^signet: 401: .*revoked.* \\(the key came from ${file}\\) \\(POST ${server.baseUrl}/public/v1/query/list_activities\\)\\n$`));
    });
  });
}
