// The activity engine through the real HTTP stack, stamped by @turnkey/api-key-stamper: response
// shape, votes, fingerprint, idempotency (also concurrent), liveness, and every error row of
// the error shape of src/errors.ts with nothing half-written.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import type { ActivityHandler } from '../src/activities/handler.ts';
import { activityHandlers } from '../src/activities/registry.ts';
import { write } from '../src/store/effects.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ABI = JSON.stringify([
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
]);

function contractBody(organizationId: string, overrides: Record<string, unknown> = {}, parameters: Record<string, unknown> = {}) {
  return {
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: {
      smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      smartContractInterface: ABI,
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label: 'Tether',
      ...parameters,
    },
    ...overrides,
  };
}

interface Sent {
  status: number;
  headers: Headers;
  json: any;
}

/** POSTs exact bytes with a real stamp (or the given headers) and returns status and JSON. */
async function post(server: TestServer, route: string, body: string, headers: Record<string, string>): Promise<Sent> {
  const response = await fetch(`${server.baseUrl}${route}`, { method: 'POST', headers, body });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

async function stamped(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>, body: string) {
  const stamp = await new ApiKeyStamper(credentials).stamp(body);
  return { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue };
}

const SUBMIT_CONTRACT = '/public/v1/submit/create_smart_contract_interface';

function assertError(sent: Sent, status: number, code: number, pattern: RegExp) {
  assert.equal(sent.status, status, JSON.stringify(sent.json));
  assert.equal(sent.json.code, code);
  assert.match(sent.json.message, pattern);
  assert.ok(Array.isArray(sent.json.details));
  assert.doesNotMatch(JSON.stringify(sent.json), /at .*\.ts:\d+/, 'no stack trace');
}

async function count(server: TestServer, table: string): Promise<number> {
  const [row] = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return row!.n;
}

for (const tdb of testDatabases) {
  describe(`submitting activities (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      server = await startTestServer(tdb);
      org = await server.createOrganization('Acme');
    });
    after(() => server.close());

    test('the client library submits and gets the nested shape plus the flat keys', async () => {
      const client = server.client(org);
      const body = contractBody(org.organizationId);
      const signed = await client.stampCreateSmartContractInterface(body as any);
      const { activity } = (await client.createSmartContractInterface(body as any)) as any;

      assert.match(activity.id, /^[0-9a-f-]{36}$/);
      assert.equal(activity.organizationId, org.organizationId);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE');
      assert.equal(activity.timestampMs, body.timestampMs);
      assert.equal(activity.intent.createSmartContractInterfaceIntent.label, 'Tether');
      const id = activity.result.createSmartContractInterfaceResult.smartContractInterfaceId;
      assert.match(id, /^[0-9a-f-]{36}$/);

      const nested = activity.result.activity;
      assert.deepEqual(
        Object.keys(nested).sort(),
        ['canApprove', 'canReject', 'createdAt', 'fingerprint', 'id', 'intent', 'organizationId', 'result', 'status', 'type', 'updatedAt', 'votes'],
      );
      assert.equal(nested.id, activity.id);
      assert.deepEqual(nested.intent, activity.intent);
      assert.deepEqual(nested.result, { createSmartContractInterfaceResult: { smartContractInterfaceId: id } });
      assert.equal(activity.canApprove, false);
      assert.equal(activity.canReject, false);
      assert.match(activity.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(activity.updatedAt, activity.createdAt);
      // The client serialises the body itself; the fingerprint is over those exact bytes.
      assert.equal(activity.fingerprint, 'sha256:' + createHash('sha256').update(signed.body).digest('hex'));

      assert.equal(activity.votes.length, 1);
      const [vote] = activity.votes;
      assert.equal(vote.activityId, activity.id);
      assert.equal(vote.userId, org.userId);
      // The voter as the ecosystem's v1User: every required field, the credential lists empty.
      const [stored] = await server.db.query<{ created_at: Date; updated_at: Date }>('SELECT created_at, updated_at FROM users WHERE id = $1', [org.userId]);
      assert.deepEqual(vote.user, {
        userId: org.userId,
        userName: 'root',
        authenticators: [],
        apiKeys: [],
        userTags: [],
        oauthProviders: [],
        mfaPolicies: [],
        createdAt: stored!.created_at.toISOString(),
        updatedAt: stored!.updated_at.toISOString(),
      });
      assert.equal(vote.selection, 'VOTE_SELECTION_APPROVED');
      assert.equal(vote.scheme, 'SIGNATURE_SCHEME_TK_API_P256');
      assert.equal(vote.publicKey, org.apiPublicKey);
      assert.equal(vote.message, signed.body);
      // Anyone holding the activity can re-verify who approved it.
      const full = createPublicKeyFromCompressed(vote.publicKey);
      assert.ok(verify('sha256', Buffer.from(vote.message), full, Buffer.from(vote.signature, 'hex')));

      const [row] = await server.db.query<any>('SELECT * FROM smart_contract_interfaces WHERE id = $1', [id]);
      assert.equal(row.organization_id, org.organizationId);
      assert.equal(row.activity_id, activity.id);
    });

    test('the same body again returns the same activity and creates nothing', async () => {
      const body = JSON.stringify(contractBody(org.organizationId, {}, { label: 'again' }));
      const headers = await stamped(org, body);
      const first = await post(server, SUBMIT_CONTRACT, body, headers);
      const rows = await count(server, 'smart_contract_interfaces');
      // A second stamp over the same bytes (a fresh ECDSA signature) still names the same activity.
      const second = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assert.deepEqual(second.json, first.json);
      assert.equal(await count(server, 'smart_contract_interfaces'), rows);
    });

    test('concurrent submissions of one body make one activity', async () => {
      const body = JSON.stringify(contractBody(org.organizationId, {}, { label: 'race' }));
      const before = await count(server, 'activities');
      const results = await Promise.all(
        Array.from({ length: 12 }, async () => post(server, SUBMIT_CONTRACT, body, await stamped(org, body))),
      );
      for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(new Set(results.map((r) => r.json.activity.id)).size, 1);
      assert.equal(await count(server, 'activities'), before + 1);
      const [row] = await server.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM smart_contract_interfaces WHERE label = 'race'",
      );
      assert.equal(row!.n, 1);
    });

    describe('errors', () => {
      test('400 malformed JSON', async () => {
        const body = '{"type": ';
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(org, body)), 400, 3, /not valid JSON/);
      });

      test('400 wrong type for the endpoint', async () => {
        const body = JSON.stringify(contractBody(org.organizationId, { type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3' }));
        const sent = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
        assertError(sent, 400, 3, /ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE/);
        assert.equal(sent.json.details[0].fieldViolations[0].field, 'type');
      });

      test('400 unknown fields are named, in the envelope and in parameters', async () => {
        const body = JSON.stringify(contractBody(org.organizationId, { extra: 1 }, { colour: 'red' }));
        const envelope = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
        assertError(envelope, 400, 3, /extra/);
        assert.equal(envelope.json.details[0]['@type'], 'type.googleapis.com/google.rpc.BadRequest');
        const inner = JSON.stringify(contractBody(org.organizationId, {}, { colour: 'red' }));
        const sent = await post(server, SUBMIT_CONTRACT, inner, await stamped(org, inner));
        assertError(sent, 400, 3, /parameters\.colour/);
        assert.deepEqual(sent.json.details[0].fieldViolations.map((v: any) => v.field), ['parameters.colour']);
      });

      test('400 missing required parameter', async () => {
        const full = contractBody(org.organizationId);
        delete (full.parameters as any).label;
        const body = JSON.stringify(full);
        const sent = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
        assertError(sent, 400, 3, /parameters\.label/);
      });

      test('400 a wrong type is not reported as missing', async () => {
        const body = JSON.stringify(contractBody(org.organizationId, {}, { label: 5 }));
        const sent = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
        assertError(sent, 400, 3, /parameters\.label/);
        assert.doesNotMatch(sent.json.details[0].fieldViolations[0].description, /missing/);
      });

      test('400 a NUL character or lone surrogate is refused, not a database error', async () => {
        for (const notes of ['a\u0000b', 'x\ud800y']) {
          const body = JSON.stringify(contractBody(org.organizationId, {}, { notes }));
          const sent = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
          assertError(sent, 400, 3, /parameters\.notes/);
        }
      });

      test('401 missing stamp', async () => {
        const body = JSON.stringify(contractBody(org.organizationId));
        assertError(await post(server, SUBMIT_CONTRACT, body, { 'content-type': 'application/json' }), 401, 16, /stamp/i);
      });

      test('401 a signature over other bytes', async () => {
        const body = JSON.stringify(contractBody(org.organizationId));
        const headers = await stamped(org, body);
        // Same JSON meaning, one more space: the stamp is over bytes, not over parsed JSON.
        const sent = await post(server, SUBMIT_CONTRACT, body.replace('{', '{ '), headers);
        assertError(sent, 401, 16, /signature/i);
      });

      test('401 unknown API key', async () => {
        const stranger = await server.admin('POST', '/organizations', { name: 'Stranger' });
        await server.admin('DELETE', `/organizations/${stranger.organizationId}/api-keys/${stranger.apiKeyId}`);
        const { generateApiKeyPair } = await import('../src/admin/organizations.ts');
        const body = JSON.stringify(contractBody(org.organizationId));
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(generateApiKeyPair(), body)), 401, 16, /unknown/i);
      });

      test('401 revoked key, at once', async () => {
        const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: org.userId, name: 'short-lived' });
        const ok = JSON.stringify(contractBody(org.organizationId, {}, { label: 'before revoke' }));
        assert.equal((await post(server, SUBMIT_CONTRACT, ok, await stamped(key, ok))).status, 200);
        await server.admin('DELETE', `/organizations/${org.organizationId}/api-keys/${key.apiKeyId}`);
        const body = JSON.stringify(contractBody(org.organizationId, {}, { label: 'after revoke' }));
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(key, body)), 401, 16, /revoked/i);
      });

      test('401 expired key', async () => {
        const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: org.userId, expiresInSeconds: 1 });
        await server.db.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [key.apiKeyId]);
        const body = JSON.stringify(contractBody(org.organizationId));
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(key, body)), 401, 16, /expired/i);
      });

      test('401 stale timestampMs', async () => {
        const body = JSON.stringify(contractBody(org.organizationId, { timestampMs: String(Date.now() + 6 * 60_000) }));
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(org, body)), 401, 16, /timestampMs/);
      });

      test('403 a valid key of another organization creates nothing', async () => {
        const other = await server.createOrganization('Other');
        const before = await count(server, 'activities');
        const body = JSON.stringify(contractBody(org.organizationId, {}, { label: 'cross-tenant' }));
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(other, body)), 403, 7, /organization/);
        assert.equal(await count(server, 'activities'), before);
      });

      test('404 unknown path', async () => {
        const body = JSON.stringify(contractBody(org.organizationId));
        assertError(await post(server, '/public/v1/submit/launch_rocket', body, await stamped(org, body)), 404, 5, /no route/);
      });

      test('413 body over 1 MiB', async () => {
        const body = JSON.stringify(contractBody(org.organizationId, {}, { notes: 'x'.repeat(1024 * 1024) }));
        assertError(await post(server, SUBMIT_CONTRACT, body, await stamped(org, body)), 413, 3, /larger than the limit of 1048576 bytes/);
      });

      test('415 not application/json', async () => {
        const body = JSON.stringify(contractBody(org.organizationId));
        const headers = { ...(await stamped(org, body)), 'content-type': 'text/plain' };
        assertError(await post(server, SUBMIT_CONTRACT, body, headers), 415, 3, /application\/json/);
      });
    });
  });

  describe(`liveness window (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    before(async () => {
      server = await startTestServer(tdb, { SIGNET_TIMESTAMP_TOLERANCE_MS: '1000' });
      org = await server.createOrganization();
    });
    after(() => server.close());

    test('a stored activity is answered after its window closed (polling); a new body is not', async () => {
      const timestampMs = String(Date.now() - 700);
      const body = JSON.stringify(contractBody(org.organizationId, { timestampMs }, { label: 'poll' }));
      const first = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
      assert.equal(first.status, 200, JSON.stringify(first.json));
      server.clock.advance(400);
      const again = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
      assert.equal(again.status, 200);
      assert.equal(again.json.activity.id, first.json.activity.id);
      const fresh = JSON.stringify(contractBody(org.organizationId, { timestampMs }, { label: 'new' }));
      assertError(await post(server, SUBMIT_CONTRACT, fresh, await stamped(org, fresh)), 401, 16, /±1000 ms/);
    });
  });

  describe(`a failing activity leaves nothing behind (${tdb.name})`, () => {
    // A handler whose rows fail part-way when written: the engine's one statement must take everything back.
    const failing: ActivityHandler = {
      ...activityHandlers.find((h) => h.path === 'create_smart_contract_interface')!,
      parameters: z.strictObject({ label: z.string() }),
      async execute(context) {
        const row = {
          organizationId: context.organizationId,
          smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
          smartContractInterface: '[]',
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
          label: 'half',
          notes: '',
          digest: 'sha256:00',
          createdAt: context.now,
        } as const;
        return {
          result: {},
          // The second row's id is no UUID: PostgreSQL refuses it once the first row is written.
          effects: [write('insertSmartContractInterface', { ...row, id: randomUUID() }), write('insertSmartContractInterface', { ...row, id: 'not-a-uuid' })],
        };
      },
    };
    let server: TestServer;
    let org: Credentials;
    before(async () => {
      server = await startTestServer(tdb, {}, { handlers: [failing] });
      org = await server.createOrganization();
    });
    after(() => server.close());

    test('500 with a retryable message, no activity, no vote, no interface row', async () => {
      const body = JSON.stringify({ ...contractBody(org.organizationId), parameters: { label: 'x' } });
      const sent = await post(server, SUBMIT_CONTRACT, body, await stamped(org, body));
      assertError(sent, 500, 13, /nothing was stored/);
      assert.doesNotMatch(JSON.stringify(sent.json), /invalid input syntax|not-a-uuid/);
      assert.equal(await count(server, 'activities'), 0);
      assert.equal(await count(server, 'votes'), 0, 'no vote');
      assert.equal(await count(server, 'smart_contract_interfaces'), 0);
    });
  });
}

function createPublicKeyFromCompressed(hex: string) {
  return createPublicKey({
    key: Buffer.concat([Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex'), Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}
