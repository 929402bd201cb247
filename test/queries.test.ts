// Stamped queries through @turnkey/http's own methods: get_activity, list_activities (filters and
// cursor pagination), get/list smart contract interfaces; other tenants' objects are 404; nothing
// is written by a query.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ABI = JSON.stringify([{ type: 'event', name: 'Ping', inputs: [] }]);

async function expectError(promise: Promise<unknown>, status: number, pattern: RegExp) {
  await assert.rejects(promise, (error: any) => {
    // TurnkeyRequestError carries the wire body: code and message.
    assert.match(String(error.message), pattern);
    assert.equal(error.code, status === 404 ? 5 : status === 400 ? 3 : 16);
    return true;
  });
}

for (const tdb of testDatabases) {
  describe(`queries (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let other: Credentials;
    let client: TurnkeyClient;
    const created: string[] = []; // activity ids, oldest first
    const interfaces: string[] = [];

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Reader');
      other = await server.createOrganization('Other');
      client = server.client(org);
      for (let i = 0; i < 5; i++) {
        const { activity } = (await client.createSmartContractInterface({
          type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: ABI, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: `contract ${i}` },
        })) as any;
        created.push(activity.id);
        interfaces.push(activity.result.createSmartContractInterfaceResult.smartContractInterfaceId);
      }
      const { activity } = (await client.initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'q@example.com', appName: 'Reader' },
      } as any)) as any;
      created.push(activity.id);
    });
    after(() => server.close());

    test('get_activity returns what the submission returned', async () => {
      const { activity } = (await client.getActivity({ organizationId: org.organizationId, activityId: created[5]! })) as any;
      assert.equal(activity.id, created[5]);
      assert.equal(activity.type, 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3');
      assert.match(activity.result.initOtpAuthResultV2.otpId, /^[0-9a-f-]{36}$/);
      assert.equal(activity.votes[0].publicKey, org.apiPublicKey);
    });

    test("another organization's activity is 404, even with that organization's valid key", async () => {
      await expectError(server.client(other).getActivity({ organizationId: other.organizationId, activityId: created[0]! }), 404, /no activity/);
      // Naming the owner organization with a key of another one is a 403 before any lookup.
      await assert.rejects(server.client(other).getActivity({ organizationId: org.organizationId, activityId: created[0]! }), (e: any) => e.code === 7);
    });

    test('list_activities: newest first, default page of 10, filters', async () => {
      const all = (await client.getActivities({ organizationId: org.organizationId })) as any;
      assert.deepEqual(all.activities.map((a: any) => a.id), [...created].reverse());
      const contracts = (await client.getActivities({ organizationId: org.organizationId, filterByType: ['ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE' as any] })) as any;
      assert.equal(contracts.activities.length, 5);
      const failed = (await client.getActivities({ organizationId: org.organizationId, filterByStatus: ['ACTIVITY_STATUS_FAILED'] })) as any;
      assert.deepEqual(failed.activities, []);
    });

    test('list_activities: cursors walk the list both ways without gaps or repeats', async () => {
      const newestFirst = [...created].reverse();
      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = (await client.getActivities({
          organizationId: org.organizationId,
          paginationOptions: { limit: '2', ...(after ? { after } : {}) },
        })) as any;
        const ids = page.activities.map((a: any) => a.id);
        if (ids.length === 0) break;
        pages.push(ids);
        after = ids[ids.length - 1];
      }
      assert.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4, 6)]);

      const newer = (await client.getActivities({ organizationId: org.organizationId, paginationOptions: { limit: '2', before: newestFirst[4]! } })) as any;
      assert.deepEqual(newer.activities.map((a: any) => a.id), newestFirst.slice(2, 4));
      const between = (await client.getActivities({ organizationId: org.organizationId, paginationOptions: { limit: '100', after: newestFirst[0]!, before: newestFirst[3]! } })) as any;
      assert.deepEqual(between.activities.map((a: any) => a.id), newestFirst.slice(1, 3));
    });

    test('list_activities: bad limits, unknown cursors and malformed filters are 400s naming the field', async () => {
      for (const limit of ['0', '101', '-1', '1.5', 'ten']) {
        await expectError(client.getActivities({ organizationId: org.organizationId, paginationOptions: { limit } }), 400, /paginationOptions\.limit/);
      }
      await expectError(
        client.getActivities({ organizationId: org.organizationId, paginationOptions: { after: '00000000-0000-4000-8000-000000000000' } }),
        400,
        /paginationOptions\.after/,
      );
      await expectError(client.getActivities({ organizationId: org.organizationId, filterByType: ['create_users' as any] }), 400, /filterByType/);
      await expectError(client.getActivities({ organizationId: org.organizationId, filterByStatus: ['COMPLETED' as any] }), 400, /filterByStatus/);
      // A status is one of the ecosystem's, all of which are filters (one this server never writes
      // matches nothing); any other is a 400 listing them.
      await expectError(
        client.getActivities({ organizationId: org.organizationId, filterByStatus: ['ACTIVITY_STATUS_DONE' as any] }),
        400,
        /filterByStatus.*ACTIVITY_STATUS_CONSENSUS_NEEDED/,
      );
      const waiting = (await client.getActivities({
        organizationId: org.organizationId,
        filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_REJECTED', 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED', 'ACTIVITY_STATUS_PENDING'],
      })) as any;
      assert.deepEqual(waiting.activities, []);
      // A well-formed type this server never records is a filter that matches nothing, as on the hosted service.
      const none = (await client.getActivities({ organizationId: org.organizationId, filterByType: ['ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'] })) as any;
      assert.deepEqual(none.activities, []);
    });

    test('get and list smart contract interfaces; another organization sees none of them', async () => {
      const { smartContractInterface } = (await client.getSmartContractInterface({ organizationId: org.organizationId, smartContractInterfaceId: interfaces[2]! })) as any;
      assert.deepEqual(Object.keys(smartContractInterface).sort(), ['createdAt', 'label', 'notes', 'organizationId', 'smartContractAddress', 'smartContractInterface', 'smartContractInterfaceId', 'type', 'updatedAt']);
      assert.equal(smartContractInterface.label, 'contract 2');
      assert.equal(smartContractInterface.smartContractInterface, ABI);
      const list = (await client.getSmartContractInterfaces({ organizationId: org.organizationId })) as any;
      assert.deepEqual(list.smartContractInterfaces.map((i: any) => i.smartContractInterfaceId), [...interfaces].reverse());

      const stranger = server.client(other);
      await expectError(stranger.getSmartContractInterface({ organizationId: other.organizationId, smartContractInterfaceId: interfaces[2]! }), 404, /no smart contract interface/);
      assert.deepEqual(((await stranger.getSmartContractInterfaces({ organizationId: other.organizationId })) as any).smartContractInterfaces, []);
    });

    test('delete_smart_contract_interface removes it; a second delete and another tenant get 404', async () => {
      const target = interfaces[0]!;
      const del = (c: TurnkeyClient, organizationId: string) =>
        c.deleteSmartContractInterface({
          type: 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { smartContractInterfaceId: target },
        });
      await expectError(del(server.client(other), other.organizationId), 404, /no smart contract interface/);
      const { activity } = (await del(client, org.organizationId)) as any;
      assert.equal(activity.type, 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE');
      assert.deepEqual(activity.result.deleteSmartContractInterfaceResult, { smartContractInterfaceId: target });
      assert.deepEqual(activity.intent.deleteSmartContractInterfaceIntent, { smartContractInterfaceId: target });
      await expectError(client.getSmartContractInterface({ organizationId: org.organizationId, smartContractInterfaceId: target }), 404, /no smart contract interface/);
      await new Promise((r) => setTimeout(r, 2)); // a new timestampMs, so a new body rather than a resubmission
      await expectError(del(client, org.organizationId), 404, /no smart contract interface/);
      interfaces.shift();
      created.push(activity.id);
    });

    test('queries need a valid stamp and write nothing', async () => {
      const [before] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities');
      const response = await fetch(`${server.baseUrl}/public/v1/query/get_activity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ organizationId: org.organizationId, activityId: created[0] }),
      });
      assert.equal(response.status, 401);
      await client.getActivities({ organizationId: org.organizationId });
      const [afterwards] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities');
      assert.equal(afterwards!.n, before!.n);
    });
  });
}
