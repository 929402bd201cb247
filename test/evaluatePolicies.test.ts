// evaluate_policies, the policies' dry run, through the real HTTP stack with requests stamped by
// @turnkey/api-key-stamper (@turnkey/http's client has no such method): an ALLOW by a policy, an
// explicit DENY winning over an ALLOW and named, an implicit deny, consensus needed with the users
// who could still approve (an approver given makes it ALLOW), an expression that fails with its
// error and position, the handler's prepare refusing, bad type, parameters and users refused
// naming the field; and nothing stored by any of it: no activity, vote, outbox message or rate window.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { serializeTransaction } from 'viem';
import { evaluatePolicies } from '../src/queries/evaluatePolicies.ts';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { postStamped, type Answer } from './support/http.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;
type Member = Keys & { userId: string };

const ERRING = "activity.type == 'ACTIVITY_TYPE_CREATE_POLICY_V3' && activity.params.nothing == 1";
const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' };

/** An unsigned EIP-1559 transfer of `value` wei on chain 1, hex as sign_transaction takes it. */
const transfer = (value: bigint) =>
  serializeTransaction({ type: 'eip1559', chainId: 1, nonce: 0, to: '0x0000000000000000000000000000000000000001', value, gas: 21000n, maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }).slice(2);

for (const tdb of testDatabases) {
  describe(`evaluate_policies (${tdb.name})`, () => {
    let server: TestServer;
    let root: Credentials;
    let organizationId: string;
    let alice: Member, bob: Member, carol: Member, dave: Member;
    const policyIds: Record<string, string> = {};
    let child: { subOrganizationId: string; rootUserIds: string[] };
    let signWith: string;

    /** Submits an activity as the organization's root user (who decides alone): its result. */
    async function asRoot(path: string, type: string, parameters: object): Promise<Record<string, any>> {
      const answer = await postStamped(server.baseUrl, `/public/v1/submit/${path}`, JSON.stringify(envelope(type, organizationId, parameters)), root);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.activity.status, 'ACTIVITY_STATUS_COMPLETED', answer.text);
      return answer.json.activity.result;
    }

    async function member(name: string): Promise<Member> {
      const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName: name });
      const key = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });
      return { userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
    }

    async function policy(policyName: string, effect: 'EFFECT_ALLOW' | 'EFFECT_DENY', condition: string, consensus?: string) {
      const result = await asRoot('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName, effect, condition, ...(consensus ? { consensus } : {}), notes: '' });
      policyIds[policyName] = result.createPolicyResult.policyId;
    }

    /** evaluate_policies as `caller`; a 200's answer is checked against the query's documented answer. */
    async function dryRun(caller: Keys, body: Record<string, unknown>): Promise<Answer> {
      const answer = await postStamped(server.baseUrl, '/public/v1/query/evaluate_policies', JSON.stringify({ organizationId, ...body }), caller);
      if (answer.status === 200) {
        const parsed = evaluatePolicies.answer!.safeParse(answer.json);
        assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      }
      return answer;
    }

    const createTag = { type: 'ACTIVITY_TYPE_CREATE_USER_TAG', parameters: { userTagName: 'auditors', userIds: [] } };
    const createInterface = {
      type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
      parameters: {
        smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        smartContractInterface: '[{"type":"event","name":"Ping","inputs":[]}]',
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: 'ping',
      },
    };

    /** Rows of what an activity, a vote, a message or a rate window would write. */
    async function stored(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const table of ['activities', 'votes', 'outbox', 'otp_rate_windows', 'approval_requests', 'policies', 'user_tags', 'smart_contract_interfaces']) {
        counts[table] = (await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
      }
      return counts;
    }
    let before_: Record<string, number>;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      root = await server.createOrganization('Dry run');
      organizationId = root.organizationId;
      [alice, bob, carol, dave] = [await member('alice'), await member('bob'), await member('carol'), await member('dave')];
      const tagged = await asRoot('create_user_tag', 'ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'reviewers', userIds: [alice.userId, bob.userId, carol.userId] });
      const tagId = tagged.createUserTagResult.userTagId;
      await policy('Tags by anyone', 'EFFECT_ALLOW', "activity.type in ['ACTIVITY_TYPE_CREATE_USER_TAG', 'ACTIVITY_TYPE_DELETE_USER_TAGS']");
      await policy('Tags are never deleted', 'EFFECT_DENY', "activity.type == 'ACTIVITY_TYPE_DELETE_USER_TAGS'");
      await policy('Interfaces by two reviewers', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE'", `approvers.filter(u, u.tags.contains('${tagId}')).count() >= 2`);
      await policy('Erring', 'EFFECT_ALLOW', ERRING);
      const made = await asRoot('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
        subOrganizationName: 'Dry run child',
        rootUsers: [{ userName: 'child root', userEmail: 'child-root@example.com', apiKeys: [], authenticators: [], oauthProviders: [] }],
        rootQuorumThreshold: 1,
      });
      child = made.createSubOrganizationResultV8;
      const wallet = await asRoot('create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Treasury', accounts: [ETHEREUM] });
      [signWith] = wallet.createWalletResult.addresses;
      await policy('Small transfers', 'EFFECT_ALLOW', "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.value <= 1000");
      before_ = await stored();
    });
    after(() => server.close());

    test('an ALLOW by a policy: the outcome, the policy named, no one else needed', async () => {
      const answer = await dryRun(alice, { activity: createTag });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, {
        outcome: 'OUTCOME_ALLOW',
        policyEvaluations: [{ policyId: policyIds['Tags by anyone'], policyName: 'Tags by anyone', outcome: 'OUTCOME_ALLOW' }],
        couldBeApprovedBy: [],
      });
    });

    test('an explicit DENY wins over an ALLOW, both named', async () => {
      const answer = await dryRun(alice, { activity: { type: 'ACTIVITY_TYPE_DELETE_USER_TAGS', parameters: { userTagIds: [randomUUID()] } } });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, {
        outcome: 'OUTCOME_DENY_EXPLICIT',
        policyEvaluations: [
          { policyId: policyIds['Tags by anyone'], policyName: 'Tags by anyone', outcome: 'OUTCOME_ALLOW' },
          { policyId: policyIds['Tags are never deleted'], policyName: 'Tags are never deleted', outcome: 'OUTCOME_DENY_EXPLICIT' },
        ],
        couldBeApprovedBy: [],
      });
    });

    test('an implicit deny: no policy is about the activity', async () => {
      const answer = await dryRun(bob, { activity: { type: 'ACTIVITY_TYPE_DELETE_POLICY', parameters: { policyId: policyIds['Erring'] } } });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, { outcome: 'OUTCOME_DENY_IMPLICIT', policyEvaluations: [], couldBeApprovedBy: [] });
    });

    test('the root quorum decides alone for its member: no policy consulted', async () => {
      const answer = await dryRun(root, { activity: { type: 'ACTIVITY_TYPE_DELETE_USER_TAGS', parameters: { userTagIds: [randomUUID()] } } });
      assert.deepEqual(answer.json, { outcome: 'OUTCOME_ALLOW', policyEvaluations: [], couldBeApprovedBy: [] });
    });

    test('consensus needed: who could still approve; an approver given allows it; one who does not count changes nothing', async () => {
      const interfaces = { policyId: policyIds['Interfaces by two reviewers'], policyName: 'Interfaces by two reviewers' };
      const waiting = await dryRun(alice, { activity: createInterface });
      assert.equal(waiting.status, 200, waiting.text);
      assert.equal(waiting.json.outcome, 'OUTCOME_REQUIRES_CONSENSUS');
      assert.deepEqual(waiting.json.policyEvaluations, [{ ...interfaces, outcome: 'OUTCOME_REQUIRES_CONSENSUS' }]);
      // The root user (of the quorum) and the other reviewers; never alice, the submitter, nor dave, untagged.
      assert.deepEqual(new Set(waiting.json.couldBeApprovedBy), new Set([root.userId, bob.userId, carol.userId]));

      const allowed = await dryRun(alice, { activity: createInterface, approverIds: [bob.userId] });
      assert.deepEqual(allowed.json, { outcome: 'OUTCOME_ALLOW', policyEvaluations: [{ ...interfaces, outcome: 'OUTCOME_ALLOW' }], couldBeApprovedBy: [] });

      const notCounted = await dryRun(alice, { activity: createInterface, approverIds: [dave.userId] });
      assert.equal(notCounted.json.outcome, 'OUTCOME_REQUIRES_CONSENSUS');
      assert.deepEqual(new Set(notCounted.json.couldBeApprovedBy), new Set([root.userId, bob.userId, carol.userId]));

      // Another submitter, named by the root user: carol submits, dave approved (not counted), alice or bob would complete it.
      const forCarol = await dryRun(root, { activity: createInterface, userId: carol.userId, approverIds: [dave.userId] });
      assert.equal(forCarol.json.outcome, 'OUTCOME_REQUIRES_CONSENSUS');
      assert.deepEqual(new Set(forCarol.json.couldBeApprovedBy), new Set([root.userId, alice.userId, bob.userId]));
      const byTwo = await dryRun(root, { activity: createInterface, userId: carol.userId, approverIds: [dave.userId, bob.userId] });
      assert.equal(byTwo.json.outcome, 'OUTCOME_ALLOW');
      // A submitter the consensus does not count cannot submit it to wait: denied, as a submission would be.
      const byDave = await dryRun(root, { activity: createInterface, userId: dave.userId });
      assert.deepEqual(byDave.json, { outcome: 'OUTCOME_DENY_IMPLICIT', policyEvaluations: [{ ...interfaces, outcome: 'OUTCOME_DENY_IMPLICIT' }], couldBeApprovedBy: [] });
    });

    test('an expression that fails: OUTCOME_ERROR with its error and its 0-based position', async () => {
      const answer = await dryRun(carol, {
        activity: { type: 'ACTIVITY_TYPE_CREATE_POLICY_V3', parameters: { policyName: 'x', effect: 'EFFECT_ALLOW', notes: '' } },
      });
      assert.equal(answer.status, 200, answer.text);
      const at = ERRING.indexOf('nothing');
      assert.deepEqual(answer.json, {
        outcome: 'OUTCOME_DENY_IMPLICIT',
        policyEvaluations: [{ policyId: policyIds['Erring'], policyName: 'Erring', outcome: 'OUTCOME_ERROR', error: `condition at ${at + 1}: no field 'nothing'`, position: at }],
        couldBeApprovedBy: [],
      });
    });

    test("the handler's prepare step runs: a signature with an account that does not exist is its 404", async () => {
      const answer = await dryRun(alice, {
        activity: {
          type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
          parameters: { signWith: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', payload: '0x68656c6c6f', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' },
        },
      });
      assert.equal(answer.status, 404, answer.text);
      assert.match(answer.json.message, /signWith/);
    });

    test("a signature's transaction is read as a submission's is (eth.tx): a small transfer allowed, a large one not", async () => {
      const sign = (value: bigint) => ({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', parameters: { signWith, unsignedTransaction: transfer(value), type: 'TRANSACTION_TYPE_ETHEREUM' } });
      const small = await dryRun(alice, { activity: sign(1n) });
      assert.equal(small.status, 200, small.text);
      const { summary, ...decision } = small.json;
      assert.deepEqual(decision, {
        outcome: 'OUTCOME_ALLOW',
        policyEvaluations: [{ policyId: policyIds['Small transfers'], policyName: 'Small transfers', outcome: 'OUTCOME_ALLOW' }],
        couldBeApprovedBy: [],
      });
      // What it signs, as its approvers would read it.
      assert.equal(summary.kind, 'ethereum_transaction');
      assert.match(summary.text, /^On Ethereum \(chain 1\) send to 0x[0-9a-fA-F]{40} with 0\.000000000000000001 ETH from 0x[0-9a-f]{40}$/);
      const large = await dryRun(alice, { activity: sign(10n ** 18n) });
      assert.deepEqual({ ...large.json, summary: undefined }, { outcome: 'OUTCOME_DENY_IMPLICIT', policyEvaluations: [], couldBeApprovedBy: [], summary: undefined });
      assert.match(large.json.summary.text, / with 1 ETH /);
    });

    test('a bad type, bad parameters, a user or approver not of the organization: refused, naming the field', async () => {
      const violation = (answer: Answer) => JSON.stringify(answer.json.details ?? []);
      const unknownType = await dryRun(alice, { activity: { type: 'ACTIVITY_TYPE_MAKE_COFFEE', parameters: {} } });
      assert.equal(unknownType.status, 400, unknownType.text);
      assert.match(unknownType.json.message, /^activity\.type: unknown activity type "ACTIVITY_TYPE_MAKE_COFFEE"/);
      assert.ok(violation(unknownType).includes('"field":"activity.type"'), unknownType.text);

      const badParameters = await dryRun(alice, { activity: { type: 'ACTIVITY_TYPE_CREATE_USER_TAG', parameters: { userIds: [], colour: 'red' } } });
      assert.equal(badParameters.status, 400, badParameters.text);
      assert.ok(violation(badParameters).includes('"field":"activity.parameters.userTagName"'), badParameters.text);
      assert.ok(violation(badParameters).includes('"field":"activity.parameters.colour"'), badParameters.text);

      const stranger = randomUUID();
      const badUser = await dryRun(alice, { activity: createTag, userId: stranger });
      assert.equal(badUser.status, 404, badUser.text);
      assert.equal(badUser.json.message, `userId: no user ${stranger} in organization ${organizationId} (or it was removed)`);
      const other = await server.createOrganization('Elsewhere');
      const badApprover = await dryRun(alice, { activity: createTag, approverIds: [bob.userId, other.userId] });
      assert.equal(badApprover.status, 404, badApprover.text);
      assert.match(badApprover.json.message, /^approverIds\[1\]: no user /);

      const twice = await dryRun(alice, { activity: createTag, approverIds: [bob.userId, bob.userId] });
      assert.equal(twice.status, 400, twice.text);
      assert.ok(violation(twice).includes('"field":"approverIds[1]"'), twice.text);
      const submitter = await dryRun(alice, { activity: createTag, approverIds: [alice.userId] });
      assert.equal(submitter.status, 400, submitter.text);
      assert.match(submitter.json.message, /^approverIds\[0\]: .* is the submitter/);

      const tooMany = await dryRun(alice, { activity: createTag, approverIds: Array.from({ length: 101 }, () => randomUUID()) });
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.ok(violation(tooMany).includes('"field":"approverIds"'), tooMany.text);

      // A credential of another organization is refused as for every query.
      const foreign = await dryRun(other, { activity: createTag });
      assert.equal(foreign.status, 403, foreign.text);
    });

    test("a parent's credential asks in a sub-organization, naming the user who would submit", async () => {
      const { subOrganizationId, rootUserIds } = child;
      const unnamed = await dryRun(root, { organizationId: subOrganizationId, activity: createTag });
      assert.equal(unnamed.status, 400, unnamed.text);
      assert.match(unnamed.json.message, /^userId: required when the credential is of another organization/);
      const named = await dryRun(root, { organizationId: subOrganizationId, activity: createTag, userId: rootUserIds[0] });
      assert.deepEqual(named.json, { outcome: 'OUTCOME_ALLOW', policyEvaluations: [], couldBeApprovedBy: [] });
      // The parent's own users are not the sub-organization's.
      const parentUser = await dryRun(root, { organizationId: subOrganizationId, activity: createTag, userId: alice.userId });
      assert.equal(parentUser.status, 404, parentUser.text);
    });

    test('nothing was stored: no activity, vote, outbox message, approval request or rate window', async () => {
      assert.deepEqual(await stored(), before_);
    });
  });
}
