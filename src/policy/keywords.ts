// The keywords each kind of expression may use, their static types, and the shapes of the values the
// evaluator binds to them (the User, Credential and Activity structs).

export type Type =
  | { readonly kind: 'bool' }
  | { readonly kind: 'int' }
  | { readonly kind: 'string' }
  /** Known only at evaluation: activity.params, whose shape depends on the activity type. */
  | { readonly kind: 'dynamic' }
  /** The element of `[]`, which agrees with every type. */
  | { readonly kind: 'nothing' }
  | { readonly kind: 'list'; readonly of: Type }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: ReadonlyMap<string, Type> };

export const BOOL: Type = { kind: 'bool' };
export const INT: Type = { kind: 'int' };
export const STRING: Type = { kind: 'string' };
export const DYNAMIC: Type = { kind: 'dynamic' };
export const NOTHING: Type = { kind: 'nothing' };
export const listOf = (of: Type): Type => ({ kind: 'list', of });
const struct = (name: string, fields: Record<string, Type>): Type => ({ kind: 'struct', name, fields: new Map(Object.entries(fields)) });

/** `condition` expressions describe the activity; `consensus` expressions describe who approved it. */
export type ExpressionKind = 'condition' | 'consensus';

export const CREDENTIAL_TYPES = [
  'CREDENTIAL_TYPE_API_KEY_P256',
  'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
  'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256',
  'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256',
  'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256',
] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** A user as a consensus expression sees it (an element of `approvers`). */
export interface PolicyUser {
  readonly id: string;
  readonly tags: readonly string[];
  readonly email: string;
  readonly name: string;
}

/** A credential that stamped an approval, as a consensus expression sees it (an element of `credentials`). */
export interface PolicyCredential {
  readonly id: string;
  readonly user_id: string;
  readonly type: CredentialType;
  readonly public_key: string;
  /** The WebAuthn credential id of an authenticator; '' for API keys. */
  readonly credential_id: string;
}

/** JSON-like values, as activity.params holds them; an int beyond 2^53 - 1 in size as a bigint (integers.ts). */
export type PolicyValue = null | boolean | number | bigint | string | readonly PolicyValue[] | { readonly [field: string]: PolicyValue };

/** The `activity` keyword of a condition expression. */
export interface PolicyActivity {
  readonly type: string;
  readonly kind: string;
  /** Absent for an activity type with no entry in activityResources.ts: reading it is an evaluation error. */
  readonly resource?: string;
  readonly action?: string;
  readonly params: { readonly [field: string]: PolicyValue };
}

const USER = struct('User', { id: STRING, tags: listOf(STRING), email: STRING, name: STRING });
const CREDENTIAL = struct('Credential', { id: STRING, user_id: STRING, type: STRING, public_key: STRING, credential_id: STRING });
const ACTIVITY = struct('Activity', { type: STRING, kind: STRING, resource: STRING, action: STRING, params: DYNAMIC });

// The keywords read when an activity signs (the ecosystem's names and shapes). A field a transaction
// lacks (function_name with no ABI for `to`, max_fee_per_gas on a legacy transaction) is absent from
// the bound value: reading it is an evaluation error. A map of decoded arguments (contract_call_args,
// program_call_args, named_accounts, an EIP-712 message) is dynamic: its shape is the interface's.
const ETHEREUM_TRANSACTION = struct('EthereumTransaction', {
  from: STRING,
  to: STRING,
  data: STRING,
  value: INT,
  gas: INT,
  gas_price: INT,
  chain_id: INT,
  nonce: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  max_fee_per_blob_gas: INT,
  type: STRING,
  function_name: STRING,
  function_signature: STRING,
  contract_call_args: DYNAMIC,
});
const EIP712_DOMAIN = struct('Eip712Domain', { name: STRING, version: STRING, chain_id: INT, verifying_contract: STRING });
const EIP712_TYPED_DATA = struct('Eip712TypedData', { primary_type: STRING, domain: EIP712_DOMAIN, message: DYNAMIC });
const ETH = struct('Eth', { tx: ETHEREUM_TRANSACTION, eip_712: EIP712_TYPED_DATA });
const SOLANA_ACCOUNT = struct('Account', { account_key: STRING, signer: BOOL, writable: BOOL });
const ADDRESS_TABLE_LOOKUP = struct('AddressTableLookup', { address_table_key: STRING, writable_indexes: listOf(INT), readonly_indexes: listOf(INT) });
const SOLANA_PARSED_INSTRUCTION_DATA = struct('SolanaParsedInstructionData', {
  instruction_name: STRING,
  discriminator: STRING,
  named_accounts: DYNAMIC,
  program_call_args: DYNAMIC,
});
const SOLANA_INSTRUCTION = struct('Instruction', {
  program_key: STRING,
  accounts: listOf(SOLANA_ACCOUNT),
  instruction_data_hex: STRING,
  address_table_lookups: listOf(ADDRESS_TABLE_LOOKUP),
  parsed_instruction_data: SOLANA_PARSED_INSTRUCTION_DATA,
});
const SOLANA_TRANSFER = struct('Transfer', { from: STRING, to: STRING, amount: INT });
const SPL_TRANSFER = struct('SPLTransfer', { from: STRING, to: STRING, amount: INT, owner: STRING, signers: listOf(STRING), token_mint: STRING });
const SOLANA_TRANSACTION = struct('SolanaTransaction', {
  account_keys: listOf(STRING),
  program_keys: listOf(STRING),
  instructions: listOf(SOLANA_INSTRUCTION),
  transfers: listOf(SOLANA_TRANSFER),
  recent_blockhash: STRING,
  spl_transfers: listOf(SPL_TRANSFER),
  address_table_lookups: listOf(ADDRESS_TABLE_LOOKUP),
});
const SOLANA = struct('Solana', { tx: SOLANA_TRANSACTION });
const WALLET = struct('Wallet', { id: STRING, imported: BOOL, exported: BOOL, label: STRING });
const WALLET_ACCOUNT = struct('WalletAccount', { address: STRING });
const PRIVATE_KEY = struct('PrivateKey', { id: STRING, tags: listOf(STRING), imported: BOOL, exported: BOOL, label: STRING });

export const KEYWORDS: Readonly<Record<ExpressionKind, ReadonlyMap<string, Type>>> = {
  condition: new Map([
    ['activity', ACTIVITY],
    ['eth', ETH],
    ['solana', SOLANA],
    ['wallet', WALLET],
    ['wallet_account', WALLET_ACCOUNT],
    ['private_key', PRIVATE_KEY],
  ]),
  consensus: new Map([
    ['approvers', listOf(USER)],
    ['credentials', listOf(CREDENTIAL)],
  ]),
};

/** A struct of policy values (a decoded transaction, a wallet): fields absent where the value has none. */
export type PolicyStruct = { readonly [field: string]: PolicyValue };

/**
 * The keywords a condition reads when an activity signs, each bound only then (by the signing
 * activities): `eth` ({tx} or {eip_712}), `solana` ({tx}), the wallet, account or key signed with;
 * `wallet`, `wallet_account` and `private_key` also for an activity that names one to export or
 * rename. An unbound one read by a condition is an evaluation error.
 */
export interface SigningBindings {
  readonly eth?: PolicyStruct;
  readonly solana?: PolicyStruct;
  readonly wallet?: PolicyStruct;
  readonly wallet_account?: PolicyStruct;
  readonly private_key?: PolicyStruct;
}

/** What the keywords of an expression are bound to when it is evaluated. */
export type Bindings =
  | ({ readonly activity: PolicyActivity } & SigningBindings)
  | { readonly approvers: readonly PolicyUser[]; readonly credentials: readonly PolicyCredential[] };

export function typeName(type: Type): string {
  switch (type.kind) {
    case 'dynamic':
      return 'any';
    case 'nothing':
      return 'nothing';
    case 'list':
      return `list<${typeName(type.of)}>`;
    case 'struct':
      return type.name;
    default:
      return type.kind;
  }
}
