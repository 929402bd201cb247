// The rules of the webhook endpoints', smart contract interfaces' and sub-organizations' deletion
// handlers, read from their effects as plain data (no store).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { createSmartContractInterface } from '../src/activities/handlers/contracts/createSmartContractInterface.ts';
import { deleteSmartContractInterface } from '../src/activities/handlers/contracts/deleteSmartContractInterface.ts';
import { deleteSubOrganization } from '../src/activities/handlers/organizations/deleteSubOrganization.ts';
import { createWebhookEndpoint } from '../src/activities/handlers/webhooks/createWebhookEndpoint.ts';
import { deleteWebhookEndpoint } from '../src/activities/handlers/webhooks/deleteWebhookEndpoint.ts';
import { MAX_WEBHOOK_ENDPOINTS } from '../src/activities/handlers/webhooks/webhookEndpointPlans.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf } from './support/handlerRules.ts';

const ENDPOINT = '6c1f2e3d-4b5a-4c7d-8e9f-0a1b2c3d4e5f';

describe('webhook endpoints', () => {
  test('a new endpoint is counted under the organization lock against the bound; its secret is shown once, sealed when stored', async () => {
    const plan = await planOf(createWebhookEndpoint, { url: 'https://hooks.example.com/signet', name: 'ops' });
    assert.deepEqual(
      plan.effects.map((effect) => effect.kind),
      ['lock', 'check', 'write'],
    );
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['organization', [ORGANIZATION_ID]]]);
    assert.deepEqual(checksOf(plan), [
      { name: 'webhookEndpointsRoomFor', args: [ORGANIZATION_ID, MAX_WEBHOOK_ENDPOINTS], message: `the organization has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most it may have; delete one first` },
    ]);
    assert.deepEqual(plan.secretFields, ['webhookEndpoint.secret']);
    const result = plan.result as { endpointId: string; webhookEndpoint: { secret: string; subscriptions: unknown[] } };
    assert.match(result.webhookEndpoint.secret, /^whsec_/);
    assert.deepEqual(result.webhookEndpoint.subscriptions, [{ eventType: 'ACTIVITY_UPDATES', filtersJson: '', isActive: true }]);
    const [stored] = effectsOf(plan, 'write')[0]!.args as [{ sealedSecret: string; endpointId: string }, Date];
    assert.equal(stored.endpointId, result.endpointId);
    // What the store keeps is sealed: the secret's text is not in it.
    assert.ok(!JSON.stringify(effectsOf(plan, 'write')).includes(result.webhookEndpoint.secret.slice('whsec_'.length)));
  });

  test('a deletion checks, in its statement, that the endpoint is the organization’s (a 404 otherwise)', async () => {
    const plan = await planOf(deleteWebhookEndpoint, { endpointId: ENDPOINT.toUpperCase() });
    assert.deepEqual(checksOf(plan).map(({ name, args }) => ({ name, args })), [{ name: 'webhookEndpointOfOrganization', args: [ORGANIZATION_ID, ENDPOINT] }]);
    assert.equal(effectsOf(plan, 'check')[0]!.error.status, 404);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['deleteWebhookEndpoint', [ORGANIZATION_ID, ENDPOINT]]]);
  });
});

describe('smart contract interfaces', () => {
  test('an interface is written with the digest of its text as submitted', async () => {
    const text = '[{"type":"function","name":"transfer","inputs":[],"outputs":[],"stateMutability":"nonpayable"}]';
    const plan = await planOf(createSmartContractInterface, {
      smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      smartContractInterface: text,
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'token',
    });
    const [insert] = effectsOf(plan, 'write');
    assert.equal(insert!.name, 'insertSmartContractInterface');
    const [record] = insert!.args as [{ digest: string; notes: string; organizationId: string; createdAt: Date }];
    assert.equal(record.digest, `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`);
    assert.equal(record.notes, '');
    assert.equal(record.organizationId, ORGANIZATION_ID);
    assert.equal(record.createdAt, NOW);
    assert.deepEqual(checksOf(plan), []);
  });

  test('a deletion takes the interface away; none there is a 404 that does not tell whether another organization has it', async () => {
    const id = '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90';
    const plan = await planOf(deleteSmartContractInterface, { smartContractInterfaceId: id });
    const [removal] = effectsOf(plan, 'take');
    assert.deepEqual([removal!.name, removal!.args], ['smartContractInterface', [ORGANIZATION_ID, id]]);
    const refusal = removal!.error(null);
    assert.equal(refusal.status, 404);
    assert.equal(refusal.message, `no smart contract interface ${id} in organization ${ORGANIZATION_ID}`);
  });
});

describe('delete_sub_organization', () => {
  test('only a live sub-organization is deleted, by a request submitted in it; without deleteWithoutExport, only when every wallet and private key of it was exported', async () => {
    const plan = await planOf(deleteSubOrganization, { deleteWithoutExport: false });
    assert.deepEqual(checksOf(plan).map(({ name, args }) => ({ name, args })), [
      { name: 'isLiveSubOrganization', args: [ORGANIZATION_ID] },
      { name: 'organizationKeysExported', args: [ORGANIZATION_ID] },
    ]);
    assert.equal(effectsOf(plan, 'check')[0]!.error.status, 400);
    const notExported = effectsOf(plan, 'check')[1]!.error;
    assert.equal(notExported.status, 400);
    assert.equal(notExported.fieldViolations[0]!.field, 'parameters.deleteWithoutExport');
    assert.match(notExported.fieldViolations[0]!.description, /wallets or private keys that have not been exported/);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['deleteSubOrganization', [ORGANIZATION_ID, NOW]]]);
    assert.deepEqual(plan.result, { subOrganizationUuid: ORGANIZATION_ID });

    const forced = await planOf(deleteSubOrganization, { deleteWithoutExport: true });
    assert.deepEqual(checksOf(forced).map(({ name }) => name), ['isLiveSubOrganization']);
    assert.deepEqual(effectsOf(forced, 'write').map((w) => [w.name, w.args]), [['deleteSubOrganization', [ORGANIZATION_ID, NOW]]]);
  });
});
