// Solana transactions for sign_transaction (src/chains/solana/transaction.ts), pure: a transfer built
// and serialized by @solana/web3.js as @turnkey/solana sends it (hex, signatures not required), in a
// legacy and a v0 message (with an address lookup table), comes back with the signer's slot filled,
// which @solana/web3.js deserializes and verifies; other signers' slots are kept; the decoded message
// is exposed; a key that is not a required signer is refused naming signWith.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  appendTransactionMessageInstruction,
  createTransactionMessage,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/transaction-messages';
import { compileTransaction, getTransactionEncoder } from '@solana/transactions';
import { MAX_TRANSACTION_BYTES, parseSolanaTransaction, signSolanaTransaction } from '../src/chains/solana/transaction.ts';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { ParameterRejected } from '../src/keys/parameterRejected.ts';

const seed = mnemonicToSeed('neither lonely flavor argue grass remind eye tag avocado spot unusual intact');
const key = deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/0'/0'");
const signer = Keypair.fromSeed(key.privateKey);
const other = Keypair.fromSeed(deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/1'/0'").privateKey);
const recipient = new PublicKey('7QPgyQwNLqnoSwHEuK8wKy2Y3Ani6EHoZRihTuWkwxbc');
const BLOCKHASH = 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k';
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

const rejected = (field: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ParameterRejected, String(error));
  assert.equal(error.field, field);
  assert.match(error.description, pattern);
  return true;
};

/** What @turnkey/solana sends: the transaction serialized without requiring its signatures, in hex. */
const sent = (transaction: Transaction | VersionedTransaction) =>
  Buffer.from(transaction instanceof VersionedTransaction ? transaction.serialize() : transaction.serialize({ requireAllSignatures: false, verifySignatures: false })).toString('hex');

function legacyTransfer(): Transaction {
  const transaction = new Transaction({ feePayer: signer.publicKey, recentBlockhash: BLOCKHASH });
  transaction.add(SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: recipient, lamports: 1_500_000 }));
  return transaction;
}

function v0Transfer(payer = signer.publicKey): VersionedTransaction {
  const table = new AddressLookupTableAccount({
    key: new PublicKey('AddressLookupTab1e1111111111111111111111111'),
    state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [recipient, MEMO] },
  });
  const message = new TransactionMessage({
    payerKey: payer,
    recentBlockhash: BLOCKHASH,
    instructions: [
      SystemProgram.transfer({ fromPubkey: signer.publicKey, toPubkey: recipient, lamports: 42 }),
      new TransactionInstruction({ programId: MEMO, keys: [{ pubkey: signer.publicKey, isSigner: true, isWritable: false }], data: Buffer.from('signet') }),
    ],
  }).compileToV0Message([table]);
  return new VersionedTransaction(message);
}

test('a legacy transfer comes back signed: @solana/web3.js deserializes it and verifies the signature', () => {
  const transaction = legacyTransfer();
  const { signedTransaction, message } = signSolanaTransaction(sent(transaction), key.privateKey);
  assert.match(signedTransaction, /^[0-9a-f]+$/);
  const signed = Transaction.from(Buffer.from(signedTransaction, 'hex'));
  assert.ok(signed.verifySignatures(true));
  assert.equal(signed.signatures[0]!.publicKey.toBase58(), signer.publicKey.toBase58());
  // The very signature @solana/web3.js makes (Ed25519 is deterministic).
  transaction.sign(signer);
  assert.equal(signedTransaction, transaction.serialize().toString('hex'));
  assert.equal(message.version, 'legacy');
  assert.deepEqual(message.signers, [{ address: signer.publicKey.toBase58(), signed: true }]);
  assert.equal(message.recentBlockhash, BLOCKHASH);
  assert.deepEqual(message.accountKeys, [signer.publicKey.toBase58(), recipient.toBase58(), SystemProgram.programId.toBase58()]);
  assert.deepEqual(message.instructions, [
    { programIdIndex: 2, programId: SystemProgram.programId.toBase58(), accounts: [0, 1], data: '02000000' + '60e3160000000000' },
  ]);
  assert.deepEqual(message.addressTableLookups, []);
});

test('a v0 transfer with an address lookup table comes back signed and verifies; the lookups are decoded', () => {
  const transaction = v0Transfer();
  const { signedTransaction, message } = signSolanaTransaction(sent(transaction), key.privateKey);
  const signed = VersionedTransaction.deserialize(Buffer.from(signedTransaction, 'hex'));
  assert.ok(ed25519.verify(signed.signatures[0]!, signed.message.serialize(), signer.publicKey.toBytes()));
  transaction.sign([signer]);
  assert.equal(signedTransaction, Buffer.from(transaction.serialize()).toString('hex'));
  assert.equal(message.version, 0);
  assert.deepEqual(message.addressTableLookups, [{ accountKey: 'AddressLookupTab1e1111111111111111111111111', writableIndexes: [0], readonlyIndexes: [] }]);
  assert.equal(message.instructions[1]!.programId, MEMO.toBase58());
  assert.equal(message.instructions[1]!.data, Buffer.from('signet').toString('hex'));
});

test('with two signers only the key’s own slot is filled; the other signer can sign after, and both verify', () => {
  const transaction = v0Transfer(other.publicKey);
  const { signedTransaction, message } = signSolanaTransaction(sent(transaction), key.privateKey);
  assert.deepEqual(message.signers, [
    { address: other.publicKey.toBase58(), signed: false },
    { address: signer.publicKey.toBase58(), signed: true },
  ]);
  const partly = VersionedTransaction.deserialize(Buffer.from(signedTransaction, 'hex'));
  assert.ok(partly.signatures[0]!.every((byte) => byte === 0));
  partly.sign([other]);
  for (const [index, keypair] of [other, signer].entries()) {
    assert.ok(ed25519.verify(partly.signatures[index]!, partly.message.serialize(), keypair.publicKey.toBytes()));
  }
  // Signing what another signer already signed keeps that signature.
  const again = signSolanaTransaction(Buffer.from(partly.serialize()).toString('hex'), key.privateKey);
  assert.deepEqual(again.message.signers.map((s) => s.signed), [true, true]);
});

test('a key that is not a required signer is refused naming signWith; what is not a transaction names unsignedTransaction', () => {
  const notSigner = Keypair.fromSeed(deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/2'/0'").privateKey);
  assert.equal(notSigner.publicKey.toBase58(), recipient.toBase58());
  const hex = sent(legacyTransfer());
  assert.throws(() => signSolanaTransaction(hex, notSigner.secretKey.slice(0, 32)), rejected('parameters.signWith', /is in the transaction but not among its required signers; the required signers are /));
  assert.throws(() => signSolanaTransaction(hex, other.secretKey.slice(0, 32), 'signWith'), rejected('signWith', /is not in the transaction/));

  const field = 'parameters.unsignedTransaction';
  assert.throws(() => parseSolanaTransaction(7), rejected(field, /must be the serialized transaction in hexadecimal/));
  assert.throws(() => parseSolanaTransaction('abc'), rejected(field, /even number of hexadecimal digits/));
  assert.throws(() => parseSolanaTransaction('00'.repeat(MAX_TRANSACTION_BYTES + 1)), rejected(field, /longer than 1232 bytes/));
  assert.throws(() => parseSolanaTransaction('0102'), rejected(field, /is not a Solana transaction in its wire format/));
  assert.throws(() => parseSolanaTransaction(`${hex}00`), rejected(field, /is not in the canonical wire format/));
  // One signature slot fewer than the message requires.
  assert.throws(() => parseSolanaTransaction(`00${hex.slice(2 + 128)}`), rejected(field, /is not a Solana transaction in its wire format/));
  assert.equal(parseSolanaTransaction(`0x${hex}`).message.signers.length, 1);
});

test('a version 1 message (the newer format the decoders read) is refused naming unsignedTransaction', () => {
  const message = appendTransactionMessageInstruction(
    { programAddress: MEMO.toBase58() as never, data: new Uint8Array([1]) },
    setTransactionMessageLifetimeUsingBlockhash(
      { blockhash: BLOCKHASH as never, lastValidBlockHeight: 1n },
      // Version 1 is not yet in the library's public types.
      setTransactionMessageFeePayer(signer.publicKey.toBase58() as never, createTransactionMessage({ version: 1 as never }) as never),
    ),
  );
  const hex = Buffer.from(getTransactionEncoder().encode(compileTransaction(message))).toString('hex');
  assert.throws(() => signSolanaTransaction(hex, key.privateKey), rejected('parameters.unsignedTransaction', /has a version 1 message; legacy and v0 messages are supported/));
});
