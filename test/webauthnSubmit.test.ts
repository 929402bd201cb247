// Passkey stamps end to end: an authenticator registered through the admin API from a real
// registration response, then activities stamped by the real @turnkey/webauthn-stamper.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TurnkeyClient } from '@turnkey/http';
import { testDatabases } from './support/databases.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { createSoftwareAuthenticator, webauthnStamperFor, type SoftwareAuthenticator } from './support/softwareAuthenticator.ts';

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

    test('a registration made for another challenge is refused', async () => {
      const other = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const response = await fetch(`${server.baseUrl}/admin/v1/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x', challenge: randomBytes(32).toString('base64url'), attestation: other.register(randomBytes(32).toString('base64url')) }),
      });
      assert.equal(response.status, 400);
    });
  });
}
