// A Solana transaction as a condition reads it (`solana.tx`), pure: the message's keys, its
// instructions (each with its accounts and, when an IDL is stored for its program, its data decoded
// against it), the SOL transfers of the System Program and the SPL token transfers, under the
// ecosystem's names. An account loaded from an address lookup table has no address in the message:
// it is bound without account_key (and a transfer naming it without that side), so that a condition
// reading it fails closed instead of reading a made-up address.
import type { SolanaMessage } from '../chains/solana/transaction.ts';
import { decodeSolanaInstruction, type SolanaCall } from '../contracts/decodeSolanaInstruction.ts';
import { normalizeInt, type PolicyStruct, type PolicyValue } from '../policy/index.ts';
import type { InterfaceIndex } from './interfaces.ts';
import { policyValue } from './values.ts';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

export interface SolanaTransferView {
  readonly from?: string;
  readonly to?: string;
  readonly amount: bigint;
}

export interface SplTransferView extends SolanaTransferView {
  readonly owner?: string;
  readonly signers: readonly (string | undefined)[];
  /** '' for a plain Transfer, which does not name the mint. */
  readonly tokenMint?: string;
  /** TransferChecked and TransferCheckedWithFee state the mint's decimals. */
  readonly decimals?: number;
}

export interface SolanaInstructionView {
  readonly programKey: string | undefined;
  readonly programLabel?: string;
  readonly call?: SolanaCall;
  readonly callProblem?: string;
}

export interface SolanaTransactionView {
  /** What `solana.tx` is bound to. */
  readonly tx: PolicyStruct;
  readonly instructions: readonly SolanaInstructionView[];
  readonly transfers: readonly SolanaTransferView[];
  readonly splTransfers: readonly SplTransferView[];
  readonly message: SolanaMessage;
}

interface ResolvedAccount {
  /** Undefined for an account loaded from a lookup table. */
  readonly address: string | undefined;
  readonly signer: boolean;
  readonly writable: boolean;
  /** For a lookup table's account: the table's index among the message's lookups, and the index in the table. */
  readonly lookup?: { readonly table: number; readonly index: number };
}

/** Every account index of the message resolved: the static keys, then each table's writable, then each table's readonly addresses. */
function accountsOf(message: SolanaMessage): ResolvedAccount[] {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = message.header;
  const count = message.accountKeys.length;
  const accounts: ResolvedAccount[] = message.accountKeys.map((address, i) => ({
    address,
    signer: i < numRequiredSignatures,
    writable: i < numRequiredSignatures ? i < numRequiredSignatures - numReadonlySignedAccounts : i < count - numReadonlyUnsignedAccounts,
  }));
  message.addressTableLookups.forEach((lookup, table) => {
    for (const index of lookup.writableIndexes) accounts.push({ address: undefined, signer: false, writable: true, lookup: { table, index } });
  });
  message.addressTableLookups.forEach((lookup, table) => {
    for (const index of lookup.readonlyIndexes) accounts.push({ address: undefined, signer: false, writable: false, lookup: { table, index } });
  });
  return accounts;
}

function readU64(data: Buffer, offset: number): bigint {
  return data.readBigUInt64LE(offset);
}

/** The view of a decoded message, its instructions decoded against the organization's IDLs. */
export function solanaTransactionView(message: SolanaMessage, interfaces: InterfaceIndex): SolanaTransactionView {
  const resolved = accountsOf(message);
  const account = (index: number) => resolved[index];
  const transfers: SolanaTransferView[] = [];
  const splTransfers: SplTransferView[] = [];
  const instructionViews: SolanaInstructionView[] = [];
  const programKeys: string[] = [];

  const instructions = message.instructions.map((instruction) => {
    const programKey = instruction.programId;
    if (programKey !== undefined && !programKeys.includes(programKey)) programKeys.push(programKey);
    const accounts = instruction.accounts.map((index) => account(index));
    const addresses = accounts.map((item) => item?.address);
    const data = Buffer.from(instruction.data, 'hex');
    const bound: Record<string, PolicyValue> = {
      accounts: accounts.map((item) => {
        const entry: Record<string, PolicyValue> = { signer: item?.signer ?? false, writable: item?.writable ?? false };
        if (item?.address !== undefined) entry.account_key = item.address;
        return entry;
      }),
      instruction_data_hex: instruction.data,
      address_table_lookups: instructionLookups(message, accounts),
    };
    if (programKey !== undefined) bound.program_key = programKey;

    const view: { -readonly [K in keyof SolanaInstructionView]: SolanaInstructionView[K] } = { programKey };
    const program = programKey === undefined ? undefined : interfaces.solana.get(programKey);
    if (program) {
      view.programLabel = program.label;
      const decoded = decodeSolanaInstruction(program.idl, data, addresses);
      if (decoded.ok) {
        view.call = decoded.value;
        bound.parsed_instruction_data = {
          instruction_name: decoded.value.instructionName,
          discriminator: decoded.value.discriminator,
          named_accounts: { ...decoded.value.namedAccounts },
          program_call_args: policyValue(decoded.value.args),
        };
      } else {
        view.callProblem = decoded.problem;
      }
    }
    instructionViews.push(view);

    if (programKey === SYSTEM_PROGRAM && data.length === 12 && data.readUInt32LE(0) === 2 && addresses.length >= 2) {
      // SystemInstruction::Transfer { lamports }: accounts [from, to].
      transfers.push(side({ amount: readU64(data, 4) }, addresses[0], addresses[1]));
    } else if (programKey === TOKEN_PROGRAM || programKey === TOKEN_2022_PROGRAM) {
      const spl = splTransfer(programKey, data, addresses);
      if (spl) splTransfers.push(spl);
    }
    return bound;
  });

  const tx: PolicyStruct = {
    account_keys: [...message.accountKeys],
    program_keys: programKeys,
    instructions,
    transfers: transfers.map((transfer) => bindTransfer(transfer)),
    recent_blockhash: message.recentBlockhash,
    spl_transfers: splTransfers.map((transfer) => {
      const bound = bindTransfer(transfer);
      if (transfer.owner !== undefined) bound.owner = transfer.owner;
      if (transfer.tokenMint !== undefined) bound.token_mint = transfer.tokenMint;
      // A signer loaded from a lookup table has no address: the list is bound only when every one has.
      if (transfer.signers.every((signer) => signer !== undefined)) bound.signers = [...(transfer.signers as string[])];
      return bound;
    }),
    address_table_lookups: message.addressTableLookups.map((lookup) => ({
      address_table_key: lookup.accountKey,
      writable_indexes: [...lookup.writableIndexes],
      readonly_indexes: [...lookup.readonlyIndexes],
    })),
  };
  return { tx, instructions: instructionViews, transfers, splTransfers, message };
}

function side<T extends { amount: bigint }>(value: T, from: string | undefined, to: string | undefined): T & { from?: string; to?: string } {
  const result: T & { from?: string; to?: string } = { ...value };
  if (from !== undefined) result.from = from;
  if (to !== undefined) result.to = to;
  return result;
}

function bindTransfer(transfer: SolanaTransferView): Record<string, PolicyValue> {
  const bound: Record<string, PolicyValue> = { amount: normalizeInt(transfer.amount) };
  if (transfer.from !== undefined) bound.from = transfer.from;
  if (transfer.to !== undefined) bound.to = transfer.to;
  return bound;
}

/**
 * SPL Token and Token-2022 transfers: Transfer (3) [source, destination, owner, signers…],
 * TransferChecked (12) [source, mint, destination, owner, signers…], and Token-2022's
 * TransferCheckedWithFee (26, 1) [source, mint, destination, owner, signers…]; other instructions none.
 */
function splTransfer(program: string, data: Buffer, addresses: readonly (string | undefined)[]): SplTransferView | undefined {
  const build = (amount: bigint, source: number, destination: number, owner: number, mint: string | undefined, decimals?: number): SplTransferView | undefined => {
    if (addresses.length <= owner) return undefined;
    const transfer = side({ amount, signers: addresses.slice(owner + 1) } as SplTransferView, addresses[source], addresses[destination]) as SplTransferView & {
      owner?: string;
      tokenMint?: string;
      decimals?: number;
    };
    if (addresses[owner] !== undefined) transfer.owner = addresses[owner];
    if (mint !== undefined) transfer.tokenMint = mint;
    if (decimals !== undefined) transfer.decimals = decimals;
    return transfer;
  };
  if (data.length === 9 && data[0] === 3) return build(readU64(data, 1), 0, 1, 2, '');
  if (data.length === 10 && data[0] === 12) return build(readU64(data, 1), 0, 2, 3, addresses[1], data[9]);
  if (program === TOKEN_2022_PROGRAM && data.length === 19 && data[0] === 26 && data[1] === 1) return build(readU64(data, 2), 0, 2, 3, addresses[1], data[10]);
  return undefined;
}

/** The lookup tables an instruction's accounts come from, with the indexes it uses in each. */
function instructionLookups(message: SolanaMessage, accounts: readonly (ResolvedAccount | undefined)[]): PolicyValue[] {
  const used = new Map<number, { writable: number[]; readonly: number[] }>();
  for (const item of accounts) {
    if (!item?.lookup) continue;
    const entry = used.get(item.lookup.table) ?? { writable: [], readonly: [] };
    const list = item.writable ? entry.writable : entry.readonly;
    if (!list.includes(item.lookup.index)) list.push(item.lookup.index);
    used.set(item.lookup.table, entry);
  }
  return [...used.entries()].map(([table, { writable, readonly }]) => ({
    address_table_key: message.addressTableLookups[table]!.accountKey,
    writable_indexes: writable,
    readonly_indexes: readonly,
  }));
}
