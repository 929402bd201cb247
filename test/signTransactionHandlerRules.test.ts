// The rules of sign_transaction on plain data (no store): the one read it makes (the account at
// signWith), an Ethereum transaction (EIP-1559, legacy with EIP-155, EIP-2930, EIP-7702) signed by the
// secp256k1 account's key so that viem recovers its address, a Solana transaction (legacy and v0) with
// the ed25519 account's slot filled and the other slots as sent, the answer in hex without 0x and
// nothing written; what does not parse refused by the parameter schema (at intake, before anything is
// decided) naming parameters.unsignedTransaction; a type the account's curve cannot sign refused
// naming parameters.type; a Solana transaction the account does not sign naming parameters.signWith;
// a signWith the organization has no account at a 404.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { parseTransaction, recoverTransactionAddress, serializeTransaction, type TransactionSerializable } from 'viem';
import { createWallet } from '../src/activities/handlers/wallets/createWallet.ts';
import { MAX_UNSIGNED_TRANSACTION_CHARACTERS, signTransaction } from '../src/activities/handlers/wallets/signTransaction.ts';
import { SignetError } from '../src/errors.ts';
import type { NewWallet, NewWalletAccount } from '../src/store/wallets.ts';
import { fieldViolations } from '../src/wire/violations.ts';
import { effectsOf, ORGANIZATION_ID, planOf, signerStore, checksOf } from './support/handlerRules.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';

/** A wallet as create_wallet plans it, and a store that answers its accounts by address as findSigner reads them. */
async function storedWallet() {
  const plan = await planOf(createWallet, { walletName: 'w', accounts: [ETHEREUM, SOLANA] });
  const writes = effectsOf(plan, 'write');
  const wallet = writes.find((w) => w.name === 'insertWallet')!.args[0] as NewWallet;
  const accounts = writes.find((w) => w.name === 'insertWalletAccounts')!.args[2] as NewWalletAccount[];
  const { db, reads } = signerStore(wallet, accounts);
  return { ethereum: accounts[0]!, solana: accounts[1]!, db, reads };
}

const ethereumTransaction = (transaction: Partial<TransactionSerializable> = {}) =>
  serializeTransaction({
    type: 'eip1559',
    chainId: 31337,
    nonce: 7,
    gas: 21_000n,
    maxFeePerGas: 20_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    to: RECIPIENT,
    value: 10n ** 15n,
    ...transaction,
  } as TransactionSerializable);

/** A legacy SOL transfer paid by `payer`, serialized unsigned in hex as @turnkey/solana sends it. */
function solanaTransfer(payer: string, ...otherSigners: PublicKey[]): string {
  const transaction = new Transaction({ feePayer: new PublicKey(payer), recentBlockhash: BLOCKHASH });
  transaction.add(SystemProgram.transfer({ fromPubkey: new PublicKey(payer), toPubkey: Keypair.generate().publicKey, lamports: 1_000 }));
  for (const signer of otherSigners) transaction.add(SystemProgram.transfer({ fromPubkey: signer, toPubkey: new PublicKey(payer), lamports: 1 }));
  return Buffer.from(transaction.serialize({ requireAllSignatures: false, verifySignatures: false })).toString('hex');
}

/** The field violations of a refusal by execute, as `field: description` lines. */
async function refusal(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SignetError, String(error));
    assert.equal(error.status, 400);
    return error.fieldViolations.map((v) => `${v.field}: ${v.description}`);
  }
  assert.fail('the request was taken');
}

/** The field violations of parameters the schema (intake) refuses. */
function schemaRefusals(parameters: unknown): string[] {
  const parsed = signTransaction.parameters.safeParse(parameters, { reportInput: true });
  assert.equal(parsed.success, false, 'the parameters were taken');
  return fieldViolations(parsed.error!, 'parameters').map((v) => `${v.field}: ${v.description}`);
}

describe('sign_transaction', () => {
  test("an EIP-1559 transaction is signed by the Ethereum account's key: viem recovers its address; hex without 0x; nothing written", async () => {
    const { ethereum, db, reads } = await storedWallet();
    const unsigned = ethereumTransaction();
    const plan = await planOf(signTransaction, { signWith: ethereum.address, unsignedTransaction: unsigned.slice(2), type: 'TRANSACTION_TYPE_ETHEREUM' }, { db });
    assert.equal(reads.length, 1);
    assert.ok(reads[0]!.includes(ORGANIZATION_ID) && reads[0]!.includes(ethereum.address.toLowerCase()));
    assert.deepEqual(checksOf(plan).map(({ name, args }) => ({ name, args })), [{ name: 'signerStillThere', args: [ORGANIZATION_ID, 'wallet_account', ethereum.walletAccountId] }]);
    const { signedTransaction } = plan.result as { signedTransaction: string };
    assert.match(signedTransaction, /^02[0-9a-f]+$/);
    const signed = `0x${signedTransaction}` as const;
    assert.equal(await recoverTransactionAddress({ serializedTransaction: signed as never }), ethereum.address);
    // What was signed is what was sent: the signed transaction without its signature is the unsigned one.
    const { r: _r, s: _s, yParity: _y, v: _v, ...fields } = parseTransaction(signed);
    assert.equal(serializeTransaction(fields as TransactionSerializable), unsigned);
  });

  test('legacy (EIP-155), EIP-2930 and EIP-7702 transactions, with or without 0x, are signed by the account', async () => {
    const { ethereum, db } = await storedWallet();
    const transactions = [
      ethereumTransaction({ type: 'legacy', gasPrice: 20_000_000_000n, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined }),
      ethereumTransaction({ type: 'eip2930', gasPrice: 20_000_000_000n, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined, accessList: [{ address: RECIPIENT, storageKeys: [] }] }),
      ethereumTransaction({
        type: 'eip7702',
        authorizationList: [{ address: RECIPIENT, chainId: 31337, nonce: 0, r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, yParity: 1 }],
      }),
    ];
    for (const [index, unsigned] of transactions.entries()) {
      const unsignedTransaction = index % 2 === 0 ? unsigned : unsigned.slice(2);
      const plan = await planOf(signTransaction, { signWith: ethereum.address, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' }, { db });
      const { signedTransaction } = plan.result as { signedTransaction: string };
      assert.doesNotMatch(signedTransaction, /^0x/);
      const signed = `0x${signedTransaction}` as const;
      assert.equal(parseTransaction(signed).type, parseTransaction(unsigned).type);
      assert.equal(await recoverTransactionAddress({ serializedTransaction: signed as never }), ethereum.address, parseTransaction(unsigned).type);
    }
  });

  test("a Solana transaction gets the account's signature in its slot, the other slots as sent; legacy and v0", async () => {
    const { solana, db } = await storedWallet();
    const cosigner = Keypair.generate().publicKey;
    const legacy = solanaTransfer(solana.address, cosigner);
    const v0 = Buffer.from(
      new VersionedTransaction(
        new TransactionMessage({
          payerKey: new PublicKey(solana.address),
          recentBlockhash: BLOCKHASH,
          instructions: [SystemProgram.transfer({ fromPubkey: new PublicKey(solana.address), toPubkey: cosigner, lamports: 5 })],
        }).compileToV0Message(),
      ).serialize(),
    ).toString('hex');
    for (const unsignedTransaction of [legacy, v0]) {
      const plan = await planOf(signTransaction, { signWith: solana.address, unsignedTransaction, type: 'TRANSACTION_TYPE_SOLANA' }, { db });
      const { signedTransaction } = plan.result as { signedTransaction: string };
      const signed = VersionedTransaction.deserialize(Buffer.from(signedTransaction, 'hex'));
      const payerSlot = signed.message.staticAccountKeys.findIndex((key) => key.toBase58() === solana.address);
      assert.equal(payerSlot, 0);
      assert.ok(ed25519.verify(signed.signatures[0]!, signed.message.serialize(), Buffer.from(solana.publicKey, 'hex')));
      // The cosigner's slot (legacy) is still empty: only the account's is filled.
      for (const other of signed.signatures.slice(1)) assert.ok(other.every((byte) => byte === 0));
      // The message is the one sent.
      assert.equal(Buffer.from(signedTransaction, 'hex').subarray(1 + 64 * signed.signatures.length).toString('hex'), unsignedTransaction.slice(2 + 128 * signed.signatures.length));
    }
  });

  test('the schema refuses, at intake, what does not parse as a transaction of its type, naming parameters.unsignedTransaction', async () => {
    const { ethereum, solana } = await storedWallet();
    const eth = { signWith: ethereum.address, type: 'TRANSACTION_TYPE_ETHEREUM' };
    const sol = { signWith: solana.address, type: 'TRANSACTION_TYPE_SOLANA' };
    const unsigned = ethereumTransaction();
    const cases: Array<[object, RegExp]> = [
      [{ ...eth, unsignedTransaction: 'xyz' }, /even number of hexadecimal digits/],
      [{ ...eth, unsignedTransaction: '' }, /even number of hexadecimal digits/],
      [{ ...eth, unsignedTransaction: '03c0' }, /type byte 0x03/],
      [{ ...eth, unsignedTransaction: '02c0' }, /not a valid transaction of type eip1559/],
      [{ ...eth, unsignedTransaction: `${unsigned}00` }, /not in the canonical eip1559 encoding/],
      [{ ...eth, unsignedTransaction: unsigned.slice(0, -2) }, /not a valid transaction of type eip1559/],
      [{ ...eth, unsignedTransaction: serializeTransaction({ type: 'legacy', nonce: 0, gas: 21_000n, gasPrice: 1n, to: RECIPIENT, value: 1n }) }, /without an EIP-155 chain id/],
      [{ ...eth, unsignedTransaction: serializeTransaction(parseTransaction(unsigned) as TransactionSerializable, { r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, yParity: 0 }) }, /already signed/],
      [{ ...eth, unsignedTransaction: `02${'00'.repeat(131_072)}` }, /longer than 131072 bytes/],
      [{ ...sol, unsignedTransaction: unsigned.slice(2) }, /not a Solana transaction|canonical/],
      [{ ...sol, unsignedTransaction: solanaTransfer(solana.address) + '00' }, /canonical wire format/],
      [{ ...sol, unsignedTransaction: '00'.repeat(1233) }, /longer than 1232 bytes/],
    ];
    for (const [parameters, pattern] of cases) {
      const refusals = schemaRefusals(parameters);
      assert.equal(refusals.length, 1, refusals.join('\n'));
      assert.match(refusals[0]!, /^parameters\.unsignedTransaction: /);
      assert.match(refusals[0]!, pattern);
    }
    assert.deepEqual(schemaRefusals({ ...eth, unsignedTransaction: 'a'.repeat(MAX_UNSIGNED_TRANSACTION_CHARACTERS + 1) }), [
      `parameters.unsignedTransaction: is longer than ${MAX_UNSIGNED_TRANSACTION_CHARACTERS} characters`,
    ]);
  });

  test('the schema refuses a type Signet does not sign or none, a value not a string, an empty signWith, an unknown field', () => {
    const unsignedTransaction = ethereumTransaction();
    assert.deepEqual(schemaRefusals({ signWith: RECIPIENT, unsignedTransaction, type: 'TRANSACTION_TYPE_BITCOIN' }), [
      'parameters.type: must be one of TRANSACTION_TYPE_ETHEREUM, TRANSACTION_TYPE_SOLANA (Signet signs no other transactions)',
    ]);
    assert.deepEqual(
      schemaRefusals({ signWith: '', unsignedTransaction: 7, extra: true }).sort((a, b) => a.localeCompare(b)),
      [
        'parameters.extra: unknown field; remove it (field names are case-sensitive)',
        'parameters.signWith: must not be empty',
        'parameters.type: must be one of TRANSACTION_TYPE_ETHEREUM, TRANSACTION_TYPE_SOLANA (Signet signs no other transactions)',
        'parameters.unsignedTransaction: must be a string',
      ],
    );
  });

  test("a type the account's curve cannot sign is a 400 naming parameters.type; a Solana transaction the account does not sign names signWith", async () => {
    const { ethereum, solana, db } = await storedWallet();
    assert.deepEqual(await refusal(planOf(signTransaction, { signWith: solana.address, unsignedTransaction: ethereumTransaction(), type: 'TRANSACTION_TYPE_ETHEREUM' }, { db })), [
      'parameters.type: TRANSACTION_TYPE_ETHEREUM is signed by a CURVE_SECP256K1 key; parameters.signWith is a CURVE_ED25519 key',
    ]);
    assert.deepEqual(await refusal(planOf(signTransaction, { signWith: ethereum.address, unsignedTransaction: solanaTransfer(solana.address), type: 'TRANSACTION_TYPE_SOLANA' }, { db })), [
      'parameters.type: TRANSACTION_TYPE_SOLANA is signed by a CURVE_ED25519 key; parameters.signWith is a CURVE_SECP256K1 key',
    ]);
    const stranger = Keypair.generate().publicKey.toBase58();
    const [notSigner] = await refusal(planOf(signTransaction, { signWith: solana.address, unsignedTransaction: solanaTransfer(stranger), type: 'TRANSACTION_TYPE_SOLANA' }, { db }));
    assert.match(notSigner!, new RegExp(`^parameters\\.signWith: its address ${solana.address} is not in the transaction; the required signers are ${stranger}$`));
  });

  test('a signWith the organization has no account at is a 404', async () => {
    const { db } = await storedWallet();
    await assert.rejects(planOf(signTransaction, { signWith: RECIPIENT, unsignedTransaction: ethereumTransaction(), type: 'TRANSACTION_TYPE_ETHEREUM' }, { db }), (error: unknown) => {
      assert.ok(error instanceof SignetError);
      assert.equal(error.reason, 'WALLET_ACCOUNT_NOT_FOUND');
      assert.equal(error.status, 404);
      return true;
    });
  });
});
