// The ecosystem's wallet libraries, unmodified, against a real Signet: a TurnkeyClient of @turnkey/http
// with an ApiKeyStamper of @turnkey/api-key-stamper pointed at the test's server, a wallet made by
// Signet's own create_wallet (two Ethereum accounts and a Solana account), and then
// - @turnkey/viem's createAccount: signMessage and signTypedData verified by viem; signTransaction
//   recovered by viem to the account's address; EIP-1559 and legacy transfers it signs sent to a
//   local EVM node (EDR on loopback, test/support/evmNode.ts), mined, the recipient's balance moving
//   by the value; an EIP-7702 transaction carrying an authorization signed by signAuthorization,
//   mined, the delegation set;
// - @turnkey/ethers' TurnkeySigner: signMessage verified by ethers.verifyMessage; signTransaction
//   (EIP-1559 and legacy) recovered by ethers' Transaction.from(...).from; a transfer it sends mined;
// - @turnkey/solana's TurnkeySigner: addSignature and signTransaction on a legacy and a v0 transfer
//   (its recipient in an address lookup table) that LiteSVM (test/support/litesvm.ts) executes, the
//   recipient's lamports moving;
// and over the wire: a transaction that does not parse is a 400 at submission even when signing waits
// for approvals (nothing stored); a type the account cannot sign is a 400 naming parameters.type, at
// submission too; a transaction waiting for approvals is signed at the approval that allows it, once,
// and mined.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeySigner as EthersTurnkeySigner } from '@turnkey/ethers';
import { TurnkeyClient } from '@turnkey/http';
import { TurnkeySigner as SolanaTurnkeySigner } from '@turnkey/solana';
import { createAccount } from '@turnkey/viem';
import * as ethers from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  http,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  verifyMessage,
  verifyTypedData,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { hardhat } from 'viem/chains';
import { testDatabases } from './support/databases.ts';
import { startEvmNode, type EvmNode } from './support/evmNode.ts';
import { startSvm, type LocalSvm } from './support/litesvm.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const ETHEREUM_SECOND = { ...ETHEREUM, path: "m/44'/60'/0'/0/1" } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;

const INVALID_ARGUMENT = 3;
/** Wei in the sender's account at genesis: 1000 ETH. */
const FUNDS = 10n ** 21n;
/** Lamports airdropped to the Solana account: 10 SOL. */
const LAMPORTS = 10_000_000_000n;
/** LiteSVM's fee for one signature. */
const SIGNATURE_FEE = 5000n;

const typedData = {
  domain: { name: 'Signet Mail', version: '1', chainId: 31337, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
} as const;

for (const tdb of testDatabases) {
  describe(`the wallet libraries against Signet (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;
    /**
     * The same client as the libraries type it: each depends on its own release of @turnkey/http, whose
     * TurnkeyClient class is another declaration of the same shape (the libraries tell it by its name).
     */
    const libraryClient = () => client as never;
    let sender: Hex;
    let authority: Hex;
    let solanaAddress: string;
    let node: EvmNode;
    let chain: PublicClient;
    let account: LocalAccount;
    let wallet: WalletClient;
    /** A fresh address for each transfer, so that its balance is the transfer's value alone. */
    const recipient = () => ethers.Wallet.createRandom().address as Hex;
    const activityCount = async () =>
      (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities WHERE organization_id = $1', [org.organizationId]))[0]!.n;
    /** The organization's completed activities of `type`, read through the API: which activity a library called. */
    const completed = async (type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' | 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2') =>
      (await client.getActivities({ organizationId: org.organizationId, filterByType: [type], filterByStatus: ['ACTIVITY_STATUS_COMPLETED'], paginationOptions: { limit: '100' } })).activities.length;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Wallet libraries');
      client = new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));
      const { activity } = await client.createWallet({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { walletName: 'Libraries', accounts: [ETHEREUM, ETHEREUM_SECOND, SOLANA] },
      });
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      [sender, authority, solanaAddress] = activity.result.createWalletResult!.addresses as [Hex, Hex, string];

      node = await startEvmNode({ chainId: hardhat.id, accounts: [{ address: sender, balance: FUNDS }] });
      chain = createPublicClient({ chain: hardhat, transport: http(node.url) });
      account = await createAccount({ client: libraryClient(), organizationId: org.organizationId, signWith: sender });
      wallet = createWalletClient({ account, chain: hardhat, transport: http(node.url) });
    });
    after(async () => {
      await node?.close();
      await server?.close();
    });

    const mined = async (hash: Hex) => {
      const receipt = await chain.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 60_000 });
      assert.equal(receipt.status, 'success');
      assert.equal(receipt.from.toLowerCase(), sender.toLowerCase());
      return receipt;
    };

    describe('@turnkey/viem', () => {
      test("createAccount's address is the wallet account's; signMessage verifies and recovers to it", async () => {
        assert.equal(account.address, sender);
        const message = 'Signed by Signet through @turnkey/viem';
        const signature = await account.signMessage({ message });
        assert.ok(await verifyMessage({ address: sender, message, signature }));
        assert.equal(await recoverMessageAddress({ message, signature }), sender);
        assert.ok(!(await verifyMessage({ address: sender, message: `${message}.`, signature })));
      });

      test('signTypedData (EIP-712), through the wallet client as viem applications call it, verifies against the account', async () => {
        // viem's action adds the EIP712Domain type the domain's fields make; the account serializes the domain by it.
        const signature = await wallet.signTypedData({ account, ...typedData });
        assert.ok(await verifyTypedData({ address: sender, ...typedData, signature }));
        assert.ok(!(await verifyTypedData({ address: sender, ...typedData, message: { ...typedData.message, contents: 'Hello, Eve!' }, signature })));
      });

      test('signTransaction: viem recovers the account from the signed EIP-1559 transaction, whose fields are those given', async () => {
        const transaction = {
          type: 'eip1559',
          chainId: hardhat.id,
          nonce: 41,
          gas: 21_000n,
          maxFeePerGas: 30_000_000_000n,
          maxPriorityFeePerGas: 2_000_000_000n,
          to: recipient(),
          value: 123n,
        } as const;
        const before = await completed('ACTIVITY_TYPE_SIGN_TRANSACTION_V2');
        const signed = await account.signTransaction(transaction);
        assert.equal(await completed('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'), before + 1);
        assert.equal(await recoverTransactionAddress({ serializedTransaction: signed as never }), sender);
        const { r: _r, s: _s, v: _v, yParity: _y, ...fields } = parseTransaction(signed);
        assert.equal(serializeTransaction(fields as never), serializeTransaction(transaction));
      });

      for (const type of ['eip1559', 'legacy'] as const) {
        test(`an ${type} transfer it signs is mined by the node and moves the recipient's balance by its value`, async () => {
          const to = recipient();
          const value = 1_234_567_890_123_456n;
          const hash = await wallet.sendTransaction({ account, chain: hardhat, to, value, type });
          const receipt = await mined(hash);
          assert.equal(receipt.type, type);
          assert.equal(await chain.getBalance({ address: to }), value);
          const sent = await chain.getTransaction({ hash });
          assert.equal(sent.type, type);
          assert.equal(sent.from.toLowerCase(), sender.toLowerCase());
        });
      }

      test('EIP-7702: an authorization signed by signAuthorization, carried by a transaction the sender signs, sets the delegation and moves the value', async () => {
        const authorityAccount = await createAccount({ client: libraryClient(), organizationId: org.organizationId, signWith: authority });
        const delegate = recipient();
        const authorization = await wallet.signAuthorization({ account: authorityAccount, contractAddress: delegate });
        assert.equal(authorization.address.toLowerCase(), delegate.toLowerCase());
        assert.equal(authorization.chainId, hardhat.id);
        const value = 777n;
        const hash = await wallet.sendTransaction({ account, chain: hardhat, to: authority, value, authorizationList: [authorization] });
        const receipt = await mined(hash);
        assert.equal(receipt.type, 'eip7702');
        assert.equal(await chain.getCode({ address: authority }), `0xef0100${delegate.slice(2).toLowerCase()}`);
        assert.equal(await chain.getBalance({ address: authority }), value);
      });
    });

    describe('@turnkey/ethers', () => {
      let signer: EthersTurnkeySigner;
      before(() => {
        const provider = new ethers.JsonRpcProvider(node.url, hardhat.id, { staticNetwork: true, polling: true });
        provider.pollingInterval = 20;
        // @turnkey/ethers requires ethers' CommonJS build, this file imports its ES module build: the same
        // classes declared twice, which TypeScript tells apart by their private fields.
        signer = new EthersTurnkeySigner({ client: libraryClient(), organizationId: org.organizationId, signWith: sender }, provider as never);
      });

      test('signMessage is verified by ethers.verifyMessage', async () => {
        assert.equal(await signer.getAddress(), sender);
        const message = 'Signed by Signet through @turnkey/ethers';
        const signature = await signer.signMessage(message);
        assert.equal(ethers.verifyMessage(message, signature), sender);
        assert.notEqual(ethers.verifyMessage(`${message}!`, signature), sender);
      });

      test("signTransaction (EIP-1559 and legacy): ethers' Transaction.from(...).from is the account", async () => {
        const to = recipient();
        const common = { chainId: hardhat.id, nonce: 5, gasLimit: 21_000n, to, value: 10n ** 9n };
        for (const request of [
          { ...common, type: 2, maxFeePerGas: 30_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n },
          { ...common, type: 0, gasPrice: 25_000_000_000n },
        ]) {
          const signed = await signer.signTransaction(request);
          const transaction = ethers.Transaction.from(signed);
          assert.equal(transaction.from, sender);
          assert.equal(transaction.type, request.type);
          assert.equal(transaction.to, to);
          assert.equal(transaction.value, common.value);
          assert.equal(transaction.chainId, BigInt(hardhat.id));
        }
      });

      test("a transfer it sends is mined and moves the recipient's balance by its value", async () => {
        const to = recipient();
        const value = 42_000_000_000_000n;
        const response = await signer.sendTransaction({ to, value });
        assert.equal(response.from, sender);
        await mined(response.hash as Hex);
        assert.equal(await chain.getBalance({ address: to }), value);
      });
    });

    describe('@turnkey/solana', () => {
      let svm: LocalSvm;
      let signer: SolanaTurnkeySigner;
      let payer: PublicKey;
      const table = Keypair.generate().publicKey;
      before(() => {
        svm = startSvm();
        payer = new PublicKey(solanaAddress);
        svm.airdrop(payer, LAMPORTS);
        signer = new SolanaTurnkeySigner({ organizationId: org.organizationId, client: libraryClient() });
      });

      const legacyTransfer = (to: PublicKey, lamports: number) =>
        new Transaction({ feePayer: payer, recentBlockhash: svm.blockhash() }).add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: to, lamports }));
      const v0Transfer = (to: PublicKey, lamports: number) => {
        const lookup = svm.lookupTable(table, [to]);
        const message = new TransactionMessage({
          payerKey: payer,
          recentBlockhash: svm.blockhash(),
          instructions: [SystemProgram.transfer({ fromPubkey: payer, toPubkey: to, lamports })],
        }).compileToV0Message([lookup]);
        // The recipient is read from the lookup table, not from the message's own keys.
        assert.ok(!message.staticAccountKeys.some((key) => key.equals(to)));
        assert.equal(message.addressTableLookups[0]?.accountKey.toBase58(), table.toBase58());
        return new VersionedTransaction(message);
      };

      /** Executes the transaction and checks the balances moved by `lamports` and the fee. */
      function executed(transaction: Transaction | VersionedTransaction, to: PublicKey, lamports: number) {
        const before = svm.balance(payer);
        svm.send(transaction);
        assert.equal(svm.balance(to), BigInt(lamports));
        assert.equal(svm.balance(payer), before - BigInt(lamports) - SIGNATURE_FEE);
      }

      test('addSignature on a legacy transfer: LiteSVM executes it and the lamports move', async () => {
        const to = Keypair.generate().publicKey;
        const transaction = legacyTransfer(to, 1_500_000);
        const before = await completed('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2');
        await signer.addSignature(transaction, solanaAddress);
        assert.equal(await completed('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'), before + 1);
        assert.ok(transaction.verifySignatures());
        executed(transaction, to, 1_500_000);
      });

      test('addSignature on a v0 transfer whose recipient is in an address lookup table: executed, the lamports move', async () => {
        const to = Keypair.generate().publicKey;
        const transaction = v0Transfer(to, 2_500_000);
        await signer.addSignature(transaction, solanaAddress);
        executed(transaction, to, 2_500_000);
      });

      test("signTransaction (Signet's sign_transaction) on a legacy transfer: the slot filled, executed, the lamports move", async () => {
        const to = Keypair.generate().publicKey;
        const before = await completed('ACTIVITY_TYPE_SIGN_TRANSACTION_V2');
        const signed = (await signer.signTransaction(legacyTransfer(to, 3_500_000), solanaAddress)) as Transaction;
        assert.equal(await completed('ACTIVITY_TYPE_SIGN_TRANSACTION_V2'), before + 1);
        assert.ok(signed instanceof Transaction);
        assert.ok(signed.verifySignatures());
        assert.equal(signed.signatures[0]?.publicKey.toBase58(), solanaAddress);
        executed(signed, to, 3_500_000);
      });

      test("signTransaction (Signet's sign_transaction) on a v0 transfer: executed, the lamports move", async () => {
        const to = Keypair.generate().publicKey;
        const signed = (await signer.signTransaction(v0Transfer(to, 4_500_000), solanaAddress)) as VersionedTransaction;
        assert.ok(signed instanceof VersionedTransaction);
        assert.equal(signed.version, 0);
        executed(signed, to, 4_500_000);
      });

      test('a transfer another key must sign too is refused by LiteSVM with only the account\'s signature, and moves nothing', async () => {
        const cosigner = Keypair.generate();
        svm.airdrop(cosigner.publicKey, 100_000_000n);
        const to = Keypair.generate().publicKey;
        const transaction = legacyTransfer(to, 5_000_000).add(SystemProgram.transfer({ fromPubkey: cosigner.publicKey, toPubkey: to, lamports: 6_000_000 }));
        const signed = (await signer.signTransaction(transaction, solanaAddress)) as Transaction;
        assert.equal(signed.signatures.find((slot) => slot.publicKey.equals(cosigner.publicKey))?.signature, null);
        assert.throws(() => svm.send(Uint8Array.from(signed.serialize({ requireAllSignatures: false, verifySignatures: false }))), /signature/i);
        assert.equal(svm.balance(to), 0n);
        // With the cosigner's signature added, the same transaction executes.
        signed.partialSign(cosigner);
        svm.send(signed);
        assert.equal(svm.balance(to), 11_000_000n);
      });
    });

    describe('sign_transaction over the wire', () => {
      const signBody = (parameters: { signWith: string; unsignedTransaction: string; type: 'TRANSACTION_TYPE_ETHEREUM' | 'TRANSACTION_TYPE_SOLANA' }) => ({
        type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' as const,
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters,
      });

      test('a type the account cannot sign is a 400 naming parameters.type; a transaction that does not parse a 400 naming it; nothing stored', async () => {
        const before = await activityCount();
        const unsigned = serializeTransaction({ type: 'eip1559', chainId: hardhat.id, nonce: 0, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, to: sender, value: 1n });
        await refused(
          client.signTransaction(signBody({ signWith: solanaAddress, unsignedTransaction: unsigned.slice(2), type: 'TRANSACTION_TYPE_ETHEREUM' })),
          INVALID_ARGUMENT,
          /TRANSACTION_TYPE_ETHEREUM is signed by a CURVE_SECP256K1 key/,
          'parameters.type',
        );
        await refused(
          client.signTransaction(signBody({ signWith: sender, unsignedTransaction: unsigned.slice(2), type: 'TRANSACTION_TYPE_SOLANA' })),
          INVALID_ARGUMENT,
          /not a Solana transaction|canonical wire format/,
          'parameters.unsignedTransaction',
        );
        await refused(
          client.signTransaction(signBody({ signWith: sender, unsignedTransaction: `${unsigned.slice(2)}zz`, type: 'TRANSACTION_TYPE_ETHEREUM' })),
          INVALID_ARGUMENT,
          /even number of hexadecimal digits/,
          'parameters.unsignedTransaction',
        );
        assert.equal(await activityCount(), before);
      });

      test('under a policy that asks for approvals: a malformed transaction is still a 400 at submission; a valid one waits, is signed at the approval once, and is mined', async () => {
        const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'treasurer' });
        const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
        const member = new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper({ apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey }));
        const { activity: policy } = await client.createPolicy({
          type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: {
            policyName: 'transactions need the treasurer and the root user',
            effect: 'EFFECT_ALLOW',
            condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
            consensus: `approvers.filter(user, user.id == '${userId}' || user.id == '${org.userId}').count() >= 2`,
            notes: '',
          },
        });
        assert.equal(policy.status, 'ACTIVITY_STATUS_COMPLETED');

        const before = await activityCount();
        const to = recipient();
        const value = 9_000_000_000n;
        const unsigned = serializeTransaction({
          type: 'eip1559',
          chainId: hardhat.id,
          nonce: await chain.getTransactionCount({ address: sender }),
          gas: 21_000n,
          maxFeePerGas: 30_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
          to,
          value,
        });
        await refused(
          member.signTransaction(signBody({ signWith: sender, unsignedTransaction: unsigned.slice(0, -2), type: 'TRANSACTION_TYPE_ETHEREUM' })),
          INVALID_ARGUMENT,
          /not a valid transaction of type eip1559/,
          'parameters.unsignedTransaction',
        );
        assert.equal(await activityCount(), before, 'the malformed transaction was not stored to wait');

        const { activity: waiting } = await member.signTransaction(signBody({ signWith: sender, unsignedTransaction: unsigned, type: 'TRANSACTION_TYPE_ETHEREUM' }));
        assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
        assert.deepEqual(waiting.intent.signTransactionIntentV2, { signWith: sender, unsignedTransaction: unsigned, type: 'TRANSACTION_TYPE_ETHEREUM' });

        const approval = { type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY' as const, timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: { fingerprint: waiting.fingerprint } };
        const { activity: approved } = await client.approveActivity(approval);
        assert.equal(approved.id, waiting.id);
        assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
        const { signedTransaction } = approved.result.signTransactionResult!;
        assert.match(signedTransaction, /^02[0-9a-f]+$/);
        // The same approval again answers the stored result: signed once.
        const { activity: again } = await client.approveActivity(approval);
        assert.equal(again.result.signTransactionResult?.signedTransaction, signedTransaction);

        const hash = await chain.sendRawTransaction({ serializedTransaction: `0x${signedTransaction}` });
        await mined(hash);
        assert.equal(await chain.getBalance({ address: to }), value);

        // The account's curve is the store's, read before the decision: a type it cannot sign is refused
        // at submission even where it would wait, naming the field, with nothing stored or signed.
        const waitingBefore = await activityCount();
        await refused(
          member.signTransaction(signBody({ signWith: solanaAddress, unsignedTransaction: unsigned, type: 'TRANSACTION_TYPE_ETHEREUM' })),
          INVALID_ARGUMENT,
          /TRANSACTION_TYPE_ETHEREUM is signed by a CURVE_SECP256K1 key/,
          'parameters.type',
        );
        assert.equal(await activityCount(), waitingBefore);
      });
    });
  });
}
