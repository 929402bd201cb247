// App Proofs: generateAppProofs: true yields a proof signed by the service's proof key, served by
// get_app_proofs and get_app_proof_keys; `signet proof verify` checks a saved activity offline and
// fails after any change.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { appProofProblems, canonicalJson } from '../src/activities/appProofs.ts';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

test('canonical JSON sorts keys at every level', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
});

for (const tdb of testDatabases) {
  describe(`App Proofs (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let saved: any;
    let dir: string;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Proven');
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-proofs-'));
    });
    after(async () => {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('only with generateAppProofs: true, and bound to the activity', async () => {
      const client = server.client(org);
      const body = (label: string, generateAppProofs?: boolean) => ({
        type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE' as const,
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' as const, label },
        ...(generateAppProofs === undefined ? {} : { generateAppProofs }),
      });
      const plain = (await client.createSmartContractInterface(body('plain'))) as any;
      assert.equal('appProofs' in plain.activity, false);

      saved = await client.createSmartContractInterface(body('proven', true));
      const [proof] = saved.activity.appProofs;
      assert.equal(proof.scheme, 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256');
      assert.match(proof.publicKey, /^0[23][0-9a-f]{64}$/);
      const payload = JSON.parse(proof.proofPayload);
      assert.equal(payload.activityId, saved.activity.id);
      assert.equal(payload.organizationId, org.organizationId);
      assert.equal(payload.fingerprint, saved.activity.fingerprint);
      assert.match(payload.resultDigest, /^sha256:[0-9a-f]{64}$/);

      const keys = (await fetchQuery('get_app_proof_keys', { organizationId: org.organizationId })) as any;
      assert.deepEqual(keys.appProofKeys.map((k: any) => k.publicKey), [proof.publicKey]);
      const fetched = (await client.getAppProofs({ organizationId: org.organizationId, activityId: saved.activity.id })) as any;
      assert.deepEqual(fetched.appProofs, saved.activity.appProofs);
      // Read back from the store, the activity still verifies (its result was stored as jsonb).
      const again = (await client.getActivity({ organizationId: org.organizationId, activityId: saved.activity.id })) as any;
      const result = again.activity.result.createSmartContractInterfaceResult;
      assert.deepEqual(appProofProblems({ ...again.activity, result }, again.activity.appProofs), []);
    });

    test('signet proof verify accepts the saved activity and refuses any change', async () => {
      const file = path.join(dir, 'activity.json');
      fs.writeFileSync(file, JSON.stringify(saved, null, 2));
      const [proof] = saved.activity.appProofs;
      const ok = await signet(['proof', 'verify', file, '--key', proof.publicKey], {});
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      assert.match(ok.stdout, /^valid: activity/);

      const untrusted = await signet(['proof', 'verify', file, '--key', '02' + 'ab'.repeat(32)], {});
      assert.equal(untrusted.code, 1);
      assert.match(untrusted.stdout, /not a trusted proof key/);

      const changes: Array<[string, (a: any) => void]> = [
        ['result', (a) => (a.result.createSmartContractInterfaceResult.smartContractInterfaceId = a.result.createSmartContractInterfaceResult.smartContractInterfaceId.replace(/.$/, (c: string) => (c === '0' ? '1' : '0')))],
        ['fingerprint', (a) => (a.fingerprint = a.fingerprint.replace(/.$/, (c: string) => (c === '0' ? '1' : '0')))],
        ['timestampMs', (a) => (a.timestampMs = String(Number(a.timestampMs) + 1))],
        ['signature', (a) => (a.appProofs[0].signature = a.appProofs[0].signature.replace(/.$/, (c: string) => (c === '0' ? '1' : '0')))],
        ['proofPayload', (a) => (a.appProofs[0].proofPayload = a.appProofs[0].proofPayload.replace('"activityId"', '"activityId" '))],
      ];
      for (const [what, change] of changes) {
        const copy = structuredClone(saved);
        change(copy.activity);
        fs.writeFileSync(file, JSON.stringify(copy));
        const result = await signet(['proof', 'verify', file], {});
        assert.equal(result.code, 1, `a changed ${what} must fail`);
        assert.match(result.stdout, /^INVALID/);
      }
    });

    async function fetchQuery(name: string, body: object) {
      const { ApiKeyStamper } = await import('@turnkey/api-key-stamper');
      const raw = JSON.stringify(body);
      const stamp = await new ApiKeyStamper(org).stamp(raw);
      const response = await fetch(`${server.baseUrl}/public/v1/query/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body: raw,
      });
      assert.equal(response.status, 200);
      return response.json();
    }
  });
}
