// Policies through @turnkey/http's own TurnkeyClient: create_policy, create_policies, update_policy
// (V2 and V1), delete_policy and delete_policies, read back with get_policy, list_policies (its
// getPolicies) and get_organization; expressions refused with the field and the position; names
// unique in an organization; at most a hundred policies, also when requests arrive together; another
// organization's policies are not found.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { MAX_POLICIES } from '../src/activities/handlers/policies/policyPlans.ts';
import { MAX_EXPRESSION_LENGTH } from '../src/policy/index.ts';
import { readAuthority } from '../src/store/authority.ts';

/** The organization's policies as its decisions read them. */
const loadPolicies = async (db: Parameters<typeof readAuthority>[0], organizationId: string) => (await readAuthority(db, organizationId))!.policies;
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { refused } from './support/refusals.ts';

const stamp = (organizationId: string) => ({ timestampMs: String(Date.now()), organizationId });

interface PolicyInput {
  policyName: string;
  effect: 'EFFECT_ALLOW' | 'EFFECT_DENY';
  condition?: string;
  consensus?: string;
  notes: string;
}

const ALLOW_INTERFACES: PolicyInput = {
  policyName: 'Interfaces by two',
  effect: 'EFFECT_ALLOW',
  condition: "activity.resource == 'SMART_CONTRACT_INTERFACE'",
  consensus: 'approvers.count() >= 2',
  notes: 'two people look at every ABI',
};

function createPolicy(client: TurnkeyClient, organizationId: string, parameters: PolicyInput) {
  return client.createPolicy({ type: 'ACTIVITY_TYPE_CREATE_POLICY_V3', ...stamp(organizationId), parameters });
}

function createPolicies(client: TurnkeyClient, organizationId: string, policies: PolicyInput[]) {
  return client.createPolicies({ type: 'ACTIVITY_TYPE_CREATE_POLICIES', ...stamp(organizationId), parameters: { policies } });
}

function updatePolicy(client: TurnkeyClient, organizationId: string, parameters: Record<string, unknown>) {
  return client.updatePolicy({ type: 'ACTIVITY_TYPE_UPDATE_POLICY_V2', ...stamp(organizationId), parameters: parameters as any });
}

function deletePolicy(client: TurnkeyClient, organizationId: string, policyId: string) {
  return client.deletePolicy({ type: 'ACTIVITY_TYPE_DELETE_POLICY', ...stamp(organizationId), parameters: { policyId } });
}

function deletePolicies(client: TurnkeyClient, organizationId: string, policyIds: string[]) {
  return client.deletePolicies({ type: 'ACTIVITY_TYPE_DELETE_POLICIES', ...stamp(organizationId), parameters: { policyIds } });
}

for (const tdb of testDatabases) {
  describe(`policies (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let root: TurnkeyClient;
    const count = async (organizationId: string) =>
      (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM policies WHERE organization_id = $1', [organizationId]))[0]!.n;
    /** Fills the organization with policies written directly, up to `total`. */
    const fill = async (organizationId: string, total: number) =>
      server.db.query(
        `INSERT INTO policies (policy_id, organization_id, name, effect, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'filler ' || n, 'EFFECT_DENY', now(), now() FROM generate_series(1, $2::int) n`,
        [organizationId, total - (await count(organizationId))],
      );

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Governed');
      root = server.client(org);
    });
    after(() => server.close());

    test('a policy: created, read by get_policy, list_policies and get_organization, updated, deleted', async () => {
      const { activity } = (await createPolicy(root, org.organizationId, { ...ALLOW_INTERFACES, policyName: '  Interfaces by two ' })) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_CREATE_POLICY_V3');
      assert.deepEqual(activity.intent.createPolicyIntentV3, ALLOW_INTERFACES, 'the name trimmed, the rest as given');
      const { policyId } = activity.result.createPolicyResult;
      assert.match(policyId, /^[0-9a-f-]{36}$/);

      const [row] = await server.db.query<{ created_at: Date }>('SELECT created_at FROM policies WHERE policy_id = $1', [policyId]);
      const created = row!.created_at.toISOString();
      const expected = { policyId, ...ALLOW_INTERFACES, createdAt: created, updatedAt: created };
      assert.deepEqual(((await root.getPolicy({ organizationId: org.organizationId, policyId })) as any).policy, expected);
      assert.deepEqual(((await root.getPolicies({ organizationId: org.organizationId })) as any).policies, [expected]);
      const { organizationData } = (await root.getOrganization({ organizationId: org.organizationId })) as any;
      assert.deepEqual(organizationData.policies, [expected], 'get_organization lists the policy');
      const stored = await loadPolicies(server.db, org.organizationId);
      assert.deepEqual(stored.map((p) => ({ ...p, createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString() })), [expected]);

      // V2: the fields given change, the others stay; "" removes an expression.
      const updated = (await updatePolicy(root, org.organizationId, { policyId, policyEffect: 'EFFECT_DENY', policyConsensus: '', policyNotes: 'denied now' })) as any;
      assert.deepEqual(updated.activity.intent.updatePolicyIntentV2, { policyId, policyEffect: 'EFFECT_DENY', policyConsensus: '', policyNotes: 'denied now' });
      assert.deepEqual(updated.activity.result.updatePolicyResultV2, { policyId });
      const after1 = ((await root.getPolicy({ organizationId: org.organizationId, policyId })) as any).policy;
      assert.deepEqual(
        { ...after1, updatedAt: undefined },
        { ...expected, effect: 'EFFECT_DENY', consensus: '', notes: 'denied now', updatedAt: undefined },
      );
      assert.ok(after1.updatedAt >= created);

      // V1 (ACTIVITY_TYPE_UPDATE_POLICY): the same, under its own keys.
      const v1 = (await root.updatePolicy({
        type: 'ACTIVITY_TYPE_UPDATE_POLICY',
        ...stamp(org.organizationId),
        parameters: { policyId, policyName: 'Interfaces denied', policyCondition: "activity.action == 'DELETE'" },
      } as any)) as any;
      assert.deepEqual(v1.activity.result.updatePolicyResult, { policyId });
      assert.ok(v1.activity.intent.updatePolicyIntent);
      const after2 = ((await root.getPolicy({ organizationId: org.organizationId, policyId })) as any).policy;
      assert.equal(after2.policyName, 'Interfaces denied');
      assert.equal(after2.condition, "activity.action == 'DELETE'");
      assert.equal(after2.effect, 'EFFECT_DENY', 'kept');

      const deleted = (await deletePolicy(root, org.organizationId, policyId)) as any;
      assert.deepEqual(deleted.activity.intent.deletePolicyIntent, { policyId });
      assert.deepEqual(deleted.activity.result.deletePolicyResult, { policyId });
      await refused(root.getPolicy({ organizationId: org.organizationId, policyId }), 5, new RegExp(`no policy ${policyId}`));
      assert.deepEqual(((await root.getPolicies({ organizationId: org.organizationId })) as any).policies, []);
      await refused(deletePolicy(root, org.organizationId, policyId), 5, new RegExp(`parameters.policyId: no policy ${policyId}`));
      await refused(updatePolicy(root, org.organizationId, { policyId, policyNotes: 'x' }), 5, new RegExp(`parameters.policyId: no policy ${policyId}`));
    });

    test('create_policies: listed in the order given, absent expressions as ""; delete_policies all or none', async () => {
      const own = await server.createOrganization('Batch');
      const client = server.client(own);
      const policies: PolicyInput[] = [
        { policyName: 'c', effect: 'EFFECT_ALLOW', notes: '' },
        { policyName: 'a', effect: 'EFFECT_DENY', condition: "activity.type == 'ACTIVITY_TYPE_DELETE_POLICY'", notes: 'keep policies' },
        { policyName: 'b', effect: 'EFFECT_ALLOW', consensus: "credentials.any(c, c.type == 'CREDENTIAL_TYPE_API_KEY_P256')", notes: '' },
      ];
      const { activity } = (await createPolicies(client, own.organizationId, policies)) as any;
      assert.deepEqual(activity.intent.createPoliciesIntent, { policies });
      const { policyIds } = activity.result.createPoliciesResult;
      assert.equal(policyIds.length, 3);
      const listed = ((await client.getPolicies({ organizationId: own.organizationId })) as any).policies;
      assert.deepEqual(listed.map((p: any) => p.policyId), policyIds, 'in the order given');
      assert.deepEqual(
        listed.map((p: any) => [p.policyName, p.effect, p.condition, p.consensus, p.notes]),
        policies.map((p) => [p.policyName, p.effect, p.condition ?? '', p.consensus ?? '', p.notes]),
      );
      assert.deepEqual((await loadPolicies(server.db, own.organizationId)).map((p) => p.policyId), policyIds, 'loadPolicies in the same order');

      const unknown = randomUUID();
      await refused(deletePolicies(client, own.organizationId, [policyIds[0], unknown]), 5, new RegExp(`parameters.policyIds\\[1\\]: no policy ${unknown}`));
      assert.equal(await count(own.organizationId), 3, 'nothing deleted');
      await refused(deletePolicies(client, own.organizationId, [policyIds[0], policyIds[0].toUpperCase()]), 3, /twice/, 'parameters.policyIds');
      await refused(deletePolicies(client, own.organizationId, []), 3, /at least one/, 'parameters.policyIds');
      const deleted = (await deletePolicies(client, own.organizationId, [policyIds[2].toUpperCase(), policyIds[0]])) as any;
      assert.deepEqual(deleted.activity.result.deletePoliciesResult, { policyIds: [policyIds[2], policyIds[0]] });
      assert.deepEqual(((await client.getPolicies({ organizationId: own.organizationId })) as any).policies.map((p: any) => p.policyId), [policyIds[1]]);
    });

    test('an expression that does not compile is a 400 naming the field and the position; nothing is written', async () => {
      const before = await count(org.organizationId);
      await refused(
        createPolicy(root, org.organizationId, { policyName: 'broken', effect: 'EFFECT_ALLOW', condition: "activity.type == 'X' && (true", notes: '' }),
        3,
        /parameters\.condition: .*at 30: expected '\)'/,
        'parameters.condition',
      );
      await refused(
        createPolicy(root, org.organizationId, { policyName: 'typed', effect: 'EFFECT_ALLOW', condition: "activity.type == 'X' && 5", notes: '' }),
        3,
        /parameters\.condition: .*at 25: expected bool, found int/,
        'parameters.condition',
      );
      await refused(
        createPolicy(root, org.organizationId, { policyName: 'wrong keyword', effect: 'EFFECT_ALLOW', consensus: "activity.type == 'X'", notes: '' }),
        3,
        /parameters\.consensus: .*at 1: /,
        'parameters.consensus',
      );
      await refused(
        createPolicies(root, org.organizationId, [
          { policyName: 'fine', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'fine too', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'third', effect: 'EFFECT_DENY', condition: 'activity.params.x ==', notes: '' },
        ]),
        3,
        /parameters\.policies\[2\]\.condition: .*at \d+: /,
        'parameters.policies[2].condition',
      );
      await refused(
        createPolicy(root, org.organizationId, { policyName: 'long', effect: 'EFFECT_ALLOW', condition: `${'('.repeat(1)}${' '.repeat(MAX_EXPRESSION_LENGTH)}true)`, notes: '' }),
        3,
        new RegExp(`at most ${MAX_EXPRESSION_LENGTH} characters`),
        'parameters.condition',
      );
      await refused(
        createPolicy(root, org.organizationId, { policyName: 'nul', effect: 'EFFECT_ALLOW', condition: "activity.type == 'a\u0000b'", notes: '' }),
        3,
        /NUL/,
        'parameters.condition',
      );
      await refused(createPolicy(root, org.organizationId, { policyName: 'effect', effect: 'EFFECT_MAYBE' as any, notes: '' }), 3, /EFFECT_ALLOW or EFFECT_DENY/, 'parameters.effect');
      await refused(createPolicy(root, org.organizationId, { policyName: '  ', effect: 'EFFECT_ALLOW', notes: '' }), 3, /must not be empty/, 'parameters.policyName');
      await refused(createPolicy(root, org.organizationId, { policyName: 'x'.repeat(257), effect: 'EFFECT_ALLOW', notes: '' }), 3, /at most 256 characters/, 'parameters.policyName');
      await refused(createPolicy(root, org.organizationId, { policyName: 'no notes', effect: 'EFFECT_ALLOW' } as any), 3, /required/, 'parameters.notes');
      await refused(createPolicy(root, org.organizationId, { policyName: 'timed', effect: 'EFFECT_ALLOW', notes: '', time: 'x' } as any), 3, /unknown field/, 'parameters.time');

      const { activity } = (await createPolicy(root, org.organizationId, { policyName: 'to update', effect: 'EFFECT_ALLOW', notes: '' })) as any;
      const { policyId } = activity.result.createPolicyResult;
      await refused(updatePolicy(root, org.organizationId, { policyId, policyCondition: 'activity.kind ==' }), 3, /parameters\.policyCondition: .*at \d+: /, 'parameters.policyCondition');
      await refused(updatePolicy(root, org.organizationId, { policyId, policyConsensus: 'approvers.count() >= ' }), 3, /parameters\.policyConsensus: .*at \d+: /, 'parameters.policyConsensus');
      await refused(updatePolicy(root, org.organizationId, { policyId: 'not-a-uuid' }), 3, /policy id/, 'parameters.policyId');
      assert.equal(await count(org.organizationId), before + 1, 'only the valid one was written');
      const [stored] = await loadPolicies(server.db, org.organizationId).then((all) => all.filter((p) => p.policyId === policyId));
      assert.deepEqual([stored!.condition, stored!.consensus], ['', ''], 'the refused updates changed nothing');
      await deletePolicy(root, org.organizationId, policyId);
    });

    test('a name the organization has is a 400 naming it, in create_policy, create_policies and update_policy', async () => {
      const { activity } = (await createPolicy(root, org.organizationId, { policyName: 'taken', effect: 'EFFECT_ALLOW', notes: '' })) as any;
      const taken = activity.result.createPolicyResult.policyId;
      const before = await count(org.organizationId);
      await refused(createPolicy(root, org.organizationId, { policyName: ' taken', effect: 'EFFECT_DENY', notes: '' }), 3, /already has a policy named "taken"/, 'parameters.policyName');
      await refused(
        createPolicies(root, org.organizationId, [
          { policyName: 'new one', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'taken', effect: 'EFFECT_ALLOW', notes: '' },
        ]),
        3,
        /parameters\.policies\[1\]\.policyName: .*already has a policy named "taken"/,
        'parameters.policies[1].policyName',
      );
      await refused(
        createPolicies(root, org.organizationId, [
          { policyName: 'twin', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'other', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'twin ', effect: 'EFFECT_DENY', notes: '' },
        ]),
        3,
        /parameters\.policies\[2\]\.policyName: is "twin", the name of policies\[0\] too/,
        'parameters.policies[2].policyName',
      );
      const { activity: second } = (await createPolicy(root, org.organizationId, { policyName: 'second', effect: 'EFFECT_ALLOW', notes: '' })) as any;
      const secondId = second.result.createPolicyResult.policyId;
      await refused(updatePolicy(root, org.organizationId, { policyId: secondId, policyName: 'taken' }), 3, /another policy named "taken"/, 'parameters.policyName');
      // Its own name is not another's.
      await updatePolicy(root, org.organizationId, { policyId: taken, policyName: 'taken', policyNotes: 'same name' });
      assert.equal(await count(org.organizationId), before + 1);
      await deletePolicies(root, org.organizationId, [taken, secondId]);
    });

    test("another organization's policies are not found, not listed, not changed", async () => {
      const other = await server.createOrganization('Other');
      const otherClient = server.client(other);
      const { activity } = (await createPolicy(otherClient, other.organizationId, ALLOW_INTERFACES)) as any;
      const theirs = activity.result.createPolicyResult.policyId;
      await refused(root.getPolicy({ organizationId: org.organizationId, policyId: theirs }), 5, new RegExp(`no policy ${theirs} in organization ${org.organizationId}`));
      await refused(deletePolicy(root, org.organizationId, theirs), 5, /parameters.policyId/);
      await refused(updatePolicy(root, org.organizationId, { policyId: theirs, policyNotes: 'mine now' }), 5, /parameters.policyId/);
      assert.equal(((await root.getPolicies({ organizationId: org.organizationId })) as any).policies.some((p: any) => p.policyId === theirs), false);
      // Names are unique in an organization, not across them.
      await createPolicy(root, org.organizationId, ALLOW_INTERFACES);
      const own = ((await otherClient.getPolicies({ organizationId: other.organizationId })) as any).policies;
      assert.deepEqual(own.map((p: any) => [p.policyId, p.notes]), [[theirs, ALLOW_INTERFACES.notes]]);
    });

    test('a DENY on an Ethereum address refuses it in the other spelling: lowercase against EIP-55 and the reverse', async () => {
      const checksummed = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
      const lowercase = checksummed.toLowerCase();
      const submit = (client: TurnkeyClient, organizationId: string, smartContractAddress: string) =>
        client.createSmartContractInterface({
          type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
          ...stamp(organizationId),
          parameters: { smartContractAddress, smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'USDC' },
        });
      for (const [written, submitted] of [
        [lowercase, checksummed],
        [checksummed, lowercase],
      ] as const) {
        // A user outside the root quorum, whom policies decide: interfaces allowed, except this contract's.
        const governed = await server.createOrganization(`Denies ${written.slice(0, 8)}`);
        const { userId } = await server.admin('POST', `/organizations/${governed.organizationId}/users`, { userName: 'member' });
        const member = server.client(await server.admin('POST', `/organizations/${governed.organizationId}/api-keys`, { userId }));
        const governor = server.client(governed);
        await createPolicy(governor, governed.organizationId, { policyName: 'Interfaces', effect: 'EFFECT_ALLOW', condition: "activity.resource == 'SMART_CONTRACT_INTERFACE'", notes: '' });
        const { activity } = (await createPolicy(governor, governed.organizationId, {
          policyName: 'Not USDC',
          effect: 'EFFECT_DENY',
          condition: `activity.params.smart_contract_address == '${written}'`,
          notes: '',
        })) as any;
        const denyId = activity.result.createPolicyResult.policyId;
        await refused(submit(member, governed.organizationId, submitted), 7, new RegExp(`denied by policy ${denyId}`));
        await refused(submit(member, governed.organizationId, written), 7, new RegExp(`denied by policy ${denyId}`));
        const other = (await submit(member, governed.organizationId, '0xdAC17F958D2ee523a2206206994597C13D831ec7')) as any;
        assert.equal(other.activity.status, 'ACTIVITY_STATUS_COMPLETED', 'another contract is allowed');
      }
    });

    test('integers are exact to 2^256 - 1 and -2^255: such literals are written and decide; one past them is a 400 at the literal', async () => {
      const MAX = 2n ** 256n - 1n;
      const MIN = -(2n ** 255n);
      const P53 = 2n ** 53n;
      const governed = await server.createOrganization('Big integers');
      const { userId } = await server.admin('POST', `/organizations/${governed.organizationId}/users`, { userName: 'member' });
      const member = server.client(await server.admin('POST', `/organizations/${governed.organizationId}/api-keys`, { userId }));
      const governor = server.client(governed);
      const submit = (label: string) =>
        member.createSmartContractInterface({
          type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
          ...stamp(governed.organizationId),
          parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label },
        });
      // As doubles, 2^53 + 1 == 2^53 and 2^256 - 1 == 2^256 - 2: these hold only when compared exactly.
      const exact = `${P53 + 1n} > ${P53} && ${MAX} != ${MAX - 1n} && ${MIN} < ${MIN + 1n} && [1, 2].count() < ${MAX}`;
      const allow = `activity.resource == 'SMART_CONTRACT_INTERFACE' && ${exact}`;
      await createPolicy(governor, governed.organizationId, { policyName: 'Exact interfaces', effect: 'EFFECT_ALLOW', condition: allow, notes: '' });
      const { activity } = (await createPolicy(governor, governed.organizationId, {
        policyName: 'Not the doubles',
        effect: 'EFFECT_DENY',
        condition: `activity.params.label == 'rounded' && (${P53 + 1n} == ${P53} || ${MAX} in [${MAX - 1n}, 1])`,
        notes: '',
      })) as any;
      const { activity: denying } = (await createPolicy(governor, governed.organizationId, {
        policyName: 'Exactly',
        effect: 'EFFECT_DENY',
        condition: `activity.params.label == 'exact' && ${MAX} in [${MAX - 1n}, ${MAX}]`,
        notes: '',
      })) as any;
      assert.ok(activity.result.createPolicyResult.policyId);
      const allowed = (await submit('rounded')) as any;
      assert.equal(allowed.activity.status, 'ACTIVITY_STATUS_COMPLETED', 'allowed by the exact ALLOW, not denied by the rounded DENY');
      await refused(submit('exact'), 7, new RegExp(`denied by policy ${denying.result.createPolicyResult.policyId}`));
      const policies = await loadPolicies(server.db, governed.organizationId);
      assert.ok(policies.some((p) => p.condition === allow), 'read back and compiled from the store as written');

      await refused(
        createPolicy(governor, governed.organizationId, { policyName: 'too big', effect: 'EFFECT_DENY', condition: `activity.params.label == 'x' || 1 < ${MAX + 1n}`, notes: '' }),
        3,
        /parameters\.condition: .*at 37: integer 115792089237316195423570… is out of range \(-2\^255 to 2\^256 - 1\)/,
        'parameters.condition',
      );
      await refused(
        updatePolicy(governor, governed.organizationId, { policyId: activity.result.createPolicyResult.policyId, policyCondition: `${MIN - 1n} < 0` }),
        3,
        /parameters\.policyCondition: .*at 1: integer -57896044618658097711785… is out of range/,
        'parameters.policyCondition',
      );
    });

    test(`an organization has at most ${MAX_POLICIES} policies: the next is a 400, in create_policy and create_policies`, async () => {
      const full = await server.createOrganization('Full');
      const client = server.client(full);
      await refused(
        createPolicies(client, full.organizationId, Array.from({ length: MAX_POLICIES + 1 }, (_, i) => ({ policyName: `p${i}`, effect: 'EFFECT_ALLOW' as const, notes: '' }))),
        3,
        new RegExp(`at most ${MAX_POLICIES} policies`),
        'parameters.policies',
      );
      await fill(full.organizationId, MAX_POLICIES - 2);
      await refused(
        createPolicies(client, full.organizationId, ['x', 'y', 'z'].map((policyName) => ({ policyName, effect: 'EFFECT_ALLOW' as const, notes: '' }))),
        3,
        /too many for 3 more/,
      );
      await createPolicies(client, full.organizationId, ['x', 'y'].map((policyName) => ({ policyName, effect: 'EFFECT_ALLOW' as const, notes: '' })));
      assert.equal(await count(full.organizationId), MAX_POLICIES);
      await refused(createPolicy(client, full.organizationId, { policyName: 'one too many', effect: 'EFFECT_ALLOW', notes: '' }), 3, new RegExp(`has ${MAX_POLICIES} policies, the most it may have`));
      assert.equal(await count(full.organizationId), MAX_POLICIES);
      assert.equal(((await client.getPolicies({ organizationId: full.organizationId })) as any).policies.length, MAX_POLICIES);
      const [first] = await loadPolicies(server.db, full.organizationId);
      await deletePolicy(client, full.organizationId, first!.policyId);
      await createPolicy(client, full.organizationId, { policyName: 'room again', effect: 'EFFECT_ALLOW', notes: '' });
    });

    test('creations arriving together hold the bound and the unique names: each answered, never a 500', async () => {
      const busy = await server.createOrganization('Busy');
      const client = server.client(busy);
      await fill(busy.organizationId, MAX_POLICIES - 5);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => createPolicy(client, busy.organizationId, { policyName: `racer ${i}`, effect: 'EFFECT_ALLOW', notes: '' })),
      );
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') assert.match(String((outcome.reason as any).message), /the most it may have/, String(outcome.reason));
      }
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5);
      assert.equal(await count(busy.organizationId), MAX_POLICIES);

      const named = await server.createOrganization('Named');
      const namedClient = server.client(named);
      const same = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => createPolicy(namedClient, named.organizationId, { policyName: 'only one', effect: 'EFFECT_ALLOW', notes: String(i) })),
      );
      for (const outcome of same) {
        if (outcome.status === 'rejected') assert.match(String((outcome.reason as any).message), /already has a policy named "only one"/, String(outcome.reason));
      }
      assert.equal(same.filter((o) => o.status === 'fulfilled').length, 1);

      const { activity } = (await createPolicy(namedClient, named.organizationId, { policyName: 'deleted twice', effect: 'EFFECT_ALLOW', notes: '' })) as any;
      const policyId = activity.result.createPolicyResult.policyId;
      const deletions = await Promise.allSettled([deletePolicy(namedClient, named.organizationId, policyId), deletePolicies(namedClient, named.organizationId, [policyId])]);
      assert.equal(deletions.filter((o) => o.status === 'fulfilled').length, 1, 'one deletes it, the other does not find it');
      const failed = deletions.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.equal((failed.reason as any).code, 5, String(failed.reason));
    });
  });
}
