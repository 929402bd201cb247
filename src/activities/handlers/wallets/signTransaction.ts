// The sign_transaction activity (ACTIVITY_TYPE_SIGN_TRANSACTION_V2): one serialized unsigned
// transaction signed with the organization's key at `signWith` (a wallet account's or a private key's),
// answered serialized with its signature, in hex without 0x as the ecosystem's libraries read it.
// Ethereum (legacy with EIP-155, EIP-2930, EIP-1559, EIP-7702) by a secp256k1 key; Solana (legacy and
// v0 messages, the signer's slot filled) by an ed25519 key. The transaction is parsed at intake, by the
// parameter schema, and the key found and its curve checked against the type by prepare: either
// refusal comes at submission, before anything is decided or stored, and never waits for approvals.
import { z } from 'zod';
import {
  MAX_TRANSACTION_BYTES as MAX_ETHEREUM_TRANSACTION_BYTES,
  parseEthereumTransaction,
  signParsedEthereumTransaction,
} from '../../../chains/ethereum/transaction.ts';
import {
  MAX_TRANSACTION_BYTES as MAX_SOLANA_TRANSACTION_BYTES,
  parseSolanaTransaction,
  signParsedSolanaTransaction,
} from '../../../chains/solana/transaction.ts';
import type { DerivationCurve } from '../../../keys/derivation.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, text } from '../../wire/parameters.ts';
import { signerAt, signWithField, withAccountKey, type SignerKey, signerStillThere } from './signingAccount.ts';
import { transactionView, type ParsedTransaction } from './signingView.ts';

/** The transaction types Signet signs, each with the curve of the accounts that sign it. */
const TRANSACTION_TYPES = {
  TRANSACTION_TYPE_ETHEREUM: { curve: 'CURVE_SECP256K1' },
  TRANSACTION_TYPE_SOLANA: { curve: 'CURVE_ED25519' },
} as const satisfies Record<string, { curve: DerivationCurve }>;
type TransactionType = keyof typeof TRANSACTION_TYPES;
const TYPE_NAMES = Object.keys(TRANSACTION_TYPES) as TransactionType[];

/** The longest of the chains' transactions in hex, with a 0x; each chain's parser bounds its own. */
export const MAX_UNSIGNED_TRANSACTION_CHARACTERS = 2 + 2 * Math.max(MAX_ETHEREUM_TRANSACTION_BYTES, MAX_SOLANA_TRANSACTION_BYTES);

/**
 * Each intent's transaction as intake parsed it (the intent object is the schema's output), so that
 * signing it costs no second parse; an intent read back from the store (at the approval that executes
 * it) is not here, and is parsed again.
 */
const parsedAtIntake = new WeakMap<object, ParsedTransaction>();

/** The intent's transaction: as intake parsed it, or parsed now (an intent read back from the store). */
function parsedOf(intent: { type: TransactionType; unsignedTransaction: string }): ParsedTransaction {
  return parsedAtIntake.get(intent) ?? parse(intent.type, intent.unsignedTransaction);
}

/** The transaction parsed by its chain's parser; a ParameterRejected naming parameters.unsignedTransaction when it is none. */
function parse(type: TransactionType, unsignedTransaction: string): ParsedTransaction {
  return type === 'TRANSACTION_TYPE_ETHEREUM'
    ? { type, ...parseEthereumTransaction(unsignedTransaction) }
    : { type, ...parseSolanaTransaction(unsignedTransaction) };
}

const parameters = z
  .strictObject(
    {
      signWith: signWithField(),
      unsignedTransaction: text(MAX_UNSIGNED_TRANSACTION_CHARACTERS).describe(
        `The serialized unsigned transaction in hex (0x optional): Ethereum, an EIP-2718 envelope or an EIP-155 legacy RLP list, at most ${MAX_ETHEREUM_TRANSACTION_BYTES} bytes; ` +
          `Solana, the wire format (signature slots, then the legacy or v0 message), at most ${MAX_SOLANA_TRANSACTION_BYTES} bytes`,
      ),
      type: z
        .enum(TYPE_NAMES, { error: `must be one of ${TYPE_NAMES.join(', ')} (Signet signs no other transactions)` })
        .describe('TRANSACTION_TYPE_ETHEREUM, signed by a secp256k1 account; TRANSACTION_TYPE_SOLANA, signed by an ed25519 account'),
    },
    { error: objectExpected() },
  )
  // Intake, not execution: a transaction that does not parse is refused at submission, never stored to wait.
  .superRefine((value, ctx) => {
    // A type or a value the fields refuse (over the bound) is refused by the fields alone.
    const { type, unsignedTransaction } = value;
    if (!Object.hasOwn(TRANSACTION_TYPES, type) || typeof unsignedTransaction !== 'string' || unsignedTransaction.length > MAX_UNSIGNED_TRANSACTION_CHARACTERS) return;
    try {
      parsedAtIntake.set(value, parse(type, unsignedTransaction));
    } catch (error) {
      if (!(error instanceof ParameterRejected)) throw error;
      ctx.addIssue({ code: 'custom', path: ['unsignedTransaction'], message: error.description });
    }
  });

const resultSchema = z.strictObject({
  signedTransaction: z.string().describe('The transaction serialized with its signature, in hex without 0x (Solana: the signer\'s slot filled, the others as sent)'),
});
type SignTransactionResult = z.output<typeof resultSchema>;

export const signTransaction: ActivityHandler<typeof parameters, SignTransactionResult, SignerKey> = {
  path: 'sign_transaction',
  activityType: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
  // As the ecosystem's policy engine classes signing, whether with a private key or a wallet account.
  resource: 'PRIVATE_KEY',
  action: 'SIGN',
  reasons: ['WALLET_ACCOUNT_NOT_FOUND'],
  summary:
    '`{signWith, unsignedTransaction, type}`: an Ethereum or Solana transaction signed with a wallet account or a private key; result `signTransactionResult {signedTransaction}` ([Wallets](wallets.md#signing-a-transaction))',
  description:
    "Signs one serialized transaction with a key of the organization, a wallet account's or a private key's (signWith: the account's address, the key's id or address): Ethereum (legacy with EIP-155, EIP-2930, EIP-1559, EIP-7702) with a secp256k1 key, Solana (legacy or v0, the signer's slot filled) with an ed25519 key. " +
    "A transaction that does not parse is a 400 at submission; a type the key's curve cannot sign a 400 naming `parameters.type`; a signWith the organization has no key at a 404, both at submission.",
  intentKey: 'signTransactionIntentV2',
  resultKey: 'signTransactionResult',
  parameters,
  resultSchema,
  example: {
    signWith: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    // An EIP-1559 transfer of 1 wei on chain 1, unsigned, as viem serializes it.
    unsignedTransaction: '02e80180843b9aca008504a817c8008252089400000000000000000000000000000000000000010180c0',
    type: 'TRANSACTION_TYPE_ETHEREUM',
  },

  prepare(context, intent) {
    const { type } = intent;
    return signerAt(context, intent.signWith, (curve) => {
      const expected = TRANSACTION_TYPES[type].curve;
      if (curve !== expected) {
        throw new ParameterRejected('parameters.type', `${type} is signed by a ${expected} key; parameters.signWith is a ${curve} key`);
      }
    });
  },

  view(context, intent, signer) {
    return transactionView(context, parsedOf(intent), signer);
  },

  async execute(context, intent, signer) {
    const parsed = parsedOf(intent);
    const signedTransaction = await withAccountKey(context, signer, (_curve, privateKey) => {
      return parsed.type === 'TRANSACTION_TYPE_ETHEREUM'
        ? signParsedEthereumTransaction(parsed, privateKey).signedTransaction
        : signParsedSolanaTransaction(parsed, privateKey).signedTransaction;
    });
    return { result: { signedTransaction }, effects: [signerStillThere(context, signer)] };
  },
};
