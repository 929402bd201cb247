// The pure signing modules against real local chains: keys derived from a known mnemonic
// (src/keys/derivation.ts) sign transfers that a real EVM node (EDR, Hardhat's engine, on loopback,
// test/support/evmNode.ts) mines and a real Solana runtime (LiteSVM, test/support/litesvm.ts)
// executes, and the balances move by the value. Ethereum: viem serializes the unsigned transaction
// (legacy with EIP-155, EIP-2930, EIP-1559, EIP-7702 with an authorization signed by
// signRawPayload as @turnkey/viem asks it), signEthereumTransaction signs it, eth_sendRawTransaction
// sends it. Solana: @solana/web3.js builds a legacy and a v0 transfer, serialized unsigned as
// @turnkey/solana sends it; signSolanaTransaction signs it with the key at m/44'/501'/0'/0'.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createPublicClient,
  http,
  serializeTransaction,
  toHex,
  type Hex,
  type PublicClient,
  type TransactionSerializable,
} from 'viem';
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { signEthereumTransaction } from '../src/chains/ethereum/transaction.ts';
import { signSolanaTransaction } from '../src/chains/solana/transaction.ts';
import { addressOf } from '../src/keys/addresses.ts';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { signRawPayload } from '../src/keys/rawPayload.ts';
import { startEvmNode, type EvmNode } from './support/evmNode.ts';
import { startSvm } from './support/litesvm.ts';

const seed = mnemonicToSeed('neither lonely flavor argue grass remind eye tag avocado spot unusual intact');

describe('a local EVM node mines what signEthereumTransaction signs', () => {
  const sender = deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/0");
  const from = addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM', sender.publicKey) as Hex;
  const authority = deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/1");
  const authorityAddress = addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM', authority.publicKey) as Hex;
  const recipient = addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM', deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/2").publicKey) as Hex;
  const FUNDS = 10n ** 21n;
  let node: EvmNode;
  let client: PublicClient;

  before(async () => {
    node = await startEvmNode({ chainId: 31337, accounts: [{ address: from, balance: FUNDS }] });
    client = createPublicClient({ transport: http(node.url) });
  });
  after(() => node?.close());

  /** Signs with the pure module, sends the raw transaction, and answers the mined receipt. */
  async function signAndSend(transaction: TransactionSerializable) {
    const unsigned = serializeTransaction(transaction);
    const { signedTransaction } = signEthereumTransaction(unsigned, sender.privateKey);
    const hash = await client.request({ method: 'eth_sendRawTransaction', params: [`0x${signedTransaction}`] });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 60_000 });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), from.toLowerCase());
    return receipt;
  }

  const fees = () => ({ maxFeePerGas: 20_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
  const nonce = () => client.getTransactionCount({ address: from });

  test('the node answers on loopback with its chain id, and the derived address is prefunded', async () => {
    assert.match(node.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await client.getChainId(), 31337);
    assert.equal(await client.getBalance({ address: from }), FUNDS);
  });

  for (const type of ['eip1559', 'legacy', 'eip2930'] as const) {
    test(`a ${type} transfer is mined and moves the recipient's balance by its value`, async () => {
      const value = 1_234_567_890_123n;
      const before = await client.getBalance({ address: recipient });
      const common = { chainId: node.chainId, nonce: await nonce(), gas: 21_000n, to: recipient, value } as const;
      const transaction: TransactionSerializable =
        type === 'eip1559'
          ? { ...common, type, ...fees() }
          : type === 'legacy'
            ? { ...common, type, gasPrice: 20_000_000_000n }
            : { ...common, type, gas: 30_000n, gasPrice: 20_000_000_000n, accessList: [{ address: recipient, storageKeys: [] }] };
      const receipt = await signAndSend(transaction);
      assert.equal(receipt.type, type);
      assert.equal(await client.getBalance({ address: recipient }), before + value);
    });
  }

  test('a transaction for another chain is refused by the node (EIP-155 replay protection holds)', async () => {
    const unsigned = serializeTransaction({ type: 'eip1559', chainId: 1, nonce: await nonce(), gas: 21_000n, to: recipient, value: 1n, ...fees() });
    const { signedTransaction } = signEthereumTransaction(unsigned, sender.privateKey);
    await assert.rejects(client.request({ method: 'eth_sendRawTransaction', params: [`0x${signedTransaction}`] }), /invalid chainId/);
  });

  test('an EIP-7702 transaction (Prague) sets the delegation its authorization, signed by signRawPayload, names, and moves the value', async () => {
    assert.match(node.hardfork, /^prague$/i);
    const delegate = recipient;
    const authorityNonce = await client.getTransactionCount({ address: authorityAddress });
    // @turnkey/viem's signAuthorization sends this payload; the authority pays nothing (the sender does).
    const signature = signRawPayload({
      curve: 'CURVE_SECP256K1',
      privateKey: authority.privateKey,
      payload: JSON.stringify({ address: delegate, chainId: node.chainId, nonce: authorityNonce }),
      encoding: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    const value = 777n;
    const receipt = await signAndSend({
      type: 'eip7702',
      chainId: node.chainId,
      nonce: await nonce(),
      gas: 100_000n,
      to: authorityAddress,
      value,
      ...fees(),
      authorizationList: [
        { address: delegate, chainId: node.chainId, nonce: authorityNonce, r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: Number.parseInt(signature.v, 16) },
      ],
    });
    assert.equal(receipt.type, 'eip7702');
    assert.equal(await client.getCode({ address: authorityAddress }), `0xef0100${delegate.slice(2).toLowerCase()}`);
    assert.equal(await client.getBalance({ address: authorityAddress }), value);
  });
});

describe('LiteSVM executes what signSolanaTransaction signs', () => {
  const key = deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/0'/0'");
  const payer = new PublicKey(addressOf('CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA', key.publicKey));
  const recipient = new PublicKey(addressOf('CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA', deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/1'/0'").publicKey));
  const FUNDS = 10_000_000_000n;
  /** Where the lookup table lives (any address will do; this one is derived too, so it never changes). */
  const TABLE = new PublicKey(deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/2'/0'").publicKey);

  /** What @turnkey/solana sends: the transaction serialized without its signatures, in hex. */
  const unsigned = (transaction: Transaction | VersionedTransaction) =>
    toHex(transaction instanceof VersionedTransaction ? transaction.serialize() : transaction.serialize({ requireAllSignatures: false, verifySignatures: false })).slice(2);

  function setUp() {
    const local = startSvm();
    local.airdrop(payer, FUNDS);
    assert.equal(local.balance(payer), FUNDS);
    return local;
  }

  test('the key at m/44\'/501\'/0\'/0\' is the address @solana/web3.js derives from the same seed', () => {
    assert.equal(payer.toBase58(), Keypair.fromSeed(key.privateKey).publicKey.toBase58());
  });

  test('a legacy SOL transfer is executed and moves the balances by its value and the fee', () => {
    const local = setUp();
    const lamports = 1_500_000;
    const transaction = new Transaction({ feePayer: payer, recentBlockhash: local.blockhash() });
    transaction.add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: recipient, lamports }));
    const { signedTransaction } = signSolanaTransaction(unsigned(transaction), key.privateKey);
    local.send(signedTransaction);
    assert.equal(local.balance(recipient), BigInt(lamports));
    // One signature at LiteSVM's default 5000 lamports each.
    assert.equal(local.balance(payer), FUNDS - BigInt(lamports) - 5000n);
  });

  test('a v0 transfer whose recipient comes from an address lookup table is executed', () => {
    const local = setUp();
    const lamports = 2_500_000;
    const table = local.lookupTable(TABLE, [recipient]);
    const message = new TransactionMessage({
      payerKey: payer,
      recentBlockhash: local.blockhash(),
      instructions: [SystemProgram.transfer({ fromPubkey: payer, toPubkey: recipient, lamports })],
    }).compileToV0Message([table]);
    const transaction = new VersionedTransaction(message);
    assert.equal(transaction.version, 0);
    const { signedTransaction, message: decoded } = signSolanaTransaction(unsigned(transaction), key.privateKey);
    assert.equal(decoded.version, 0);
    // The recipient is not among the static keys: the runtime found it in the table.
    assert.ok(!decoded.accountKeys.includes(recipient.toBase58()));
    assert.deepEqual(decoded.addressTableLookups, [{ accountKey: table.key.toBase58(), writableIndexes: [0], readonlyIndexes: [] }]);
    local.send(signedTransaction);
    assert.equal(local.balance(recipient), BigInt(lamports));
    assert.equal(local.balance(payer), FUNDS - BigInt(lamports) - 5000n);
  });

  test('a transaction whose signature is not the payer\'s is refused by LiteSVM and moves nothing', () => {
    const local = setUp();
    const transaction = new Transaction({ feePayer: payer, recentBlockhash: local.blockhash() });
    transaction.add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: recipient, lamports: 1_000 }));
    const signed = Buffer.from(signSolanaTransaction(unsigned(transaction), key.privateKey).signedTransaction, 'hex');
    signed.writeUInt8(signed.readUInt8(1) ^ 0x01, 1); // the first byte of the only signature (after its compact-u16 count)
    assert.throws(() => local.send(signed), /signature/i);
    assert.equal(local.balance(recipient), 0n);
    assert.equal(local.balance(payer), FUNDS);
  });
});
