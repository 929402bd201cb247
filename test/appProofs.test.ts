// App Proofs: generateAppProofs: true yields a proof signed by the service's proof key in the
// encoding @turnkey/crypto's verifyAppProofSignature checks, served by get_app_proofs and
// get_app_proof_keys; `signet proof verify` checks a saved activity offline and fails after any change.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyAppProofSignature } from '@turnkey/crypto';
import { appProofKeyList, appProofProblems, canonicalJson, createAppProof, type AppProof, type ProvenActivity } from '../src/activities/lifecycle/appProofs.ts';
import type { ServiceKeys } from '../src/activities/lifecycle/serviceKeys.ts';
import { compressedPublicKeyHex, uncompressedPublicKeyHex } from '../src/keys/p256.ts';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

test('canonical JSON sorts keys at every level', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
});

/** A service key store holding one proof key, as the engine's ServiceKeys would hand it out. */
function proofKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };
  const keys = { get: async () => ({ kid: randomUUID(), privateKey, publicJwk }) } as unknown as ServiceKeys;
  return { keys, privateKey, publicKey, publicJwk };
}

const activity: ProvenActivity = {
  id: randomUUID(),
  type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
  organizationId: randomUUID(),
  fingerprint: 'sha256:' + 'ab'.repeat(32),
  timestampMs: '1760000000000',
  result: { smartContractInterfaceId: randomUUID() },
};

const flipLast = (text: string) => text.replace(/.$/, (c) => (c === '0' ? '1' : '0'));

test("@turnkey/crypto's verifyAppProofSignature accepts a proof and refuses it after a changed byte", async () => {
  const { keys, publicKey } = proofKeys();
  const proof = await createAppProof(keys, activity);
  const point = uncompressedPublicKeyHex(publicKey);
  assert.equal(proof.scheme, 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256');
  assert.equal(proof.publicKey, point + point);
  assert.match(proof.signature, /^[0-9a-f]{128}$/);
  assert.deepEqual(JSON.parse(proof.proofPayload), {
    type: 'APP_PROOF_TYPE_ACTIVITY_RESULT',
    timestampMs: activity.timestampMs,
    activityResultProof: {
      activityId: activity.id,
      activityType: activity.type,
      organizationId: activity.organizationId,
      fingerprint: activity.fingerprint,
      resultDigest: 'sha256:' + createHash('sha256').update(canonicalJson(activity.result)).digest('hex'),
    },
  });
  verifyAppProofSignature(proof);
  assert.throws(() => verifyAppProofSignature({ ...proof, proofPayload: proof.proofPayload.replace('"activityId"', '"activityId" ') }), /signature verification failed/i);
  assert.throws(() => verifyAppProofSignature({ ...proof, signature: flipLast(proof.signature) }), /signature verification failed/i);
  assert.deepEqual(appProofProblems(activity, [proof]), []);
});

test('a proof names its key the way get_app_proof_keys lists it, and --key may also give the signing key alone', async () => {
  const { keys, publicKey, publicJwk } = proofKeys();
  const proof = await createAppProof(keys, activity);
  const [listed] = appProofKeyList([{ publicJwk, createdAt: new Date() }]);
  assert.equal(listed!.publicKey, proof.publicKey);
  for (const trusted of [proof.publicKey, proof.publicKey.toUpperCase(), uncompressedPublicKeyHex(publicKey), compressedPublicKeyHex(publicKey)]) {
    assert.deepEqual(appProofProblems(activity, [proof], [trusted]), [], trusted);
  }
  const other = proofKeys();
  const [otherKey] = appProofKeyList([{ publicJwk: other.publicJwk, createdAt: new Date() }]);
  assert.match(appProofProblems(activity, [proof], [otherKey!.publicKey, 'not a key']).join(), /not a trusted proof key/);
  // The first half is Signet's own signing key again; another point there is not a proof of this service.
  const mixed = { ...proof, publicKey: otherKey!.publicKey.slice(0, 130) + proof.publicKey.slice(130) };
  verifyAppProofSignature(mixed); // the library reads only the second half
  assert.match(appProofProblems(activity, [mixed]).join(), /the uncompressed P-256 proof key twice/);
  // A DER signature is not the encoding.
  const der = { ...proof, signature: sign('sha256', Buffer.from(proof.proofPayload), { key: (await keys.get('app-proof')).privateKey, dsaEncoding: 'der' }).toString('hex') };
  assert.match(appProofProblems(activity, [der]).join(), /signature does not verify/);
});

test('proofs in the earlier encoding (compressed key, DER signature) still verify', async () => {
  const { privateKey, publicKey } = proofKeys();
  const payload = JSON.stringify({
    activityId: activity.id,
    activityType: activity.type,
    organizationId: activity.organizationId,
    fingerprint: activity.fingerprint,
    timestampMs: activity.timestampMs,
    resultDigest: 'sha256:' + createHash('sha256').update(canonicalJson(activity.result)).digest('hex'),
  });
  const earlier: AppProof = {
    scheme: 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256',
    publicKey: compressedPublicKeyHex(publicKey),
    proofPayload: payload,
    signature: sign('sha256', Buffer.from(payload), { key: privateKey, dsaEncoding: 'der' }).toString('hex'),
  };
  assert.deepEqual(appProofProblems(activity, [earlier], [earlier.publicKey]), []);
  assert.match(appProofProblems({ ...activity, timestampMs: '1760000000001' }, [earlier]).join(), /proofPayload does not match/);
  assert.match(appProofProblems(activity, [{ ...earlier, signature: flipLast(earlier.signature) }]).join(), /signature does not verify/);
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
      assert.match(proof.publicKey, /^(04[0-9a-f]{128})\1$/);
      verifyAppProofSignature(proof);
      const payload = JSON.parse(proof.proofPayload);
      assert.equal(payload.type, 'APP_PROOF_TYPE_ACTIVITY_RESULT');
      assert.equal(payload.timestampMs, saved.activity.timestampMs);
      assert.equal(payload.activityResultProof.activityId, saved.activity.id);
      assert.equal(payload.activityResultProof.organizationId, org.organizationId);
      assert.equal(payload.activityResultProof.fingerprint, saved.activity.fingerprint);
      assert.match(payload.activityResultProof.resultDigest, /^sha256:[0-9a-f]{64}$/);

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
      // The signing key alone, compressed, names the same key.
      const compressed = (Number.parseInt(proof.publicKey.slice(258), 16) & 1 ? '03' : '02') + proof.publicKey.slice(132, 196);
      const byCompressed = await signet(['proof', 'verify', file, '--key', compressed], {});
      assert.equal(byCompressed.code, 0, byCompressed.stdout + byCompressed.stderr);

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
