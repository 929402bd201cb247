// The policies' handlers' rules, read from their effects as plain data (no store): what must hold for
// a policy to be written (its name free, room under the bound, the policy there to change or delete),
// what is written, and that every such change is a change of the organization's authority.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPolicies } from '../src/activities/handlers/policies/createPolicies.ts';
import { createPolicy } from '../src/activities/handlers/policies/createPolicy.ts';
import { deletePolicies } from '../src/activities/handlers/policies/deletePolicies.ts';
import { MAX_POLICIES, POLICY_EXAMPLE } from '../src/activities/handlers/policies/policyPlans.ts';
import { updatePolicy } from '../src/activities/handlers/policies/updatePolicy.ts';
import { updateRootQuorum } from '../src/activities/handlers/policies/updateRootQuorum.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf } from './support/handlerRules.ts';

const ALICE = '0c9a3f5e-7b1d-4c2e-8f6a-5d4e3c2b1a09';
const POLICY = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';

describe('create_policy and create_policies', () => {
  test('a policy is written when its name is free and the organization has room; it changes the authority', async () => {
    const plan = await planOf(createPolicy, { ...POLICY_EXAMPLE, policyName: 'Ops' });
    const policyId = (plan.result as { policyId: string }).policyId;
    assert.deepEqual(checksOf(plan), [
      { name: 'policyNameFree', args: [ORGANIZATION_ID, 'Ops'], message: 'parameters.policyName: the organization already has a policy named "Ops"; policy names are unique in an organization' },
      { name: 'policiesRoomFor', args: [ORGANIZATION_ID, 1, MAX_POLICIES], message: `the organization has ${MAX_POLICIES} policies, the most it may have; delete one first` },
    ]);
    const [insert] = effectsOf(plan, 'write');
    assert.equal(insert?.name, 'insertPolicies');
    assert.deepEqual(insert?.args, [
      ORGANIZATION_ID,
      [{ policyId, policyName: 'Ops', effect: 'EFFECT_ALLOW', condition: POLICY_EXAMPLE.condition, consensus: POLICY_EXAMPLE.consensus, notes: '' }],
      NOW,
    ]);
    assert.deepEqual(effectsOf(plan, 'changeAuthority'), [{ kind: 'changeAuthority', organizationId: ORGANIZATION_ID }]);
  });

  test('each name of a batch is checked, named by its index; the room is checked for the whole batch; ids ascend', async () => {
    const names = ['b', 'a', 'c'];
    const plan = await planOf(createPolicies, { policies: names.map((policyName) => ({ ...POLICY_EXAMPLE, policyName })) });
    const checks = checksOf(plan);
    assert.deepEqual(checks.map((c) => c.name), ['policyNameFree', 'policyNameFree', 'policyNameFree', 'policiesRoomFor']);
    assert.deepEqual(checks.slice(0, 3).map((c) => c.args[1]), names);
    const fields = effectsOf(plan, 'check').map((effect) => effect.error.fieldViolations.map((v) => v.field));
    assert.deepEqual(fields.slice(0, 3), [['parameters.policies[0].policyName'], ['parameters.policies[1].policyName'], ['parameters.policies[2].policyName']]);
    assert.deepEqual(checks[3]!.args, [ORGANIZATION_ID, 3, MAX_POLICIES]);
    assert.match(checks[3]!.message, /at most 100 policies and has more than 97, too many for 3 more/);
    const ids = (plan.result as { policyIds: string[] }).policyIds;
    assert.deepEqual(ids, [...ids].sort());
  });
});

describe('update_policy and delete_policies', () => {
  test('an update checks the policy is there and, when renamed, that no other policy has the name', async () => {
    const renamed = await planOf(updatePolicy, { policyId: POLICY.toUpperCase(), policyName: 'New name' });
    assert.deepEqual(checksOf(renamed).map(({ name, args }) => ({ name, args })), [
      { name: 'policyOfOrganization', args: [ORGANIZATION_ID, POLICY] },
      { name: 'policyNameFree', args: [ORGANIZATION_ID, 'New name', POLICY] },
    ]);
    assert.equal(effectsOf(renamed, 'check')[0]!.error.status, 404);
    const notes = await planOf(updatePolicy, { policyId: POLICY, policyNotes: 'why' });
    assert.deepEqual(checksOf(notes).map((c) => c.name), ['policyOfOrganization']);
    assert.deepEqual(effectsOf(notes, 'write')[0]!.args.slice(0, 3), [
      ORGANIZATION_ID,
      POLICY,
      { policyName: undefined, effect: undefined, condition: undefined, consensus: undefined, notes: 'why' },
    ]);
    assert.equal(effectsOf(notes, 'changeAuthority').length, 1);
  });

  test('a deletion needs every policy there, all or none', async () => {
    const other = 'd1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
    const plan = await planOf(deletePolicies, { policyIds: [POLICY, other] });
    assert.deepEqual(checksOf(plan).map(({ name, args, message }) => ({ name, args, message })), [
      { name: 'policyOfOrganization', args: [ORGANIZATION_ID, POLICY], message: `parameters.policyIds[0]: no policy ${POLICY} in organization ${ORGANIZATION_ID}` },
      { name: 'policyOfOrganization', args: [ORGANIZATION_ID, other], message: `parameters.policyIds[1]: no policy ${other} in organization ${ORGANIZATION_ID}` },
    ]);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['deletePolicies', [ORGANIZATION_ID, [POLICY, other]]]]);
  });
});

describe('update_root_quorum', () => {
  test('every member must be an active user of the organization; the quorum is replaced as given, lowercase', async () => {
    const plan = await planOf(updateRootQuorum, { threshold: 1, userIds: [ALICE.toUpperCase()] });
    assert.deepEqual(checksOf(plan).map(({ name, args }) => ({ name, args })), [{ name: 'userActive', args: [ORGANIZATION_ID, ALICE] }]);
    assert.deepEqual(effectsOf(plan, 'check')[0]!.error.fieldViolations.map((v) => v.field), ['parameters.userIds[0]']);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['replaceRootQuorum', [ORGANIZATION_ID, { threshold: 1, userIds: [ALICE] }, NOW]]]);
    assert.equal(effectsOf(plan, 'changeAuthority').length, 1);
  });
});
