// A local Solana runtime for the tests: LiteSVM (`litesvm`, the Solana VM with its built-in programs,
// in this process as a native addon npm installs prebuilt for each platform; no validator, no
// network). It checks each transaction's signatures and recent blockhash, executes it and keeps the
// accounts; balances are read straight from its state. The helpers take @solana/web3.js objects (what
// @turnkey/solana signs) or a transaction's wire bytes (what sign_transaction answers, in hex).
import { createRequire } from 'node:module';
import { AddressLookupTableAccount, AddressLookupTableProgram, PublicKey, Transaction, VersionedTransaction } from '@solana/web3.js';
import { getTransactionDecoder } from '@solana/transactions';
import type { FailedTransactionMetadata, LiteSVM, TransactionMetadata } from 'litesvm';

const require = createRequire(import.meta.url);

/** An account's address: a web3.js key, or base58. */
export type SolanaAddress = PublicKey | string;

export interface LocalSvm {
  svm: LiteSVM;
  /** The blockhash a transaction must name now (LiteSVM refuses any other). */
  blockhash(): string;
  /** Credits lamports to an address (LiteSVM's airdrop, a transfer from its own funded account). */
  airdrop(address: SolanaAddress, lamports: bigint): void;
  /** The balance in lamports, 0n for an account that does not exist. */
  balance(address: SolanaAddress): bigint;
  /**
   * Writes an active address lookup table at `address` holding `addresses` (as the lookup table
   * program stores one, owned by it), for v0 messages to resolve; answers it as web3.js compiles with it.
   */
  lookupTable(address: PublicKey, addresses: PublicKey[]): AddressLookupTableAccount;
  /** Executes a transaction (a web3.js object, or its wire bytes, or those in hex); throws with the error and the logs when it fails. */
  send(transaction: Transaction | VersionedTransaction | Uint8Array | string): TransactionMetadata;
}

type Kit = Parameters<LiteSVM['sendTransaction']>[0];
type KitAddress = Parameters<LiteSVM['getBalance']>[0];
type KitLamports = Parameters<LiteSVM['airdrop']>[1];
type KitAccount = Parameters<LiteSVM['setAccount']>[0];
const kitAddress = (address: SolanaAddress) => (typeof address === 'string' ? address : address.toBase58()) as KitAddress;

export function startSvm(): LocalSvm {
  // Loaded here, not at import: a file importing this helper loads even where the addon cannot.
  const { LiteSVM: Svm, FailedTransactionMetadata: Failed } = require('litesvm') as typeof import('litesvm');
  const svm = new Svm();
  const isFailure = (result: unknown): result is FailedTransactionMetadata => result instanceof Failed;
  return {
    svm,
    blockhash: () => svm.latestBlockhash(),
    airdrop(address, lamports) {
      const result = svm.airdrop(kitAddress(address), lamports as KitLamports);
      if (result === null || isFailure(result)) throw new Error(`airdrop to ${kitAddress(address)} failed: ${result === null ? 'no result' : result.toString()}`);
    },
    balance: (address) => svm.getBalance(kitAddress(address)) ?? 0n,
    lookupTable(address, addresses) {
      const data = lookupTableState(addresses);
      svm.setAccount({
        address: kitAddress(address),
        data,
        executable: false,
        lamports: svm.minimumBalanceForRentExemption(BigInt(data.length)) as KitLamports,
        programAddress: kitAddress(AddressLookupTableProgram.programId),
        space: BigInt(data.length),
      } as KitAccount);
      // Addresses are usable from the slot after the one they were added in (slot 0 here).
      svm.warpToSlot(1n);
      return new AddressLookupTableAccount({ key: address, state: AddressLookupTableAccount.deserialize(data) });
    },
    send(transaction) {
      const result = svm.sendTransaction(getTransactionDecoder().decode(wireBytes(transaction)) as unknown as Kit);
      if (isFailure(result)) throw new Error(`the transaction failed: ${result.toString()}\n${result.meta().logs().join('\n')}`);
      return result;
    },
  };
}

function wireBytes(transaction: Transaction | VersionedTransaction | Uint8Array | string): Uint8Array {
  if (typeof transaction === 'string') return Buffer.from(transaction.replace(/^0x/, ''), 'hex');
  if (transaction instanceof Uint8Array) return transaction;
  return transaction.serialize();
}

/**
 * The lookup table program's account data (bincode): the variant LookupTable (u32 1), then its meta,
 * deactivation slot u64::MAX (active), last extended slot 0, its start index 0, no authority (frozen),
 * two bytes of padding: 56 bytes; then the addresses, 32 bytes each.
 */
function lookupTableState(addresses: PublicKey[]): Uint8Array {
  const data = Buffer.alloc(56 + 32 * addresses.length);
  data.writeUInt32LE(1, 0);
  data.writeBigUInt64LE(2n ** 64n - 1n, 4);
  addresses.forEach((address, index) => address.toBuffer().copy(data, 56 + 32 * index));
  return new Uint8Array(data);
}
