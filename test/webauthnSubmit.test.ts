// Passkey stamps end to end: an authenticator registered through the admin API from a real
// registration response, then activities stamped by the real @turnkey/webauthn-stamper.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TurnkeyClient } from '@turnkey/http';
import { testDatabases } from './support/databases.ts';
import { hasEveryShape, nonCanonicalEncodings } from './support/derEncodings.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { createSoftwareAuthenticator, v1Attestation, webauthnStamperFor, type SoftwareAuthenticator } from './support/softwareAuthenticator.ts';

const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';

function body(organizationId: string, label: string) {
  return {
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE' as const,
    timestampMs: String(Date.now()),
    organizationId,
    parameters: {
      smartContractAddress: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      smartContractInterface: JSON.stringify({ version: '0.1.0', name: 'token', instructions: [{ name: 'transfer', accounts: [], args: [{ name: 'amount', type: 'u64' }] }] }),
      type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' as const,
      label,
    },
  };
}

for (const tdb of testDatabases) {
  describe(`WebAuthn stamps through HTTP (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let authenticator: SoftwareAuthenticator;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN });
      org = await server.createOrganization('Passkeys');
      authenticator = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      const registered = await server.admin('POST', `/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
        name: 'laptop passkey',
        challenge,
        attestation: authenticator.register(challenge),
      });
      assert.equal(registered.credentialId, authenticator.credentialId);
    });
    after(() => server.close());

    test('the real WebAuthn stamper submits; the vote records the passkey', async () => {
      const client = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(authenticator) as any);
      const { activity } = (await client.createSmartContractInterface(body(org.organizationId, 'via passkey'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.equal(activity.votes[0].userId, org.userId);
      const [row] = await server.db.query<{ sign_count: number }>('SELECT sign_count FROM authenticators WHERE credential_id = $1', [authenticator.credentialId]);
      assert.ok(row!.sign_count > 0, 'the counter advanced');
    });

    test('replaying the same assertion is refused', async () => {
      const raw = JSON.stringify(body(org.organizationId, 'replayed'));
      const stamp = await webauthnStamperFor(authenticator).stamp(raw);
      const send = () =>
        fetch(`${server.baseUrl}/public/v1/submit/create_smart_contract_interface`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
          body: raw,
        });
      assert.equal((await send()).status, 200);
      const replay = await send();
      assert.equal(replay.status, 401);
      assert.match(((await replay.json()) as any).message, /counter|replay/i);
    });

    test('a signature re-encoded in anything but strict DER is refused with 401, and nothing is created', async () => {
      const raw = JSON.stringify(body(org.organizationId, 'malleated'));
      const stamper = webauthnStamperFor(authenticator);
      let stamp: Record<string, string> | undefined;
      // About one signature in four has the shape every re-encoding needs.
      for (let attempt = 0; attempt < 200 && !stamp; attempt++) {
        const candidate = JSON.parse((await stamper.stamp(raw)).stampHeaderValue) as Record<string, string>;
        if (hasEveryShape(Buffer.from(candidate.signature!, 'base64url'))) stamp = candidate;
      }
      assert.ok(stamp, 'no signature of the wanted shape in 200 attempts');
      const send = (signature: string) =>
        fetch(`${server.baseUrl}/public/v1/submit/create_smart_contract_interface`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-Stamp-Webauthn': JSON.stringify({ ...stamp, signature }) },
          body: raw,
        });
      for (const { name, signature, problem } of nonCanonicalEncodings(Buffer.from(stamp.signature!, 'base64url'))) {
        const response = await send(signature.toString('base64url'));
        assert.equal(response.status, 401, name);
        const { code, message } = (await response.json()) as { code: number; message: string };
        assert.equal(code, 16, name); // UNAUTHENTICATED
        assert.ok(message.startsWith(`WebAuthn signature is not a strict DER ECDSA signature (${problem})`), `${name}: ${message}`);
      }
      const fingerprint = `sha256:${createHash('sha256').update(raw).digest('hex')}`;
      const [stored] = await server.db.query<{ count: number }>('SELECT count(*)::int AS count FROM activities WHERE fingerprint = $1', [fingerprint]);
      assert.equal(stored!.count, 0, 'no refused encoding created the activity');
      assert.equal((await send(stamp.signature!)).status, 200, 'the signature as the authenticator made it is accepted');
    });

    test('a registration made for another challenge is refused', async () => {
      const other = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const response = await fetch(`${server.baseUrl}/admin/v1/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', challenge: randomBytes(32).toString('base64url'), attestation: other.register(randomBytes(32).toString('base64url')) }),
      });
      assert.equal(response.status, 400);
    });

    test("a passkey registered in the ecosystem's shape (createUserPasskey) stamps; its transports are stored as W3C values", async () => {
      const phone = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      const registered = await server.admin('POST', `/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
        name: 'phone passkey',
        challenge,
        attestation: v1Attestation(phone.register(challenge)),
      });
      assert.equal(registered.credentialId, phone.credentialId);
      const [row] = await server.db.query<{ transports: string[] }>('SELECT transports FROM authenticators WHERE credential_id = $1', [phone.credentialId]);
      assert.deepEqual(row!.transports, ['internal', 'hybrid']);

      const client = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(phone) as any);
      const { activity } = (await client.createSmartContractInterface(body(org.organizationId, 'via phone passkey'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
    });

    test('an RS256 (RSA) passkey, as Windows Hello makes, registers and stamps; its altered signature is refused with 401', async () => {
      const hello = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN, algorithm: 'RS256' });
      const challenge = randomBytes(32).toString('base64url');
      const registered = await server.admin('POST', `/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
        name: 'Windows Hello',
        challenge,
        attestation: v1Attestation(hello.register(challenge)),
      });
      assert.equal(registered.credentialId, hello.credentialId);
      const client = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(hello) as any);
      const { activity } = (await client.createSmartContractInterface(body(org.organizationId, 'via Windows Hello'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.equal(Buffer.from(activity.votes[0].signature, 'base64url').length, 256, 'a 2048-bit RSA signature, not DER');

      const raw = JSON.stringify(body(org.organizationId, 'altered'));
      const stamp = JSON.parse((await webauthnStamperFor(hello).stamp(raw)).stampHeaderValue) as Record<string, string>;
      const signature = Buffer.from(stamp.signature!, 'base64url');
      signature[10]! ^= 0x01;
      const answer = await fetch(`${server.baseUrl}/public/v1/submit/create_smart_contract_interface`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Stamp-WebAuthn': JSON.stringify({ ...stamp, signature: signature.toString('base64url') }) },
        body: raw,
      });
      assert.equal(answer.status, 401);
      assert.match(((await answer.json()) as { message: string }).message, /^bad signature/);
    });
  });
}
