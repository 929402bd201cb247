// Policies that read what is signed, through the ecosystem's libraries unmodified against a real
// Signet: @turnkey/http's TurnkeyClient (an ApiKeyStamper per user), @turnkey/sdk-server's API
// client (as a backend signs), @turnkey/viem's account, viem
// building Ethereum transactions and typed data, @solana/web3.js building Solana ones. A user who is
// not the root quorum signs what a policy reading the transaction allows:
// - an ERC-20 transfer under a cap above 2^53 to a listed recipient (the ABI stored by
//   create_smart_contract_interface): signed, viem recovering the signer; over the cap, or to another
//   recipient, refused (403) — the condition written with EIP-55 and with lowercase addresses;
// - approve, which a DENY names, refused though an ALLOW allows every signature (the 403 names the DENY);
// - EIP-712 typed data, signed through @turnkey/viem's signTypedData (which sends the typed data JSON,
//   PAYLOAD_ENCODING_EIP712, HASH_FUNCTION_NO_OP), allowed by primary type, verifying contract and chain;
// - a Solana transfer under a cap (@solana/web3.js SystemProgram.transfer), and an instruction decoded
//   by an Anchor IDL stored for its program, allowed by its instruction name;
// - a large transfer allowed only by two approvers: the submission waits (nothing signed), the
//   second approval signs it once, a later approval is refused;
// - fail closed: function_name of a call to a contract with no ABI stored allows nothing.
// Each case is also asked of the dry run (evaluate_policies), which answers as the submission is
// decided (who could still approve the large transfer, what each signature does in words) and
// stores nothing.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { generateP256KeyPair } from '@turnkey/crypto';
import type { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { createAccount } from '@turnkey/viem';
import {
  createWalletClient,
  encodeFunctionData,
  getAddress,
  getTypesForEIP712Domain,
  http,
  recoverTransactionAddress,
  serializeTransaction,
  serializeTypedData,
  verifyTypedData,
  type Hex,
} from 'viem';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { postStamped } from './support/http.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;

const ERC20_ABI = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
  { type: 'function', name: 'approve', stateMutability: 'nonpayable', inputs: [{ name: 'spender', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
] as const;
const TOKEN = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const UNKNOWN_TOKEN = getAddress('0xdac17f958d2ee523a2206206994597c13d831ec7');
const ALICE = getAddress('0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7');
const BOB = getAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed');
const MALLORY = getAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359');
/** Base units: above 2^53, so a rounded comparison would not tell the cap from one more. */
const CAP = 10n ** 21n;
const BLOCKHASH = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';

type User = Credentials & { client: TurnkeyClient };

const transferData = (functionName: 'transfer' | 'approve', to: Hex, amount: bigint) => encodeFunctionData({ abi: ERC20_ABI, functionName, args: [to, amount] });
const tokenCall = (functionName: 'transfer' | 'approve', to: Hex, amount: bigint, token: Hex = TOKEN) =>
  ({ type: 'eip1559', chainId: 1, nonce: 0, to: token, value: 0n, gas: 60_000n, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n, data: transferData(functionName, to, amount) }) as const;

// A counter program's IDL (Anchor before 0.30: discriminators derived from the instruction names).
const COUNTER = Keypair.fromSeed(new Uint8Array(32).fill(21)).publicKey;
const COUNTER_IDL = {
  version: '0.1.0',
  name: 'counter',
  instructions: [
    { name: 'increment', accounts: [{ name: 'counter', isMut: true, isSigner: false }], args: [{ name: 'by', type: 'u64' }] },
    { name: 'reset', accounts: [{ name: 'counter', isMut: true, isSigner: false }], args: [] },
  ],
};
const counterInstruction = (name: 'increment' | 'reset', counter: PublicKey) => {
  const discriminator = createHash('sha256').update(`global:${name}`).digest().subarray(0, 8);
  const by = Buffer.alloc(8);
  by.writeBigUInt64LE(5n);
  return new TransactionInstruction({ programId: COUNTER, keys: [{ pubkey: counter, isSigner: false, isWritable: true }], data: name === 'increment' ? Buffer.concat([discriminator, by]) : discriminator });
};

for (const tdb of testDatabases) {
  describe(`policies that read transactions, through the libraries (${tdb.name})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
    });
    after(() => server.close());

    /** An organization with a wallet (an Ethereum and a Solana account) made by its root user, and users who are not its root quorum. */
    async function organization(name: string, others: string[]) {
      const rootCredentials = await server.createOrganization(name);
      const root: User = { ...rootCredentials, client: server.client(rootCredentials) };
      const { organizationId } = root;
      const { activity } = (await root.client.createWallet(envelope('ACTIVITY_TYPE_CREATE_WALLET', organizationId, { walletName: `${name} wallet`, accounts: [ETHEREUM, SOLANA] }) as any)) as any;
      const [ethereum, solana] = activity.result.createWalletResult.addresses as [Hex, string];
      const users: User[] = [];
      for (const userName of others) {
        const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName });
        const key = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });
        const credentials = { organizationId, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
        users.push({ ...credentials, client: server.client(credentials) });
      }
      const createPolicy = async (policyName: string, effect: 'EFFECT_ALLOW' | 'EFFECT_DENY', condition: string, consensus = '') => {
        const { activity: created } = (await root.client.createPolicy(
          envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, { policyName, effect, condition, ...(consensus ? { consensus } : {}), notes: '' }),
        )) as any;
        assert.equal(created.status, 'ACTIVITY_STATUS_COMPLETED', JSON.stringify(created.failure));
        return created.result.createPolicyResult.policyId as string;
      };
      const storeInterface = async (smartContractAddress: string, smartContractInterface: unknown, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' | 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', label: string) => {
        const { activity: stored } = (await root.client.createSmartContractInterface(
          envelope('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', organizationId, { smartContractAddress, smartContractInterface: JSON.stringify(smartContractInterface), type, label }),
        )) as any;
        assert.equal(stored.status, 'ACTIVITY_STATUS_COMPLETED');
      };
      const signTransaction = (user: User, unsignedTransaction: string, type: 'TRANSACTION_TYPE_ETHEREUM' | 'TRANSACTION_TYPE_SOLANA' = 'TRANSACTION_TYPE_ETHEREUM') =>
        user.client.signTransaction(
          envelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', organizationId, { signWith: type === 'TRANSACTION_TYPE_ETHEREUM' ? ethereum : solana, unsignedTransaction, type }) as any,
        ) as Promise<any>;
      /**
       * The dry run (evaluate_policies) of an activity as `user` would submit it, `approvers` having
       * approved it: its answer, once it is checked that it stored nothing.
       */
      const dryRun = async (user: User, type: string, parameters: object, approvers: User[] = []) => {
        const stored = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities WHERE organization_id = $1', [organizationId]))[0]!.n;
        const before = await stored();
        const body = JSON.stringify({ organizationId, activity: { type, parameters }, approverIds: approvers.map((approver) => approver.userId) });
        const answer = await postStamped(server.baseUrl, '/public/v1/query/evaluate_policies', body, user);
        assert.equal(answer.status, 200, answer.text);
        assert.equal(await stored(), before, 'a dry run stores no activity');
        return answer.json as { outcome: string; policyEvaluations: Array<{ policyName: string; outcome: string }>; couldBeApprovedBy: string[]; summary?: { text: string } };
      };
      const dryRunTransaction = (user: User, unsignedTransaction: string, type: 'TRANSACTION_TYPE_ETHEREUM' | 'TRANSACTION_TYPE_SOLANA' = 'TRANSACTION_TYPE_ETHEREUM', approvers: User[] = []) =>
        dryRun(user, 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', { signWith: type === 'TRANSACTION_TYPE_ETHEREUM' ? ethereum : solana, unsignedTransaction, type }, approvers);
      return { root, users, ethereum, solana, organizationId, createPolicy, storeInterface, signTransaction, dryRun, dryRunTransaction };
    }

    const implicitDeny = /is not allowed for user .* no policy of organization .* allows it \(implicit deny\); nothing was stored/;
    const signedCount = async (organizationId: string) =>
      (
        await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM activities WHERE organization_id = $1 AND type = 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' AND status = 'ACTIVITY_STATUS_COMPLETED'", [
          organizationId,
        ])
      )[0]!.n;

    test('an ABI-decoded cap and recipient list, written with EIP-55 or lowercase addresses, allows a member exactly what it says', async () => {
      for (const spelling of ['EIP-55', 'lowercase'] as const) {
        const org = await organization(`Token cap (${spelling})`, ['member']);
        const member = org.users[0]!;
        const address = (value: string) => (spelling === 'EIP-55' ? value : value.toLowerCase());
        await org.storeInterface(address(TOKEN), ERC20_ABI, 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'USDC');
        await org.createPolicy(
          'token cap',
          'EFFECT_ALLOW',
          `eth.tx.to == '${address(TOKEN)}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= ${CAP} && ` +
            `eth.tx.contract_call_args['to'] in ['${address(ALICE)}', '${address(BOB)}']`,
        );

        // Signed through @turnkey/viem's account: the member's transfer at the cap, to a listed recipient.
        const account = await createAccount({ client: member.client as never, organizationId: org.organizationId, signWith: org.ethereum });
        for (const to of [ALICE, BOB]) {
          const signed = await account.signTransaction(tokenCall('transfer', to, CAP));
          assert.equal(await recoverTransactionAddress({ serializedTransaction: signed as never }), org.ethereum, `${spelling}: ${to}`);
        }
        // The dry run answers as the submissions below are decided, and stores nothing.
        assert.equal((await org.dryRunTransaction(member, serializeTransaction(tokenCall('transfer', ALICE, CAP)))).outcome, 'OUTCOME_ALLOW');
        assert.equal((await org.dryRunTransaction(member, serializeTransaction(tokenCall('transfer', ALICE, CAP + 1n)))).outcome, 'OUTCOME_DENY_IMPLICIT');
        assert.equal((await org.dryRunTransaction(member, serializeTransaction(tokenCall('transfer', MALLORY, 1n)))).outcome, 'OUTCOME_DENY_IMPLICIT');
        // One base unit over the cap; another recipient; a listed recipient in the other spelling passes.
        await refused(org.signTransaction(member, serializeTransaction(tokenCall('transfer', ALICE, CAP + 1n))), PERMISSION_DENIED, implicitDeny);
        await refused(org.signTransaction(member, serializeTransaction(tokenCall('transfer', MALLORY, 1n))), PERMISSION_DENIED, implicitDeny);
        // Through @turnkey/sdk-server's API client as a backend signs: a listed recipient in the other spelling passes.
        const other = spelling === 'EIP-55' ? (ALICE.toLowerCase() as Hex) : ALICE;
        const backend = new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: member.apiPublicKey, apiPrivateKey: member.apiPrivateKey, defaultOrganizationId: org.organizationId }).apiClient();
        const { signedTransaction } = await backend.signTransaction({ signWith: org.ethereum, unsignedTransaction: serializeTransaction(tokenCall('transfer', other, 1n)), type: 'TRANSACTION_TYPE_ETHEREUM' });
        assert.equal(await recoverTransactionAddress({ serializedTransaction: `0x${signedTransaction}` as never }), org.ethereum);
        assert.equal(await signedCount(org.organizationId), 3);
      }
    });

    test('a DENY on approve wins over an ALLOW of every signature; the 403 names the DENY', async () => {
      const org = await organization('Deny approve', ['member']);
      const member = org.users[0]!;
      await org.storeInterface(TOKEN, ERC20_ABI, 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'USDC');
      await org.createPolicy('members sign', 'EFFECT_ALLOW', "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'");
      const denyId = await org.createPolicy('no approvals', 'EFFECT_DENY', "eth.tx.function_name == 'approve'");

      const transfer = await org.signTransaction(member, serializeTransaction(tokenCall('transfer', MALLORY, CAP * 10n)));
      assert.equal(transfer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const denied = new RegExp(`is denied by policy ${denyId} \\("no approvals"\\) of organization ${org.organizationId} \\(explicit deny\\); nothing was stored`);
      await refused(org.signTransaction(member, serializeTransaction(tokenCall('approve', MALLORY, 1n))), PERMISSION_DENIED, denied);
      const dry = await org.dryRunTransaction(member, serializeTransaction(tokenCall('approve', MALLORY, 1n)));
      assert.equal(dry.outcome, 'OUTCOME_DENY_EXPLICIT');
      assert.deepEqual(
        dry.policyEvaluations.map(({ policyName, outcome }) => [policyName, outcome]).sort(),
        [
          ['members sign', 'OUTCOME_ALLOW'],
          ['no approvals', 'OUTCOME_DENY_EXPLICIT'],
        ],
      );
      assert.match(dry.summary!.text, /call approve\(spender=0x[0-9a-f]{40}, amount=1\) on USDC/);
      // A call the DENY cannot read (no ABI for the contract called) is denied by it: it fails closed.
      await refused(org.signTransaction(member, serializeTransaction(tokenCall('transfer', MALLORY, 1n, UNKNOWN_TOKEN))), PERMISSION_DENIED, denied);
    });

    test("EIP-712 typed data signed through @turnkey/viem's signTypedData is allowed by primary type, verifying contract and chain", async () => {
      const org = await organization('Permits', ['member']);
      const member = org.users[0]!;
      await org.createPolicy(
        'USDC permits on mainnet',
        'EFFECT_ALLOW',
        `eth.eip_712.primary_type == 'Permit' && eth.eip_712.domain.verifying_contract == '${TOKEN.toLowerCase()}' && eth.eip_712.domain.chain_id == 1 && ` +
          `eth.eip_712.message['value'] <= ${CAP}`,
      );
      const permit = (verifyingContract: Hex, chainId: number, value: bigint) =>
        ({
          domain: { name: 'USD Coin', version: '2', chainId, verifyingContract },
          types: {
            Permit: [
              { name: 'owner', type: 'address' },
              { name: 'spender', type: 'address' },
              { name: 'value', type: 'uint256' },
              { name: 'nonce', type: 'uint256' },
              { name: 'deadline', type: 'uint256' },
            ],
          },
          primaryType: 'Permit',
          message: { owner: org.ethereum, spender: ALICE, value, nonce: 0n, deadline: 1_900_000_000n },
        }) as const;
      const account = await createAccount({ client: member.client as never, organizationId: org.organizationId, signWith: org.ethereum });
      // viem's signTypedData action adds types.EIP712Domain from the domain before it calls the account
      // (the account is local: no request goes to the transport).
      const wallet = createWalletClient({ account, transport: http('http://127.0.0.1:9') });
      const allowed = permit(TOKEN, 1, CAP);
      const signature = await wallet.signTypedData(allowed);
      assert.equal(await verifyTypedData({ ...allowed, address: org.ethereum, signature }), true);
      // What the library sent: the typed data JSON (viem's serializeTypedData), which Signet hashed and a policy read.
      const withDomainType = { ...allowed, types: { EIP712Domain: getTypesForEIP712Domain({ domain: allowed.domain }), ...allowed.types } };
      const [sent] = (await member.client.getActivities({ organizationId: org.organizationId, filterByType: ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'] } as any)).activities as any[];
      assert.deepEqual(sent.intent.signRawPayloadIntentV2, { signWith: org.ethereum, payload: serializeTypedData(withDomainType as never), encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' });

      const dryPermit = (value: bigint) =>
        org.dryRun(member, 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
          signWith: org.ethereum,
          payload: serializeTypedData({ ...withDomainType, message: { ...withDomainType.message, value } } as never),
          encoding: 'PAYLOAD_ENCODING_EIP712',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        });
      const dryAllowed = await dryPermit(CAP);
      assert.equal(dryAllowed.outcome, 'OUTCOME_ALLOW');
      assert.match(dryAllowed.summary!.text, /^Sign EIP-712 Permit for USD Coin v2 on Ethereum/);
      assert.equal((await dryPermit(CAP + 1n)).outcome, 'OUTCOME_DENY_IMPLICIT');
      await assert.rejects(wallet.signTypedData(permit(UNKNOWN_TOKEN, 1, 1n)), /implicit deny/);
      await assert.rejects(wallet.signTypedData(permit(TOKEN, 10, 1n)), /implicit deny/);
      await assert.rejects(wallet.signTypedData(permit(TOKEN, 1, CAP + 1n)), /implicit deny/);
      // The account called directly with types that lack EIP712Domain sends the domain as {} (viem's
      // serializeTypedData keeps only a declared domain): what is signed has no domain, so a condition
      // on it fails closed.
      await assert.rejects(account.signTypedData(allowed), /implicit deny/);
      const raw = (payload: string) =>
        member.client.signRawPayload(envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', org.organizationId, { signWith: org.ethereum, payload, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' }) as any);
      // A verifying contract the domain's declared type leaves out of the signature is not read: denied.
      const undeclared = JSON.parse(serializeTypedData(withDomainType as never));
      undeclared.types.EIP712Domain = [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }];
      await refused(raw(JSON.stringify(undeclared)), PERMISSION_DENIED, implicitDeny);
    });

    test('a Solana transfer cap (@solana/web3.js) and an instruction decoded by a stored Anchor IDL', async () => {
      const org = await organization('Solana', ['member']);
      const member = org.users[0]!;
      await org.storeInterface(COUNTER.toBase58(), COUNTER_IDL, 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', 'Counter');
      await org.createPolicy('small SOL transfers', 'EFFECT_ALLOW', 'solana.tx.transfers.count() >= 1 && solana.tx.transfers.all(t, t.amount <= 1000000000)');
      await org.createPolicy('counter increments', 'EFFECT_ALLOW', "solana.tx.instructions[0].parsed_instruction_data.instruction_name == 'increment'");
      const payer = new PublicKey(org.solana);
      const recipient = Keypair.fromSeed(new Uint8Array(32).fill(22)).publicKey;
      const counter = Keypair.fromSeed(new Uint8Array(32).fill(23)).publicKey;
      const unsigned = (...instructions: TransactionInstruction[]) =>
        new Transaction({ feePayer: payer, recentBlockhash: BLOCKHASH }).add(...instructions).serialize({ requireAllSignatures: false, verifySignatures: false }).toString('hex');
      const transfer = (lamports: number) => SystemProgram.transfer({ fromPubkey: payer, toPubkey: recipient, lamports });

      for (const [instructions, outcome] of [
        [[transfer(1_000_000_000)], 'OUTCOME_ALLOW'],
        [[transfer(1_000_000_001)], 'OUTCOME_DENY_IMPLICIT'],
        [[counterInstruction('increment', counter)], 'OUTCOME_ALLOW'],
        [[counterInstruction('reset', counter)], 'OUTCOME_DENY_IMPLICIT'],
      ] as const) {
        assert.equal((await org.dryRunTransaction(member, unsigned(...instructions), 'TRANSACTION_TYPE_SOLANA')).outcome, outcome);
      }
      for (const instructions of [[transfer(1_000_000_000)], [transfer(5), transfer(7)], [counterInstruction('increment', counter)]]) {
        const { activity } = await org.signTransaction(member, unsigned(...instructions), 'TRANSACTION_TYPE_SOLANA');
        assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
        const signed = Transaction.from(Buffer.from(activity.result.signTransactionResult.signedTransaction, 'hex'));
        assert.equal(signed.verifySignatures(), true);
        assert.equal(signed.signatures[0]!.publicKey.toBase58(), org.solana);
      }
      for (const instructions of [[transfer(1_000_000_001)], [transfer(5), transfer(1_000_000_001)], [counterInstruction('reset', counter)], [counterInstruction('reset', counter), counterInstruction('increment', counter)]]) {
        await refused(org.signTransaction(member, unsigned(...instructions), 'TRANSACTION_TYPE_SOLANA'), PERMISSION_DENIED, implicitDeny);
      }
    });

    test('a large transfer needs two approvers: it waits unsigned, the second approval signs it once, a later approval is refused', async () => {
      const org = await organization('Two for large', ['member', 'approver']);
      const [member, approver] = org.users as [User, User];
      await org.createPolicy('small transfers', 'EFFECT_ALLOW', `eth.tx.value <= ${10n ** 18n}`);
      await org.createPolicy('large transfers by two', 'EFFECT_ALLOW', `eth.tx.value > ${10n ** 18n}`, 'approvers.count() >= 2');
      const send = (value: bigint) => serializeTransaction({ type: 'eip1559', chainId: 1, nonce: 0, to: ALICE, value, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });

      const small = await org.signTransaction(member, send(10n ** 18n));
      assert.equal(small.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const large = send(10n ** 18n + 1n);
      const dry = await org.dryRunTransaction(member, large);
      assert.equal(dry.outcome, 'OUTCOME_REQUIRES_CONSENSUS');
      assert.ok(dry.couldBeApprovedBy.includes(approver.userId), JSON.stringify(dry.couldBeApprovedBy));
      assert.ok(!dry.couldBeApprovedBy.includes(member.userId), 'the submitter is not among those who could still approve');
      assert.match(dry.summary!.text, / with 1\.000000000000000001 ETH /);
      assert.equal((await org.dryRunTransaction(member, large, 'TRANSACTION_TYPE_ETHEREUM', [approver])).outcome, 'OUTCOME_ALLOW');
      const { activity: waiting } = await org.signTransaction(member, large);
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(waiting.result?.signTransactionResult, undefined, 'nothing is signed while it waits');
      assert.equal(await signedCount(org.organizationId), 1);

      const approve = (user: User) =>
        user.client.approveActivity({ type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY', timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: { fingerprint: waiting.fingerprint } }) as Promise<any>;
      const { activity: approved } = await approve(approver);
      assert.equal(approved.id, waiting.id);
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      const signed = `0x${approved.result.signTransactionResult.signedTransaction}` as Hex;
      assert.equal(await recoverTransactionAddress({ serializedTransaction: signed as never }), org.ethereum);
      assert.equal(await signedCount(org.organizationId), 2);
      // Another approval, once it is signed, is refused; the transaction was signed once.
      await refused(approve(org.root), INVALID_ARGUMENT, /is ACTIVITY_STATUS_COMPLETED: only an activity waiting for approvals \(ACTIVITY_STATUS_CONSENSUS_NEEDED\) can be approved/, 'parameters.fingerprint');
      assert.equal(await signedCount(org.organizationId), 2);
    });

    test('the key: wallet {label, exported} read fresh (an export changes the decision at once), private_key {label, tags}, its address as eth.tx.from', async () => {
      const org = await organization('Keys', ['member']);
      const member = org.users[0]!;
      await org.createPolicy('unexported Keys wallet', 'EFFECT_ALLOW', `wallet.label == 'Keys wallet' && wallet.exported == false && wallet.imported == false && wallet_account.address == '${org.ethereum.toLowerCase()}'`);
      const send = serializeTransaction({ type: 'eip1559', chainId: 1, nonce: 0, to: ALICE, value: 1n, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
      assert.equal((await org.signTransaction(member, send)).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      // A policy on the wallet an export names: the member may export a wallet not yet exported, once.
      await org.createPolicy('first export', 'EFFECT_ALLOW', "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET' && wallet.exported == false");
      const [{ walletId }] = ((await org.root.client.getWallets({ organizationId: org.organizationId })) as any).wallets;
      const exportBody = () => envelope('ACTIVITY_TYPE_EXPORT_WALLET', org.organizationId, { walletId, targetPublicKey: generateP256KeyPair().publicKeyUncompressed });
      assert.equal(((await member.client.exportWallet(exportBody() as any)) as any).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await refused(member.client.exportWallet(exportBody() as any), PERMISSION_DENIED, implicitDeny);
      // The wallet is exported now: the signing policy reads it so at once, not from a cached signer.
      await refused(org.signTransaction(member, send), PERMISSION_DENIED, implicitDeny);

      const { activity: keys } = (await org.root.client.createPrivateKeys(
        envelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', org.organizationId, {
          privateKeys: [{ privateKeyName: 'Hot key', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }],
        }) as any,
      )) as any;
      const [{ privateKeyId, addresses }] = keys.result.createPrivateKeysResultV2.privateKeys;
      const keyAddress = getAddress(addresses[0].address);
      await org.createPolicy(
        'hot key to Alice',
        'EFFECT_ALLOW',
        `private_key.label == 'Hot key' && private_key.id == '${privateKeyId}' && private_key.tags.count() == 0 && private_key.exported == false && eth.tx.from == '${keyAddress}' && eth.tx.to == '${ALICE}'`,
      );
      const signWithKey = (to: Hex) =>
        member.client.signTransaction(
          envelope('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', org.organizationId, {
            signWith: privateKeyId,
            unsignedTransaction: serializeTransaction({ type: 'eip1559', chainId: 1, nonce: 0, to, value: 1n, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
            type: 'TRANSACTION_TYPE_ETHEREUM',
          }) as any,
        ) as Promise<any>;
      const { activity: signed } = await signWithKey(ALICE);
      assert.equal(signed.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(await recoverTransactionAddress({ serializedTransaction: `0x${signed.result.signTransactionResult.signedTransaction}` as never }), keyAddress);
      await refused(signWithKey(BOB), PERMISSION_DENIED, implicitDeny);
    });

    test('fail closed: a policy reading function_name allows no call to a contract with no ABI stored', async () => {
      const org = await organization('No ABI', ['member']);
      const member = org.users[0]!;
      await org.storeInterface(TOKEN, ERC20_ABI, 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'USDC');
      await org.createPolicy('transfers', 'EFFECT_ALLOW', "eth.tx.function_name == 'transfer'");
      assert.equal((await org.signTransaction(member, serializeTransaction(tokenCall('transfer', ALICE, 1n)))).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await refused(org.signTransaction(member, serializeTransaction(tokenCall('transfer', ALICE, 1n, UNKNOWN_TOKEN))), PERMISSION_DENIED, implicitDeny);
      // A payload that is not typed data does not bind eth.tx either: the same policy allows no raw signature.
      await refused(
        member.client.signRawPayload(envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', org.organizationId, { signWith: org.ethereum, payload: '0x01', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }) as any),
        PERMISSION_DENIED,
        implicitDeny,
      );
    });
  });
}
