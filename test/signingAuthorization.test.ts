// Who may sign, through @turnkey/http's own TurnkeyClient and the real HTTP stack: a user who is not
// the root quorum and whom no policy allows is refused sign_raw_payload, sign_raw_payloads and
// create_wallet (403, nothing stored); a policy `activity.resource == 'PRIVATE_KEY' && activity.action
// == 'SIGN'` lets it sign, and only sign. With a root quorum of two, a signature waits
// (CONSENSUS_NEEDED, nothing signed), the approval that allows it signs it once (the result in the
// activity), a later approval is refused, and two approvals racing (in two processes on PostgreSQL)
// sign once: one answer carries the signature, the other is refused, the store has one completed
// activity with one approval. A request the account could never sign is refused at submission (400 or
// 404, nothing stored), even when the activity would have waited for approvals; the check is made
// again at the approval that executes it, which fails it, unsigned, when the account is gone meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { keccak256, recoverAddress, toBytes, type Hex } from 'viem';
import { ACTIVITY_RESOURCES } from '../src/policy/activityResources.ts';
import { startServer } from '../src/server.ts';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;

type User = Credentials & { client: TurnkeyClient };

/** The signer viem recovers from a secp256k1 answer over `hash`. */
function signerOf(hash: Hex, signature: { r: string; s: string; v: string }) {
  return recoverAddress({ hash, signature: { r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: Number(signature.v) } });
}

/** sign_raw_payload of a 32-byte digest, as @turnkey/viem sends a hash. */
const digestBody = (organizationId: string, signWith: string, hash: Hex) =>
  envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId, { signWith, payload: hash, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' });

for (const tdb of testDatabases) {
  describe(`who may sign (${tdb.name})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
    });
    after(() => server.close());

    /** An organization with a wallet (an Ethereum and a Solana account) made by its root user, and users who are not in its root quorum. */
    async function organization(name: string, others: string[]) {
      const root = await server.createOrganization(name);
      const rootUser: User = { ...root, client: server.client(root) };
      const answer = (await rootUser.client.createWallet(
        envelope('ACTIVITY_TYPE_CREATE_WALLET', root.organizationId, { walletName: `${name} wallet`, accounts: [ETHEREUM, SOLANA] }) as any,
      )) as any;
      const [ethereum, solana] = answer.activity.result.createWalletResult.addresses as [string, string];
      const users: User[] = [];
      for (const userName of others) {
        const { userId } = await server.admin('POST', `/organizations/${root.organizationId}/users`, { userName });
        const key = await server.admin('POST', `/organizations/${root.organizationId}/api-keys`, { userId });
        const credentials = { organizationId: root.organizationId, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
        users.push({ ...credentials, client: server.client(credentials) });
      }
      return { root: rootUser, users, ethereum, solana, walletId: answer.activity.result.createWalletResult.walletId as string };
    }

    const activitiesOf = (organizationId: string) =>
      server.db.query<{ type: string; status: string; fingerprint: string }>('SELECT type, status, fingerprint FROM activities WHERE organization_id = $1 ORDER BY created_at', [
        organizationId,
      ]);

    test('a user who is not the root quorum and whom no policy allows is refused signing and creating a wallet (403); nothing is stored', async () => {
      const { root, users, ethereum } = await organization('Nobody allows', ['member']);
      const member = users[0]!;
      const { organizationId } = root;
      const stored = (await activitiesOf(organizationId)).length;
      const implicit = /is not allowed for user .* no policy of organization .* allows it \(implicit deny\); nothing was stored/;
      await refused(member.client.signRawPayload(digestBody(organizationId, ethereum, keccak256(toBytes('not allowed'))) as any), PERMISSION_DENIED, implicit);
      await refused(
        member.client.signRawPayloads(
          envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', organizationId, { signWith: ethereum, payloads: ['0x01'], encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }) as any,
        ),
        PERMISSION_DENIED,
        implicit,
      );
      await refused(
        member.client.createWallet(envelope('ACTIVITY_TYPE_CREATE_WALLET', organizationId, { walletName: 'Not allowed', accounts: [ETHEREUM] }) as any),
        PERMISSION_DENIED,
        implicit,
      );
      assert.equal((await activitiesOf(organizationId)).length, stored, 'no refused activity is stored');
      const wallets = await server.db.query('SELECT 1 FROM wallets WHERE organization_id = $1', [organizationId]);
      assert.equal(wallets.length, 1, 'only the root user made a wallet');
    });

    test("a policy allowing PRIVATE_KEY SIGN lets the user sign alone, and nothing else; WALLET CREATE lets it create wallets and accounts", async () => {
      const { root, users, ethereum, walletId } = await organization('Signing allowed', ['signer']);
      const signer = users[0]!;
      const { organizationId } = root;
      const allow = async (policyName: string, condition: string) => {
        const { activity } = (await root.client.createPolicy(
          envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, { policyName, effect: 'EFFECT_ALLOW', condition, notes: '' }),
        )) as any;
        assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      };
      await allow('signers sign', "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'");

      const hash = keccak256(toBytes('allowed by a policy'));
      const { activity } = (await signer.client.signRawPayload(digestBody(organizationId, ethereum, hash) as any)) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(await signerOf(hash, activity.result.signRawPayloadResult), ethereum);
      const { activity: many } = (await signer.client.signRawPayloads(
        envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', organizationId, { signWith: ethereum, payloads: [hash], encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' }) as any,
      )) as any;
      assert.equal(many.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(many.result.signRawPayloadsResult.signatures, [activity.result.signRawPayloadResult]);
      const { policyEvaluations } = (await signer.client.getPolicyEvaluations({ organizationId, activityId: activity.id } as any)) as any;
      assert.deepEqual(
        policyEvaluations[0].policyEvaluations.map((e: any) => e.outcome),
        ['OUTCOME_ALLOW'],
      );

      // Signing is not creating: the wallet activities stay the root quorum's.
      const walletBody = envelope('ACTIVITY_TYPE_CREATE_WALLET', organizationId, { walletName: 'By the signer', accounts: [ETHEREUM] });
      await refused(signer.client.createWallet(walletBody as any), PERMISSION_DENIED, /implicit deny/);
      await allow('signers create wallets', "activity.resource == 'WALLET' && activity.action == 'CREATE'");
      const { activity: created } = (await signer.client.createWallet({ ...walletBody, timestampMs: String(Date.now() + 1) } as any)) as any;
      assert.equal(created.status, 'ACTIVITY_STATUS_COMPLETED');
      const { activity: accounts } = (await signer.client.createWalletAccounts(
        envelope('ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', organizationId, { walletId, accounts: [{ ...ETHEREUM, path: "m/44'/60'/0'/0/1" }] }) as any,
      )) as any;
      assert.equal(accounts.status, 'ACTIVITY_STATUS_COMPLETED');
    });

    test('the wallet activities are WALLET CREATE and PRIVATE_KEY SIGN to policies, as the ecosystem classes them', () => {
      assert.deepEqual(ACTIVITY_RESOURCES.CREATE_WALLET, { resource: 'WALLET', action: 'CREATE' });
      assert.deepEqual(ACTIVITY_RESOURCES.CREATE_WALLET_ACCOUNTS, { resource: 'WALLET', action: 'CREATE' });
      assert.deepEqual(ACTIVITY_RESOURCES.SIGN_RAW_PAYLOAD, { resource: 'PRIVATE_KEY', action: 'SIGN' });
      assert.deepEqual(ACTIVITY_RESOURCES.SIGN_RAW_PAYLOADS, { resource: 'PRIVATE_KEY', action: 'SIGN' });
    });

    /** An organization whose root quorum is its root user, alice and bob, threshold 2. */
    async function quorumOfTwo(name: string) {
      const made = await organization(name, ['alice', 'bob']);
      const { root, users } = made;
      const { activity } = (await root.client.updateRootQuorum({
        type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
        timestampMs: String(Date.now()),
        organizationId: root.organizationId,
        parameters: { threshold: 2, userIds: [root.userId, ...users.map((u) => u.userId)] },
      })) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      return { ...made, alice: users[0]!, bob: users[1]! };
    }

    const approval = (organizationId: string, fingerprint: string) => envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint });

    test('with a root quorum of two, a signature waits unsigned; the approval that allows it signs it once; a later approval is refused', async () => {
      const { root, alice, bob, ethereum } = await quorumOfTwo('Two to sign');
      const { organizationId } = root;
      const hash = keccak256(toBytes('pay 1 ETH'));
      const { activity: waiting } = (await root.client.signRawPayload(digestBody(organizationId, ethereum, hash) as any)) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      // The wire's result of an activity holds a copy of it (`activity`) beside the result keys: none yet.
      assert.deepEqual(Object.keys(waiting.result), ['activity']);
      const { activity: read } = (await bob.client.getActivity({ organizationId, activityId: waiting.id })) as any;
      assert.equal(read.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(read.result.signRawPayloadResult, undefined, 'nothing is signed while it waits');
      assert.deepEqual(read.result.activity.result, {});
      assert.equal(read.canApprove, true);

      const { activity: approved } = (await alice.client.approveActivity(approval(organizationId, waiting.fingerprint) as any)) as any;
      assert.equal(approved.id, waiting.id);
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      const signature = approved.result.signRawPayloadResult;
      assert.equal(await signerOf(hash, signature), ethereum);

      await refused(bob.client.approveActivity(approval(organizationId, waiting.fingerprint) as any), INVALID_ARGUMENT, /is ACTIVITY_STATUS_COMPLETED: only an activity waiting/, 'parameters.fingerprint');
      const { activity: after } = (await root.client.getActivity({ organizationId, activityId: waiting.id })) as any;
      assert.deepEqual(after.result.signRawPayloadResult, signature);
      assert.deepEqual(
        after.votes.map((v: any) => [v.userId, v.selection]),
        [
          [root.userId, 'VOTE_SELECTION_APPROVED'],
          [alice.userId, 'VOTE_SELECTION_APPROVED'],
        ],
      );
    });

    test('two approvals racing sign once: one answer carries the signature, the other is refused; one completed activity, one approval', async () => {
      const { root, alice, bob, ethereum } = await quorumOfTwo('Raced approvals');
      const { organizationId } = root;
      // On PostgreSQL, bob votes through a second process on the same store.
      const second = tdb.name === 'postgres' ? await startServer({ ...server.config, outboxWorker: false }, { db: server.db }) : undefined;
      try {
        const bobClient = second
          ? new TurnkeyClient({ baseUrl: second.url }, new ApiKeyStamper({ apiPublicKey: bob.apiPublicKey, apiPrivateKey: bob.apiPrivateKey }))
          : bob.client;
        for (const round of [1, 2, 3]) {
          const hash = keccak256(toBytes(`raced payment ${round}`));
          const { activity: waiting } = (await root.client.signRawPayload(digestBody(organizationId, ethereum, hash) as any)) as any;
          assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
          const answers = await Promise.allSettled([
            alice.client.approveActivity(approval(organizationId, waiting.fingerprint) as any),
            bobClient.approveActivity(approval(organizationId, waiting.fingerprint) as any),
          ]);
          const signed = answers.filter((a): a is PromiseFulfilledResult<any> => a.status === 'fulfilled');
          const refusals = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
          assert.equal(signed.length, 1, `round ${round}: one approval executes it (${answers.map((a) => a.status).join(', ')})`);
          assert.equal(refusals.length, 1);
          assert.equal(refusals[0]!.reason.code, INVALID_ARGUMENT, String(refusals[0]!.reason.message));
          assert.match(String(refusals[0]!.reason.message), /is ACTIVITY_STATUS_COMPLETED: only an activity waiting/);
          const { activity } = signed[0]!.value;
          assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
          assert.equal(await signerOf(hash, activity.result.signRawPayloadResult), ethereum);

          const rows = (await activitiesOf(organizationId)).filter((a) => a.fingerprint === waiting.fingerprint);
          assert.deepEqual(
            rows.map((a) => a.status),
            ['ACTIVITY_STATUS_COMPLETED'],
          );
          const votes = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes WHERE activity_id = $1', [waiting.id]);
          assert.equal(votes[0]!.n, 2, 'the submitter and the one approval that executed it');
        }
      } finally {
        await second?.close();
      }
    });

    test('what the account could never sign is refused at submission, even when the activity would wait: nothing stored, nothing waits', async () => {
      const { root, alice, ethereum, solana } = await quorumOfTwo('Refused at submission');
      const { organizationId } = root;
      const stored = (await activitiesOf(organizationId)).length;
      const sign = (parameters: Record<string, unknown>) =>
        root.client.signRawPayload(
          envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId, { signWith: ethereum, payload: '0x01', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256', ...parameters }) as any,
        );
      // The ed25519 account takes neither a hash function nor a typed-data encoding.
      await refused(sign({ signWith: solana }), INVALID_ARGUMENT, /must be HASH_FUNCTION_NOT_APPLICABLE for an ed25519 key/, 'parameters.hashFunction');
      await refused(
        sign({ signWith: solana, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }),
        INVALID_ARGUMENT,
        /PAYLOAD_ENCODING_EIP712 is for secp256k1/,
        'parameters.encoding',
      );
      // The secp256k1 account needs a digest function, and a 32-byte payload without one.
      await refused(sign({ hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }), INVALID_ARGUMENT, /for ed25519 keys/, 'parameters.hashFunction');
      await refused(sign({ hashFunction: 'HASH_FUNCTION_NO_OP' }), INVALID_ARGUMENT, /32-byte digest/, 'parameters.payload');
      await refused(sign({ encoding: 'PAYLOAD_ENCODING_EIP712', payload: '{"types": {}}', hashFunction: 'HASH_FUNCTION_NO_OP' }), INVALID_ARGUMENT, /primaryType/, 'parameters.payload');
      await refused(sign({ signWith: '0x0000000000000000000000000000000000000001' }), NOT_FOUND, /is no wallet account address, private key id or private key address of the organization/);
      await refused(
        root.client.signRawPayloads(
          envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', organizationId, { signWith: ethereum, payloads: ['0x01', '0x0g'], encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }) as any,
        ),
        INVALID_ARGUMENT,
        /even number of hexadecimal digits/,
        'parameters.payloads[1]',
      );
      assert.equal((await activitiesOf(organizationId)).length, stored, 'nothing was stored to wait');

      // A request the account can sign still waits, as before.
      const { activity } = (await sign({ signWith: solana, payload: 'gm', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' })) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

      // The check is made again by the approval that executes it: an account gone meanwhile fails it, unsigned.
      await server.db.query('DELETE FROM wallet_accounts WHERE organization_id = $1 AND address = $2', [organizationId, solana]);
      const { activity: failed } = (await alice.client.approveActivity(approval(organizationId, activity.fingerprint) as any)) as any;
      assert.equal(failed.status, 'ACTIVITY_STATUS_FAILED');
      assert.equal(failed.failure.code, NOT_FOUND);
      assert.match(failed.failure.message, /is no wallet account address, private key id or private key address of the organization/);
      assert.equal(failed.result.signRawPayloadResult, undefined);
    });
  });
}
