// Untrusted JSON through the real HTTP stack: nesting is bounded (a clear 400 naming the limit, never
// a 500 from a recursive walk), keys JavaScript treats specially are refused wherever they appear,
// and a nested value inside an interface string gets a short 400 instead of a 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { MAX_BODY_DEPTH } from '../src/wire/jsonDocument.ts';
import { testDatabases } from './support/databases.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { post, postStamped, type Answer } from './support/http.ts';

const SUBMIT_CONTRACT = '/public/v1/submit/create_smart_contract_interface';
const SUBMIT_OTP = '/public/v1/submit/init_otp_auth';
const ABI = JSON.stringify([{ type: 'function', name: 'f', stateMutability: 'view', inputs: [], outputs: [] }]);

function contract(organizationId: string, parameters: string): string {
  return `{"type":"ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE","timestampMs":"${Date.now()}","organizationId":"${organizationId}","parameters":${parameters}}`;
}

const contractParameters = (extra = '', abi = ABI) =>
  `{"smartContractAddress":"0xdAC17F958D2ee523a2206206994597C13D831ec7","smartContractInterface":${JSON.stringify(abi)},"type":"SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM","label":"L"${extra}}`;

function assertRefused(answer: Answer, field: string, description: RegExp) {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.json.code, 3);
  const violation = answer.json.details[0].fieldViolations[0];
  assert.equal(violation.field, field);
  assert.match(violation.description, description);
  assert.match(answer.json.message, description);
}

for (const tdb of testDatabases) {
  describe(`untrusted JSON (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    const activities = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities'))[0]!.n;

    before(async () => {
      server = await startTestServer(tdb);
      org = await server.createOrganization();
    });
    after(() => server.close());

    test('6,000 levels of nesting with any well-formed stamp: 400 naming the limit, before the stamp is checked', async () => {
      const body = `{"x":${'['.repeat(6000)}${']'.repeat(6000)}}`;
      // A well-formed stamp of a key Signet does not know: the body is refused before any lookup.
      const stranger = await new ApiKeyStamper({
        apiPublicKey: '02f7d0a4f1f3c5a3f2b3a7b5f1f8c6e1e0b9a4e2b8c1d3f5a7c9e1b3d5f7a9c1e3',
        apiPrivateKey: '1f'.repeat(32),
      }).stamp(body);
      const answer = await post(server.baseUrl, SUBMIT_CONTRACT, body, {
        'content-type': 'application/json',
        [stranger.stampHeaderName]: stranger.stampHeaderValue,
      });
      assertRefused(answer, 'x' + '[0]'.repeat(MAX_BODY_DEPTH - 1), new RegExp(`more than ${MAX_BODY_DEPTH} levels deep; the limit is ${MAX_BODY_DEPTH}`));
    });

    test('the same nesting in a query and in an admin body is a 400 too', async () => {
      const deep = `{"organizationId":"${org.organizationId}","x":${'['.repeat(6000)}${']'.repeat(6000)}}`;
      const query = await postStamped(server.baseUrl, '/public/v1/query/list_activities', deep, org);
      assert.equal(query.status, 400, query.text);
      const admin = await post(server.baseUrl, '/admin/v1/organizations', `{"name":${'['.repeat(6000)}${']'.repeat(6000)}}`, {
        'content-type': 'application/json',
        authorization: `Bearer ${ADMIN_TOKEN}`,
      });
      assert.equal(admin.status, 400, admin.text);
      assert.match(admin.json.message, /levels deep/);
    });

    test('a NUL or an undecodable percent-encoding in the query string of a public route is a 400 naming the parameter, before the stamp', async () => {
      const body = JSON.stringify({ organizationId: org.organizationId });
      const nul = await postStamped(server.baseUrl, '/public/v1/query/list_activities?paginationOptions.after=a%00b', body, org);
      assertRefused(nul, 'paginationOptions.after', /contains a NUL character/);
      const unstamped = await post(server.baseUrl, '/public/v1/submit/init_otp_auth?x=%ED%A0%80', '{}', { 'content-type': 'application/json' });
      assertRefused(unstamped, 'x', /not valid percent-encoded UTF-8/);
      // The same query without them is answered.
      assert.equal((await postStamped(server.baseUrl, '/public/v1/query/list_activities?paginationOptions.after=ab', body, org)).status, 200);
    });

    test('nesting up to the limit is read; one level more is refused', async () => {
      const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
      // The body object is level 1, parameters level 2, so notes can hold MAX_BODY_DEPTH - 2 more levels.
      const atLimit = await postStamped(server.baseUrl, SUBMIT_CONTRACT, contract(org.organizationId, contractParameters(`,"notes":${nested(MAX_BODY_DEPTH - 2)}`)), org);
      assert.equal(atLimit.status, 400, atLimit.text);
      assert.equal(atLimit.json.details[0].fieldViolations[0].field, 'parameters.notes', 'refused by the schema, not by the depth bound');
      const over = await postStamped(server.baseUrl, SUBMIT_CONTRACT, contract(org.organizationId, contractParameters(`,"notes":${nested(MAX_BODY_DEPTH - 1)}`)), org);
      assert.match(over.json.message, /levels deep/);
    });

    for (const key of ['__proto__', 'constructor', 'prototype']) {
      test(`"${key}" is refused wherever it appears in a signed body, and nothing is stored`, async () => {
        const before = await activities();
        const places: Array<[string, string]> = [
          [contract(org.organizationId, contractParameters(`,"${key}":{"label":"other"}`)), `parameters.${key}`],
          [contract(org.organizationId, contractParameters()).replace(/}$/, `,"${key}":{}}`), key],
          [
            `{"type":"ACTIVITY_TYPE_INIT_OTP_AUTH_V3","timestampMs":"${Date.now()}","organizationId":"${org.organizationId}","parameters":{"otpType":"OTP_TYPE_EMAIL","contact":"a@example.com","appName":"A","emailCustomization":{"${key}":{"logoUrl":"https://x.example/a.png"}}}}`,
            `parameters.emailCustomization.${key}`,
          ],
        ];
        for (const [body, field] of places) {
          const route = body.includes('INIT_OTP') ? SUBMIT_OTP : SUBMIT_CONTRACT;
          assertRefused(await postStamped(server.baseUrl, route, body, org), field, new RegExp(`"${key}" is not allowed as a field name`));
        }
        assert.equal(await activities(), before);
      });
    }

    test('a deeply nested value inside the interface string is a 400 with a short message, not a 500', async () => {
      const deepValue = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const abi = `[{"type":"function","name":"f","stateMutability":${deepValue},"inputs":[],"outputs":[]}]`;
      const answer = await postStamped(server.baseUrl, SUBMIT_CONTRACT, contract(org.organizationId, contractParameters('', abi)), org);
      assert.equal(answer.status, 400, answer.text.slice(0, 300));
      assert.match(answer.json.message, /parameters\.smartContractInterface: is not usable JSON at \[0\]\.stateMutability(\[0\])+: nests objects and arrays more than 128 levels deep/);

      // Within the bound, the rules run and quote the offending value by its type, whatever its size.
      const wide = `[{"type":"function","name":"f","stateMutability":[${'"x",'.repeat(50_000)}"x"],"inputs":[],"outputs":[]}]`;
      const quoted = await postStamped(server.baseUrl, SUBMIT_CONTRACT, contract(org.organizationId, contractParameters('', wide)), org);
      assert.equal(quoted.status, 400);
      assert.match(quoted.json.message, /stateMutability: must be pure, view, nonpayable or payable, got an array/);
      assert.ok(quoted.text.length < 4000, `answer of ${quoted.text.length} bytes`);
    });

    test('"__proto__" inside the interface JSON is refused too', async () => {
      const abi = '[{"type":"function","name":"f","stateMutability":"view","inputs":[],"outputs":[],"__proto__":{"type":"event"}}]';
      const answer = await postStamped(server.baseUrl, SUBMIT_CONTRACT, contract(org.organizationId, contractParameters('', abi)), org);
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.json.message, /at \[0\]\.__proto__: "__proto__" is not allowed/);
    });
  });
}
