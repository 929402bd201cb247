// Answers stay bounded however much is stored: every list is paginated (paginationOptions, newest
// first, id cursors) and a page ends early rather than pass its byte budget, so paging still reaches
// every item. A 400 KiB interface is answered without loss.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_INTERFACE_BYTES } from '../src/activities/handlers/contracts/createSmartContractInterface.ts';
import { PAGE_BYTE_BUDGET } from '../src/queries/pagination.ts';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { largeAbi } from './support/largeAbi.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const STORED = 20;

for (const tdb of testDatabases) {
  describe(`large lists (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    const interfaceIds: string[] = []; // oldest first
    const activityIds: string[] = [];
    const abi = largeAbi(MAX_INTERFACE_BYTES);
    let firstAnswerBytes = 0;

    const query = async (name: string, body: object) => {
      const answer = await postStamped(server.baseUrl, `/public/v1/query/${name}`, JSON.stringify({ organizationId: org.organizationId, ...body }), org);
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      return answer;
    };

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization();
      for (let i = 0; i < STORED; i++) {
        const body = JSON.stringify({
          type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: {
            smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
            smartContractInterface: abi,
            type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
            label: `large ${i}`,
          },
        });
        const answer = await postStamped(server.baseUrl, '/public/v1/submit/create_smart_contract_interface', body, org);
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        if (i === 0) firstAnswerBytes = answer.text.length;
        activityIds.push(answer.json.activity.id);
        interfaceIds.push(answer.json.activity.result.createSmartContractInterfaceResult.smartContractInterfaceId);
      }
    });
    after(() => server.close());

    test('a 400 KiB interface is answered whole, within a bounded size', () => {
      assert.ok(abi.length > MAX_INTERFACE_BYTES - 1024 && abi.length <= MAX_INTERFACE_BYTES);
      // Two copies of the intent (flat and nested) and two of the signed body (the votes' message,
      // flat and nested), each escaped as a JSON string once, and a few KiB around them: nothing more.
      const escapedInterface = JSON.stringify(abi).length;
      const escapedBody = JSON.stringify(JSON.stringify({ parameters: { smartContractInterface: abi } })).length;
      const bound = 2 * escapedInterface + 2 * escapedBody + 8192;
      assert.ok(firstAnswerBytes <= bound, `answer of ${firstAnswerBytes} bytes, bound ${bound}`);
    });

    test('list_smart_contract_interfaces pages: 10 by default, at most 100, cursors both ways', async () => {
      const first = await query('list_smart_contract_interfaces', {});
      const ids = (answer: { json: any }) => answer.json.smartContractInterfaces.map((i: any) => i.smartContractInterfaceId);
      assert.deepEqual(ids(first), [...interfaceIds].reverse().slice(0, 10));
      assert.equal(first.json.smartContractInterfaces[0].smartContractInterface, abi);
      const next = await query('list_smart_contract_interfaces', { paginationOptions: { limit: '3', after: interfaceIds[STORED - 10] } });
      assert.deepEqual(ids(next), [...interfaceIds].reverse().slice(10, 13));
      const previous = await query('list_smart_contract_interfaces', { paginationOptions: { limit: '2', before: interfaceIds[5] } });
      assert.deepEqual(ids(previous), [interfaceIds[7], interfaceIds[6]]);
      const tooMany = await postStamped(
        server.baseUrl,
        '/public/v1/query/list_smart_contract_interfaces',
        JSON.stringify({ organizationId: org.organizationId, paginationOptions: { limit: '101' } }),
        org,
      );
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.json.message, /paginationOptions\.limit/);
    });

    test('a page ends before its byte budget, and paging with `after` still reaches every item once', async () => {
      for (const [name, key, idOf, expected] of [
        ['list_smart_contract_interfaces', 'smartContractInterfaces', (i: any) => i.smartContractInterfaceId, interfaceIds],
        ['list_activities', 'activities', (a: any) => a.id, activityIds],
      ] as const) {
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        for (;;) {
          const answer = await query(name, { paginationOptions: { limit: '100', ...(after ? { after } : {}) } });
          const items = answer.json[key] as any[];
          if (items.length === 0) break;
          pages++;
          // The budget is of estimated sizes; the real answer stays within a small factor of it.
          assert.ok(answer.text.length < 1.5 * PAGE_BYTE_BUDGET, `${name}: page of ${answer.text.length} bytes`);
          seen.push(...items.map(idOf));
          after = idOf(items[items.length - 1]);
        }
        assert.deepEqual(seen, [...expected].reverse(), name);
        assert.ok(pages >= 2, `${name}: ${pages} page(s) for ${STORED} large items`);
      }
    });
  });
}
