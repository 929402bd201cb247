// A vote stamped with a passkey keeps what the passkey signed: the assertion's authenticatorData and
// clientDataJSON come back in the vote (the submitter's and an approval), and with the vote's own
// message and public key they are enough to check its signature, as anyone holding the vote would.
import assert from 'node:assert/strict';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TurnkeyClient } from '@turnkey/http';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { createSoftwareAuthenticator, webauthnStamperFor, type SoftwareAuthenticator } from './support/softwareAuthenticator.ts';
import { envelope } from './support/envelopes.ts';

const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';

interface Vote {
  userId: string;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  authenticatorData?: string;
  clientDataJson?: string;
}


const createInterface = (organizationId: string, label: string) =>
  envelope('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId, {
    smartContractAddress: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    smartContractInterface: JSON.stringify({ version: '0.1.0', name: 'token', instructions: [] }),
    type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' as const,
    label,
  });

/** Why the passkey vote's signature does not hold, or undefined when it does: checked from the vote alone. */
function passkeyVoteProblem(vote: Vote): string | undefined {
  if (vote.authenticatorData === undefined || vote.clientDataJson === undefined) return 'the vote lacks authenticatorData or clientDataJson';
  const clientDataBytes = Buffer.from(vote.clientDataJson, 'base64url');
  const clientData = JSON.parse(clientDataBytes.toString('utf8')) as { type: string; challenge: string };
  if (clientData.type !== 'webauthn.get') return `clientData.type is ${clientData.type}`;
  const messageHash = createHash('sha256').update(vote.message, 'utf8').digest('hex');
  if (clientData.challenge !== Buffer.from(messageHash, 'utf8').toString('base64url')) return 'the challenge is not the hash of the message';
  const coseKey = decodeCredentialPublicKey(new Uint8Array(Buffer.from(vote.publicKey, 'hex')));
  assert.ok(cose.isCOSEPublicKeyEC2(coseKey));
  const x = Buffer.from(coseKey.get(cose.COSEKEYS.x)!).toString('base64url');
  const y = Buffer.from(coseKey.get(cose.COSEKEYS.y)!).toString('base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x, y }, format: 'jwk' });
  const signed = Buffer.concat([Buffer.from(vote.authenticatorData, 'base64url'), createHash('sha256').update(clientDataBytes).digest()]);
  return verify('sha256', signed, { key, dsaEncoding: 'der' }, Buffer.from(vote.signature, 'base64url')) ? undefined : 'the signature does not verify';
}

for (const tdb of testDatabases) {
  describe(`a passkey vote keeps what the passkey signed (${tdb.name})`, () => {
    let server: TestServer;
    let root: Credentials;
    let approver: { userId: string; authenticator: SoftwareAuthenticator; client: TurnkeyClient };

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN });
      root = await server.createOrganization('Passkey votes');
      const { userId } = await server.admin('POST', `/organizations/${root.organizationId}/users`, { userName: 'Pia' });
      const authenticator = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      await server.admin('POST', `/organizations/${root.organizationId}/users/${userId}/authenticators`, {
        name: 'Pia passkey',
        challenge,
        attestation: authenticator.register(challenge),
      });
      approver = { userId, authenticator, client: new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(authenticator) as any) };
    });
    after(() => server?.close());

    test("the submitter's passkey vote returns authenticatorData and clientDataJson, and they verify", async () => {
      await server.admin('PUT', `/organizations/${root.organizationId}/root-quorum`, { threshold: 1, userIds: [root.userId, approver.userId] });
      const { activity } = (await approver.client.createSmartContractInterface(createInterface(root.organizationId, 'by passkey'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const [vote] = activity.votes as Vote[];
      assert.equal(vote!.scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.match(vote!.authenticatorData ?? '', /^[A-Za-z0-9_-]{50,}$/);
      assert.match(vote!.clientDataJson ?? '', /^[A-Za-z0-9_-]+$/);
      assert.equal(passkeyVoteProblem(vote!), undefined);

      // The same as read back later, and as a tampered copy no longer verifies.
      const { activity: read } = (await server.client(root).getActivity({ organizationId: root.organizationId, activityId: activity.id })) as any;
      assert.deepEqual(read.votes[0], vote);
      assert.equal(passkeyVoteProblem({ ...vote!, message: vote!.message.replace('by passkey', 'by someone') }), 'the challenge is not the hash of the message');
      const data = Buffer.from(vote!.authenticatorData!, 'base64url');
      data[data.length - 1]! ^= 1; // the counter's last byte
      assert.equal(passkeyVoteProblem({ ...vote!, authenticatorData: data.toString('base64url') }), 'the signature does not verify');
    });

    test('an approval stamped with a passkey keeps them too; an API-key vote has neither field', async () => {
      await server.admin('PUT', `/organizations/${root.organizationId}/root-quorum`, { threshold: 2, userIds: [root.userId, approver.userId] });
      const { activity } = (await server.client(root).createSmartContractInterface(createInterface(root.organizationId, 'needs Pia'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(activity.votes[0].authenticatorData, undefined);
      assert.equal(activity.votes[0].clientDataJson, undefined);

      const approve = envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', root.organizationId, { fingerprint: activity.fingerprint });
      const { activity: approved } = (await approver.client.approveActivity(approve)) as any;
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      const [submitted, approval] = approved.votes as Vote[];
      assert.equal(submitted!.scheme, 'SIGNATURE_SCHEME_TK_API_P256');
      assert.ok(!('authenticatorData' in submitted!) && !('clientDataJson' in submitted!));
      assert.equal(approval!.userId, approver.userId);
      assert.equal(approval!.scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.equal(JSON.parse(approval!.message).type, 'ACTIVITY_TYPE_APPROVE_ACTIVITY');
      assert.equal(passkeyVoteProblem(approval!), undefined);

      const { activity: read } = (await server.client(root).getActivity({ organizationId: root.organizationId, activityId: activity.id })) as any;
      assert.deepEqual(read.votes[1], approval);
    });

    test('a passkey vote written before they were kept answers without them', async () => {
      const { activity } = (await approver.client.createSmartContractInterface(createInterface(root.organizationId, 'older'))) as any;
      await server.db.query('UPDATE votes SET authenticator_data = NULL, client_data_json = NULL WHERE activity_id = $1', [activity.id]);
      const { activity: read } = (await server.client(root).getActivity({ organizationId: root.organizationId, activityId: activity.id })) as any;
      assert.equal(read.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.ok(!('authenticatorData' in read.votes[0]) && !('clientDataJson' in read.votes[0]));
    });
  });
}
