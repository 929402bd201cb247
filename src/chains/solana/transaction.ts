// Solana transactions for sign_transaction (TRANSACTION_TYPE_SOLANA), pure: the transaction as
// @turnkey/solana sends it (the wire format in hex: signatures, then the message, with an all-zero
// signature in each slot not signed yet), legacy or v0 message, decoded by @solana/transactions and
// @solana/transaction-messages; the slot of the signing key found among the required signers; the
// message bytes signed with Ed25519; the transaction answered in hex with that slot filled (what
// @turnkey/solana deserializes). The decoded message is exposed for the policies.
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { getCompiledTransactionMessageDecoder } from '@solana/transaction-messages';
import { getTransactionDecoder, getTransactionEncoder, type Transaction } from '@solana/transactions';
import { ParameterRejected } from '../../keys/parameterRejected.ts';

/** A Solana transaction travels in one packet: at most 1232 bytes (the network's PACKET_DATA_SIZE). */
export const MAX_TRANSACTION_BYTES = 1232;

const FIELD = 'parameters.unsignedTransaction';

export interface SolanaInstruction {
  /** Index of the program's address in accountKeys (a program is never loaded from a lookup table). */
  programIdIndex: number;
  /** The program's address, base58. */
  programId: string | undefined;
  /** Indexes into accountKeys, then into the lookup tables' writable, then readonly, addresses (v0). */
  accounts: number[];
  /** The instruction data, hex. */
  data: string;
}

export interface SolanaAddressTableLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

/** A transaction's message as a policy reads it: addresses in base58. */
export interface SolanaMessage {
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  /** The static account keys; the first numRequiredSignatures sign, the first of them pays the fee. */
  accountKeys: string[];
  /** The recent blockhash, or the durable nonce, base58. */
  recentBlockhash: string;
  instructions: SolanaInstruction[];
  /** v0 only (empty for legacy). */
  addressTableLookups: SolanaAddressTableLookup[];
  /** The required signers and whether each slot holds a signature already. */
  signers: { address: string; signed: boolean }[];
}

export interface ParsedSolanaTransaction {
  message: SolanaMessage;
  transaction: Transaction;
}

const HEX = /^(?:0x)?((?:[0-9a-fA-F]{2})+)$/;

/** The transaction decoded; a ParameterRejected naming parameters.unsignedTransaction when it is not one. */
export function parseSolanaTransaction(unsignedTransaction: unknown): ParsedSolanaTransaction {
  if (typeof unsignedTransaction !== 'string') throw new ParameterRejected(FIELD, 'must be the serialized transaction in hexadecimal');
  if ((unsignedTransaction.startsWith('0x') ? unsignedTransaction.length - 2 : unsignedTransaction.length) > MAX_TRANSACTION_BYTES * 2) {
    throw new ParameterRejected(FIELD, `is longer than ${MAX_TRANSACTION_BYTES} bytes, the most a Solana transaction may have`);
  }
  const match = HEX.exec(unsignedTransaction);
  if (!match) throw new ParameterRejected(FIELD, 'must be the serialized transaction as an even number of hexadecimal digits');
  const bytes = Buffer.from(match[1]!, 'hex');
  let transaction: Transaction;
  let compiled: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
  let end: number;
  try {
    transaction = getTransactionDecoder().decode(bytes);
    [compiled, end] = getCompiledTransactionMessageDecoder().read(transaction.messageBytes, 0);
  } catch (error) {
    throw new ParameterRejected(FIELD, `is not a Solana transaction in its wire format: ${shortMessage(error)}`);
  }
  if (compiled.version !== 'legacy' && compiled.version !== 0) {
    throw new ParameterRejected(FIELD, `has a version ${String(compiled.version)} message; legacy and v0 messages are supported`);
  }
  // The decoders read what they need and stop: the transaction must be exactly these bytes, so that
  // what is signed and answered is what was sent (no trailing bytes, no signer listed twice).
  if (end !== transaction.messageBytes.length || !reencodes(transaction, bytes)) {
    throw new ParameterRejected(FIELD, 'is not in the canonical wire format (bytes follow the message, or a signer is listed twice)');
  }
  const { header, staticAccounts, instructions, lifetimeToken } = compiled;
  const lookups = compiled.version === 0 ? (compiled.addressTableLookups ?? []) : [];
  const message: SolanaMessage = {
    version: compiled.version,
    header: {
      numRequiredSignatures: header.numSignerAccounts,
      numReadonlySignedAccounts: header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: header.numReadonlyNonSignerAccounts,
    },
    accountKeys: [...staticAccounts],
    recentBlockhash: lifetimeToken,
    instructions: instructions.map((instruction) => ({
      programIdIndex: instruction.programAddressIndex,
      programId: staticAccounts[instruction.programAddressIndex],
      accounts: [...(instruction.accountIndices ?? [])],
      data: Buffer.from(instruction.data ?? new Uint8Array()).toString('hex'),
    })),
    addressTableLookups: lookups.map((lookup) => ({
      accountKey: lookup.lookupTableAddress,
      writableIndexes: [...lookup.writableIndexes],
      readonlyIndexes: [...lookup.readonlyIndexes],
    })),
    signers: Object.entries(transaction.signatures).map(([address, signature]) => ({ address, signed: signature !== null })),
  };
  return { message, transaction };
}

export interface SignedSolanaTransaction {
  /** The transaction in hex (no 0x), the signer's slot filled, the other slots as they were. */
  signedTransaction: string;
  message: SolanaMessage;
}

/** Signs the message with an ed25519 key whose address must be one of the required signers (else a refusal naming `signWith`). */
export function signSolanaTransaction(unsignedTransaction: unknown, privateKey: Uint8Array, signWithField = 'parameters.signWith'): SignedSolanaTransaction {
  return signParsedSolanaTransaction(parseSolanaTransaction(unsignedTransaction), privateKey, signWithField);
}

/** signSolanaTransaction of a transaction parsed already (parseSolanaTransaction): a signature that costs no second parse. */
export function signParsedSolanaTransaction({ message, transaction }: ParsedSolanaTransaction, privateKey: Uint8Array, signWithField = 'parameters.signWith'): SignedSolanaTransaction {
  const address = base58.encode(ed25519.getPublicKey(privateKey));
  if (!Object.hasOwn(transaction.signatures, address)) {
    const where = message.accountKeys.includes(address) ? 'is in the transaction but not among its required signers' : 'is not in the transaction';
    throw new ParameterRejected(signWithField, `its address ${address} ${where}; the required signers are ${message.signers.map((signer) => signer.address).join(', ')}`);
  }
  const signature = ed25519.sign(Uint8Array.from(transaction.messageBytes), privateKey);
  const signed: Transaction = { ...transaction, signatures: { ...transaction.signatures, [address]: signature } } as Transaction;
  return {
    signedTransaction: Buffer.from(getTransactionEncoder().encode(signed)).toString('hex'),
    message: { ...message, signers: message.signers.map((signer) => (signer.address === address ? { ...signer, signed: true } : signer)) },
  };
}

function reencodes(transaction: Transaction, bytes: Buffer): boolean {
  try {
    return Buffer.from(getTransactionEncoder().encode(transaction)).equals(bytes);
  } catch {
    return false;
  }
}

function shortMessage(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]!.slice(0, 200);
}
