// `signet policy test FILE` (bin/signet.js, compiled) against a running server, as a user of the
// organization stamping with its API key: a file whose cases all get their expected outcome exits 0,
// one with a case that does not exits 1 naming it with what each policy said, and a file that is no
// policy test (not JSON, a case without a name, an unknown outcome) exits 2 naming the problem.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { postStamped } from './support/http.ts';
import { signet } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const createTag = { type: 'ACTIVITY_TYPE_CREATE_USER_TAG', parameters: { userTagName: 'ops', userIds: [] } };
const deleteTags = { type: 'ACTIVITY_TYPE_DELETE_USER_TAGS', parameters: { userTagIds: [randomUUID()] } };

for (const tdb of testDatabases) {
  describe(`signet policy test (${tdb.name})`, () => {
    let server: TestServer;
    let root: Credentials;
    let dir: string;
    let env: Record<string, string>;
    const policyIds: Record<string, string> = {};

    /** A test file in the temporary folder: its path. */
    function file(name: string, content: unknown): string {
      const at = path.join(dir, name);
      fs.writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
      return at;
    }

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      root = await server.createOrganization('Policy tests');
      const { userId } = await server.admin('POST', `/organizations/${root.organizationId}/users`, { userName: 'alice' });
      const key = await server.admin('POST', `/organizations/${root.organizationId}/api-keys`, { userId });
      for (const [policyName, effect, condition] of [
        ['Tags by anyone', 'EFFECT_ALLOW', "activity.type in ['ACTIVITY_TYPE_CREATE_USER_TAG', 'ACTIVITY_TYPE_DELETE_USER_TAGS']"],
        ['Tags are never deleted', 'EFFECT_DENY', "activity.type == 'ACTIVITY_TYPE_DELETE_USER_TAGS'"],
      ] as const) {
        const body = JSON.stringify(envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', root.organizationId, { policyName, effect, condition, notes: '' }));
        const answer = await postStamped(server.baseUrl, '/public/v1/submit/create_policy', body, root);
        assert.equal(answer.status, 200, answer.text);
        policyIds[policyName] = answer.json.activity.result.createPolicyResult.policyId;
      }
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-policy-test-'));
      const credentials = file('alice.json', { organizationId: root.organizationId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
      env = { SIGNET_URL: server.baseUrl, SIGNET_CREDENTIALS: credentials, SIGNET_DATA_DIR: dir };
    });
    after(async () => {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('every case as expected: one line each, exit 0, nothing stored', async () => {
      const activities = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities'))[0]!.n;
      const stored = await activities();
      const cases = file('passing.json', {
        cases: [
          { name: 'alice makes a tag', activity: createTag, expectedOutcome: 'ALLOW' },
          { name: 'no one deletes tags', activity: deleteTags, expectedOutcome: 'OUTCOME_DENY_EXPLICIT' },
          { name: 'alice writes no policy', activity: { type: 'ACTIVITY_TYPE_DELETE_POLICY', parameters: { policyId: randomUUID() } }, expectedOutcome: 'DENY_IMPLICIT' },
          { name: 'the root user may', activity: deleteTags, userId: root.userId, expectedOutcome: 'ALLOW' },
        ],
      });
      const result = await signet(['policy', 'test', cases], env);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        [
          'pass  alice makes a tag       expected ALLOW, got ALLOW',
          'pass  no one deletes tags     expected DENY_EXPLICIT, got DENY_EXPLICIT',
          'pass  alice writes no policy  expected DENY_IMPLICIT, got DENY_IMPLICIT',
          'pass  the root user may       expected ALLOW, got ALLOW',
          '4 of 4 cases got their expected outcome',
          '',
        ].join('\n'),
      );
      assert.equal(result.stderr, '');
      assert.equal(await activities(), stored);
    });

    test('a case that differs: every line printed, exit 1 naming the first with what each policy said', async () => {
      const cases = file('failing.json', {
        cases: [
          { name: 'alice makes a tag', activity: createTag, expectedOutcome: 'ALLOW' },
          { name: 'alice deletes tags', activity: deleteTags, expectedOutcome: 'ALLOW' },
          { name: 'a bad tag', activity: { type: 'ACTIVITY_TYPE_CREATE_USER_TAG', parameters: { userIds: [] } }, expectedOutcome: 'ALLOW' },
        ],
      });
      const result = await signet(['policy', 'test', cases], env);
      assert.equal(result.code, 1, result.stderr);
      const lines = result.stdout.split('\n');
      assert.deepEqual(lines.slice(0, 2), ['pass  alice makes a tag   expected ALLOW, got ALLOW', 'FAIL  alice deletes tags  expected ALLOW, got DENY_EXPLICIT']);
      assert.match(lines[2]!, /^FAIL  a bad tag           expected ALLOW, got refused \(400: invalid parameters: activity\.parameters\.userTagName: required field is missing\)$/);
      assert.equal(
        result.stderr,
        [
          'signet: case "alice deletes tags" expected OUTCOME_ALLOW, got OUTCOME_DENY_EXPLICIT',
          '  policy evaluations:',
          `    Tags by anyone (${policyIds['Tags by anyone']}): OUTCOME_ALLOW`,
          `    Tags are never deleted (${policyIds['Tags are never deleted']}): OUTCOME_DENY_EXPLICIT`,
          '',
        ].join('\n'),
      );
    });

    test('a file that is not a policy test: exit 2 naming the problem, no request made', async () => {
      const cases: Array<[string, unknown, RegExp]> = [
        ['not-json.json', '{"cases": [', /is not JSON/],
        ['no-name.json', { cases: [{ activity: createTag, expectedOutcome: 'ALLOW' }] }, /cases\[0\]\.name: required field is missing/],
        ['bad-outcome.json', { cases: [{ name: 'x', activity: createTag, expectedOutcome: 'MAYBE' }] }, /cases\[0\]\.expectedOutcome: must be one of OUTCOME_ALLOW, /],
        ['no-cases.json', { tests: [] }, /cases: required field is missing; tests: unknown field/],
      ];
      // No server at this address: a request would fail with exit 1, not 2.
      const offline = { ...env, SIGNET_URL: 'http://127.0.0.1:9' };
      for (const [name, content, message] of cases) {
        const result = await signet(['policy', 'test', file(name, content)], offline);
        assert.equal(result.code, 2, `${name}: ${result.stderr}`);
        assert.match(result.stderr, new RegExp(`^signet: FILE ${path.join(dir, name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `), name);
        assert.match(result.stderr, message, name);
        assert.ok(result.stderr.includes('Usage: signet policy test FILE'), result.stderr);
        assert.equal(result.stdout, '');
      }
      const missing = await signet(['policy', 'test', path.join(dir, 'absent.json')], offline);
      assert.equal(missing.code, 2, missing.stderr);
      assert.match(missing.stderr, /^signet: cannot read FILE .*absent\.json: ENOENT/);
    });
  });
}
