// A fuzzer for the policy language (src/policy/): compiles and evaluates generated expressions
// (from the grammar, typed so most are valid, with integers at the edges of the exact range: 2^53 ± 1,
// 2^255, 2^256 - 1, -2^255, and one past them; bound bigints, a rounded JSON number, a decimal
// string), mutations of valid ones (bytes and tokens dropped, repeated, swapped or replaced), deep
// nesting, huge lists and adversarial nesting of all/any over long lists, and decides with each as a
// policy's condition or consensus. Conditions also read the signing keywords (eth.tx, eth.eip_712,
// solana.tx, wallet, …) over decoded values: an ERC-20 transfer built by viem and decoded against its
// ABI, EIP-712 typed data, a Solana transaction built by @solana/web3.js with an IDL-decoded
// instruction; half the time they are unbound, as for an activity that signs nothing. It fails (exit 1) if any
// exception escapes the module, an error has no position within the expression, or a result is not
// a boolean; it prints the worst compile and evaluation times. Deterministic for a seed.
// With --http N, N of them (sampled evenly) are then written as a policy through a real server
// (update_policy over HTTP, on a temporary embedded store) and each time a non-root user submits an
// activity that policy decides: every answer must be a 200 or a 4xx, never a 5xx.
//   npm run fuzz:policy -- --expressions 100000 [--seed 1] [--http 2000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { parseArgs } from 'node:util';
import {
  compileExpression,
  decide,
  evaluate,
  mayVote,
  paramsForPolicy,
  type Approver,
  type Bindings,
  type CompiledExpression,
  type ExpressionError,
  type ExpressionKind,
  type Result,
} from '../src/policy/index.ts';
import { Keypair, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { encodeFunctionData, serializeTransaction } from 'viem';
import { parseEthereumTransaction } from '../src/chains/ethereum/transaction.ts';
import { parseSolanaTransaction } from '../src/chains/solana/transaction.ts';
import { ethereumTransactionView, interfaceIndex, solanaTransactionView, typedDataView } from '../src/readable/index.ts';
import { derivedDiscriminator } from '../src/contracts/decodeSolanaInstruction.ts';
import { seededRandom } from './seededRandom.ts';

const { values: args } = parseArgs({
  options: {
    expressions: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    http: { type: 'string', default: '0' },
  },
});
const HTTP_SAMPLES = Number(args.http);
const EXPRESSIONS = Number(args.expressions);
const { random, below, pick } = seededRandom(Number(args.seed));

// ---- the values expressions are evaluated over --------------------------------------------------

const LONG = Array.from({ length: 20_000 }, (_, i) => i);
const INTENT = {
  otpLength: 6,
  flag: true,
  name: 'alpha',
  text: 'abcdefghij',
  numbers: [1, 2, 3, 5, 8],
  words: ['a', 'b', 'alpha'],
  long: LONG,
  longWords: LONG.map(String),
  nested: { inner: { value: 7, list: [{ id: 'x' }, { id: 'y' }] } },
  nothing: null,
  mixed: [1, 'a', true, null, [1], { a: 1 }],
  // An Ethereum address in its EIP-55 spelling: read in lowercase, equal to itself in any case.
  address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  // Ints beyond 2^53 (bigints, as a decoder binds a uint256), a JSON number rounded past 2^53 (no
  // int: comparing it fails), and a wei amount as a decimal string (a string, not an int).
  wei: 10n ** 18n + 1n,
  bigs: [2n ** 53n + 1n, 2n ** 255n, 2n ** 256n - 1n, -(2n ** 255n), 1n],
  inexact: 2 ** 60,
  amount: '1000000000000000001',
};
const PARAMS = paramsForPolicy(INTENT);
const ACTIVITY = { type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', params: PARAMS };
const CONDITION: Bindings = {
  activity: { type: ACTIVITY.type, kind: 'INIT_OTP_AUTH', resource: 'AUTH', action: 'CREATE', params: PARAMS },
};
// The signing keywords over decoded values: what eth.tx, eth.eip_712 and solana.tx are bound to.
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ERC20 = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [] },
] as const;
const PROGRAM = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey;
const PAYER = Keypair.fromSeed(new Uint8Array(32).fill(1));
const IDL = {
  version: '0.1.0',
  name: 'vault',
  instructions: [{ name: 'deposit', accounts: [{ name: 'vault', isMut: true, isSigner: true }], args: [{ name: 'amount', type: 'u128' }, { name: 'memo', type: 'string' }, { name: 'tags', type: { vec: 'u8' } }] }],
};
const INTERFACES = interfaceIndex([
  { smartContractAddress: TOKEN, smartContractInterface: JSON.stringify(ERC20), type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'USDC' },
  { smartContractAddress: PROGRAM.toBase58(), smartContractInterface: JSON.stringify(IDL), type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', label: 'Vault' },
]);
const ETH_TX = ethereumTransactionView(
  parseEthereumTransaction(
    serializeTransaction({
      type: 'eip1559',
      chainId: 1,
      to: TOKEN,
      gas: 60_000n,
      maxFeePerGas: 2n ** 60n,
      data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: ['0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7', 2n ** 255n + 7n] }),
    }),
  ).transaction,
  INTERFACES,
  '0x52908400098527886E0F7030069857D2E4169EE7',
).tx;
const TYPED = typedDataView({
  types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }], Permit: [{ name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }] },
  primaryType: 'Permit',
  domain: { name: 'USD Coin', chainId: 1 },
  message: { spender: TOKEN, value: (2n ** 256n - 1n).toString() },
});
const amountBytes = Buffer.alloc(16);
amountBytes.writeBigUInt64LE(2n ** 64n - 1n, 0);
amountBytes.writeBigUInt64LE(5n, 8);
const SOLANA_TX = solanaTransactionView(
  parseSolanaTransaction(
    new Transaction({ feePayer: PAYER.publicKey, recentBlockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N' })
      .add(SystemProgram.transfer({ fromPubkey: PAYER.publicKey, toPubkey: PROGRAM, lamports: 2 ** 52 }))
      .add(
        new TransactionInstruction({
          programId: PROGRAM,
          keys: [{ pubkey: PAYER.publicKey, isSigner: true, isWritable: true }],
          data: Buffer.concat([derivedDiscriminator('deposit'), amountBytes, Buffer.from([2, 0, 0, 0]), Buffer.from('hi'), Buffer.from([1, 0, 0, 0, 9])]),
        }),
      )
      .serialize({ requireAllSignatures: false, verifySignatures: false })
      .toString('hex'),
  ).message,
  INTERFACES,
).tx;
if (!TYPED.ok) throw new Error(TYPED.problem);
const SIGNING = { eth: { tx: ETH_TX, eip_712: TYPED.value.eip712 }, solana: { tx: SOLANA_TX } };
const SIGNING_CONDITION: Bindings = { ...CONDITION, ...SIGNING };

const approver = (id: string, tags: string[]): Approver => ({
  user: { id, tags, email: `${id}@example.com`, name: id },
  credentials: [{ id: `k-${id}`, user_id: id, type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: '02ab', credential_id: '' }],
});
const APPROVERS = Array.from({ length: 40 }, (_, i) => approver(`u${i}`, i % 3 === 0 ? ['t1'] : ['t2', 'ops']));
const CONSENSUS: Bindings = { approvers: APPROVERS.map((a) => a.user), credentials: APPROVERS.flatMap((a) => a.credentials) };

// ---- generation from the grammar ----------------------------------------------------------------

type Gen = 'bool' | 'int' | 'string' | 'ints' | 'strings' | 'users' | 'user' | 'credentials' | 'credential' | 'any';
interface Scope {
  readonly kind: ExpressionKind;
  readonly variables: readonly (readonly [string, Gen])[];
}
const VARIABLES = ['x', 'y', 'u', 'v', 'item', 'approvers', 'activity'];
// Ints at the edges: 2^53 ± 1, 2^255, 2^256 - 1, -2^255 (and their neighbours out of range, which do not compile).
const P53 = 2n ** 53n;
const BIG_INTS = [P53 - 1n, P53, P53 + 1n, -(P53 + 1n), 2n ** 255n, 2n ** 256n - 1n, -(2n ** 255n), 2n ** 256n, -(2n ** 255n) - 1n, 10n ** 77n].map(String);
const STRINGS = ['', 'a', 'alpha', 't1', 'ops', 'u0', 'u3', "it\\'s", 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', 'AUTH', 'CREATE', '\\\\', 'ÿ💥', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'];

const SIGNING_INTS = [
  'eth.tx.value',
  'eth.tx.chain_id',
  'eth.tx.max_fee_per_gas',
  "eth.tx.contract_call_args['amount']",
  'eth.tx.gas_price',
  "eth.eip_712.message['value']",
  'eth.eip_712.domain.chain_id',
  'solana.tx.transfers[0].amount',
  "solana.tx.instructions[1].parsed_instruction_data.program_call_args['amount']",
  "solana.tx.instructions[1].parsed_instruction_data.program_call_args['tags'][0]",
];
const SIGNING_STRINGS = [
  'eth.tx.to',
  'eth.tx.from',
  'eth.tx.function_signature',
  'eth.tx.data',
  "eth.tx.contract_call_args['to']",
  'eth.eip_712.primary_type',
  'eth.eip_712.domain.verifying_contract',
  'solana.tx.recent_blockhash',
  "solana.tx.instructions[1].parsed_instruction_data.named_accounts['vault']",
  "solana.tx.instructions[0].parsed_instruction_data.program_call_args['memo']",
  'solana.tx.instructions[1].instruction_data_hex',
  "wallet.label",
];

function variable(scope: Scope, type: Gen): string | undefined {
  const matching = scope.variables.filter(([, t]) => t === type);
  return matching.length > 0 ? pick(matching)[0] : undefined;
}

function listFunction(scope: Scope, depth: number, list: Gen, element: Gen, fn: 'all' | 'any' | 'filter'): string {
  const name = pick(VARIABLES);
  const inner: Scope = { kind: scope.kind, variables: [...scope.variables, [name, element]] };
  return `${gen(scope, list, depth + 1)}.${fn}(${name}, ${gen(inner, 'bool', depth + 1)})`;
}

function gen(scope: Scope, type: Gen, depth: number): string {
  const leaf = depth > 6 || random() < 0.25;
  const condition = scope.kind === 'condition';
  const bound = variable(scope, type);
  if (bound !== undefined && random() < 0.3) return bound;
  switch (type) {
    case 'bool': {
      if (leaf) return pick(['true', 'false', condition ? 'activity.params.flag' : 'approvers.count() > 1']);
      const choice = below(11);
      if (choice === 0) return `${gen(scope, 'bool', depth + 1)} ${pick(['&&', '||'])} ${gen(scope, 'bool', depth + 1)}`;
      if (choice === 1) return `(${gen(scope, 'bool', depth + 1)})`;
      if (choice === 2) return `${gen(scope, 'int', depth + 1)} ${pick(['==', '!=', '<', '>', '<=', '>='])} ${gen(scope, 'int', depth + 1)}`;
      if (choice === 3) return `${gen(scope, 'string', depth + 1)} ${pick(['==', '!='])} ${gen(scope, 'string', depth + 1)}`;
      if (choice === 4) return `${gen(scope, 'int', depth + 1)} in ${gen(scope, 'ints', depth + 1)}`;
      if (choice === 5) return `${gen(scope, 'strings', depth + 1)}.contains(${gen(scope, 'string', depth + 1)})`;
      if (choice === 6) return listFunction(scope, depth, 'ints', 'int', pick(['all', 'any']));
      if (choice === 7) return listFunction(scope, depth, condition ? 'strings' : 'users', condition ? 'string' : 'user', pick(['all', 'any']));
      if (choice === 8 && !condition) return listFunction(scope, depth, 'credentials', 'credential', pick(['all', 'any']));
      if (choice === 9 && condition) {
        if (random() < 0.5) return `activity.params.${pick(['flag', 'nothing', 'name', 'missing'])}${random() < 0.5 ? '' : " == 'alpha'"}`;
        const name = pick(VARIABLES);
        const inner: Scope = { kind: scope.kind, variables: [...scope.variables, [name, 'any']] };
        return pick([
          () => `solana.tx.transfers.all(${name}, ${name}.amount ${pick(['<=', '>', '=='])} ${gen(scope, 'int', depth + 1)})`,
          () => `solana.tx.instructions.any(${name}, ${name}.parsed_instruction_data.instruction_name == ${gen(scope, 'string', depth + 1)} && ${gen(inner, 'bool', depth + 1)})`,
          () => `solana.tx.spl_transfers.${pick(['all', 'any'])}(${name}, ${name}.${pick(['to', 'owner', 'token_mint'])} == ${gen(scope, 'string', depth + 1)})`,
          () => `solana.tx.instructions[${below(3)}].accounts.any(${name}, ${name}.${pick(['signer', 'writable'])})`,
          () => `eth.tx.function_name == ${gen(scope, 'string', depth + 1)}`,
          () => `eth.tx.contract_call_args[${pick(["'to'", "'amount'", "'missing'", gen(scope, 'string', depth + 1)])}] == ${gen(scope, pick(['int', 'string'] as const), depth + 1)}`,
          () => `${pick(['wallet.exported', 'private_key.imported', "wallet_account.address == 'a'", "private_key.tags.contains('t1')"])}`,
        ])();
      }
      return `${gen(scope, 'bool', depth + 1)} == ${pick(['true', 'false'])}`;
    }
    case 'int': {
      if (leaf) {
        if (random() < 0.3) return pick(BIG_INTS);
        return pick(['0', '1', '2', '-1', '6', '9007199254740991', ...(condition ? ['activity.params.otp_length', 'activity.params.wei', 'activity.params.inexact', ...SIGNING_INTS] : ['approvers.count()'])]);
      }
      const choice = below(4);
      if (choice === 0) return `${gen(scope, pick(['ints', 'strings', condition ? 'ints' : 'users']), depth + 1)}.count()`;
      if (choice === 1) return `${gen(scope, 'ints', depth + 1)}[${gen(scope, 'int', depth + 1)}]`;
      if (choice === 2 && condition) return `activity.params.${pick(['numbers', 'long', 'bigs'])}[${below(8)}]`;
      return condition ? `activity.params.nested.inner['value']` : '3';
    }
    case 'string': {
      if (leaf) return `'${pick(STRINGS)}'`;
      const choice = below(5);
      if (choice === 0) return `${gen(scope, 'string', depth + 1)}[${below(4)}]`;
      if (choice === 1) return `${gen(scope, 'string', depth + 1)}[${below(3)}..${below(6)}]`;
      if (choice === 2) return condition ? `activity.${pick(['type', 'kind', 'resource', 'action'])}` : `${gen(scope, 'user', depth + 1)}.${pick(['id', 'email', 'name'])}`;
      if (choice === 3) {
        if (condition && random() < 0.5) return pick(SIGNING_STRINGS);
        return condition ? `activity.params.${pick(['name', 'text', 'nested', 'address', 'amount'])}` : `${gen(scope, 'credential', depth + 1)}.${pick(['type', 'user_id', 'id'])}`;
      }
      return `${gen(scope, 'strings', depth + 1)}[${below(3)}]`;
    }
    case 'ints': {
      if (leaf) return condition ? pick(['activity.params.numbers', 'activity.params.long', 'activity.params.bigs', '[]', '[1, 2, 3]', `[${pick(BIG_INTS)}, 1]`]) : pick(['[]', '[1, 2, 3]', `[${pick(BIG_INTS)}, 1]`]);
      const choice = below(4);
      if (choice === 0) return `[${Array.from({ length: below(5) }, () => gen(scope, 'int', depth + 1)).join(', ')}]`;
      if (choice === 1) return `${gen(scope, 'ints', depth + 1)}[${below(3)}..${below(40_000)}]`;
      if (choice === 2) return listFunction(scope, depth, 'ints', 'int', 'filter');
      return condition ? 'activity.params.long' : '[1, 2]';
    }
    case 'strings': {
      if (leaf) return condition ? pick(['activity.params.words', 'activity.params.long_words', "['a', 'b']", 'solana.tx.program_keys', 'solana.tx.account_keys', 'solana.tx.spl_transfers[0].signers']) : `${gen(scope, 'user', depth + 1)}.tags`;
      if (random() < 0.5) return `[${Array.from({ length: below(5) }, () => gen(scope, 'string', depth + 1)).join(', ')}]`;
      return listFunction(scope, depth, 'strings', 'string', 'filter');
    }
    case 'users':
      return leaf || random() < 0.5 ? 'approvers' : listFunction(scope, depth, 'users', 'user', 'filter');
    case 'user':
      return `${gen(scope, 'users', depth + 1)}[${below(3)}]`;
    case 'credentials':
      return leaf || random() < 0.5 ? 'credentials' : listFunction(scope, depth, 'credentials', 'credential', 'filter');
    case 'credential':
      return `${gen(scope, 'credentials', depth + 1)}[${below(2)}]`;
    default:
      return gen(scope, pick(['bool', 'int', 'string', 'ints', 'strings']), depth + 1);
  }
}

// ---- mutations and adversarial shapes -----------------------------------------------------------

const TOKENS = ['&&', '||', '==', '!=', '<', '>', '<=', '>=', 'in', '[', ']', '(', ')', '.', '..', ',', "'", '-', 'true', 'false', 'activity', 'approvers', 'credentials', 'params', 'all', 'any', 'filter', 'contains', 'count', 'eth', 'solana', 'tx', 'eip_712', 'contract_call_args', 'wallet', 'x', '0', '99999999999999999999', ...BIG_INTS, '"', '\\', '\u0000', '💥', '\ud800', ' ', '\n'];

function mutate(source: string): string {
  const times = 1 + below(4);
  let out = source;
  for (let i = 0; i < times; i++) {
    const at = below(out.length + 1);
    const length = below(Math.min(12, out.length - at) + 1);
    switch (below(7)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + length);
        break;
      case 1:
        out = out.slice(0, at) + pick(TOKENS) + out.slice(at);
        break;
      case 2:
        out = out.slice(0, at) + String.fromCharCode(below(0x3000)) + out.slice(at + 1);
        break;
      case 3:
        out = out.slice(0, at) + out.slice(at, at + length).repeat(2 + below(4)) + out.slice(at + length);
        break;
      case 4: {
        const tokens = out.split(/(\s+|&&|\|\||==|!=|<=|>=|\.\.|[()[\].,<>])/).filter((t) => t !== '');
        if (tokens.length > 1) {
          const [a, b] = [below(tokens.length), below(tokens.length)];
          [tokens[a], tokens[b]] = [tokens[b]!, tokens[a]!];
        }
        out = tokens.join('');
        break;
      }
      case 5: {
        const tokens = out.split(/(\s+|&&|\|\||==|!=|<=|>=|\.\.|[()[\].,<>])/).filter((t) => t !== '');
        if (tokens.length > 0) tokens[below(tokens.length)] = pick(TOKENS);
        out = tokens.join('');
        break;
      }
      default:
        out = out.slice(0, at);
    }
  }
  return out;
}

function adversarial(kind: ExpressionKind): string {
  const depth = 50 + below(30);
  const list = kind === 'condition' ? 'activity.params.long' : 'approvers';
  switch (below(8)) {
    case 0:
      return `${'('.repeat(depth)}true${')'.repeat(depth)}`;
    case 1:
      return `${'['.repeat(depth)}1${']'.repeat(depth)}.count() == 1`;
    case 2: // nested all/any/filter over long lists: quadratic and worse, cut by the step budget
      return nestedOverLists(list, kind);
    case 3: // a list literal as long as an expression may be
      return `1 in [${Array.from({ length: 2000 }, () => '1').join(',')}]`.slice(0, 4096 - below(3) * 2000);
    case 4:
      return Array.from({ length: 500 + below(400) }, () => pick(['true', 'false'])).join(pick(['&&', '||']));
    case 5:
      return `activity.params${'.nested'.repeat(1 + below(600))} == 1`;
    case 6:
      return `'${'a'.repeat(4000 + below(200))}' == 'a'`;
    default:
      return `${'[true].all(x, '.repeat(depth)}true${')'.repeat(depth)}`;
  }
}

function nestedOverLists(list: string, kind: ExpressionKind): string {
  const levels = 2 + below(5);
  let body = kind === 'condition' ? `v0 >= 0 && v${levels - 1} >= 0` : `v0.id != v${levels - 1}.id || true`;
  for (let level = levels - 1; level >= 0; level--) {
    const fn = pick(['all', 'any', 'filter'] as const);
    body = fn === 'filter' ? `${list}.filter(v${level}, ${body}).count() >= 0` : `${list}.${fn}(v${level}, ${body})`;
  }
  return body;
}

// ---- the run ------------------------------------------------------------------------------------

const valid: string[] = [];
const stats = { expressions: 0, compiled: 0, compileErrors: 0, evaluated: 0, evaluationErrors: 0, decisions: 0, escaped: 0, malformed: 0 };
/** Compiled conditions that read a signing keyword, evaluated with them bound: to a value, to an error. */
const signingStats = { values: 0, errors: 0 };
const SIGNING_KEYWORD = /\b(eth|solana|wallet|wallet_account|private_key)\b/;
const compileTimes: number[] = [];
const evaluateTimes: number[] = [];
let worstCompile = { ms: 0, source: '' };
let worstEvaluate = { ms: 0, source: '' };

function checkError(error: ExpressionError, source: string, what: string): void {
  const ok = error.position >= 1 && error.position <= source.length + 1 && error.message.startsWith(`at ${error.position}: `);
  if (!ok) {
    stats.malformed++;
    if (stats.malformed <= 5) console.error(`${what} error without a position in the expression: ${JSON.stringify(error)} for ${JSON.stringify(source.slice(0, 200))}`);
  }
}

function escaped(error: unknown, source: string): void {
  stats.escaped++;
  if (stats.escaped <= 5) console.error(`exception escaped for ${JSON.stringify(source.slice(0, 300))}:`, error);
}

const samples: Array<{ source: string; kind: ExpressionKind }> = [];
const preview = (source: string) => (source.length > 120 ? `${source.slice(0, 120)}… (${source.length} characters)` : source);

for (let i = 0; i < EXPRESSIONS; i++) {
  const kind: ExpressionKind = random() < 0.5 ? 'condition' : 'consensus';
  const roll = random();
  const source =
    roll < 0.45 || valid.length === 0
      ? gen({ kind, variables: [] }, random() < 0.9 ? 'bool' : 'any', 0)
      : roll < 0.9
        ? mutate(pick(valid))
        : adversarial(kind);
  stats.expressions++;
  // Sampled evenly for the HTTP round.
  if (HTTP_SAMPLES > 0 && i % Math.max(1, Math.floor(EXPRESSIONS / HTTP_SAMPLES)) === 0 && samples.length < HTTP_SAMPLES) samples.push({ source, kind });

  let result: Result<CompiledExpression>;
  const started = performance.now();
  try {
    result = compileExpression(source, kind);
  } catch (error) {
    escaped(error, source);
    continue;
  }
  const compileMs = performance.now() - started;
  compileTimes.push(compileMs);
  if (compileMs > worstCompile.ms) worstCompile = { ms: compileMs, source };
  if (!result.ok) {
    stats.compileErrors++;
    checkError(result.error, source, 'compile');
    continue;
  }
  stats.compiled++;
  if (valid.length < 5000) valid.push(source);
  else valid[below(valid.length)] = source;

  const expression = result.value;
  try {
    const evaluationStarted = performance.now();
    // Half the conditions are evaluated as for an activity that signs (the signing keywords bound).
    const signs = random() < 0.5;
    const value = evaluate(expression, expression.kind === 'condition' ? (signs ? SIGNING_CONDITION : CONDITION) : CONSENSUS);
    const evaluateMs = performance.now() - evaluationStarted;
    evaluateTimes.push(evaluateMs);
    if (evaluateMs > worstEvaluate.ms) worstEvaluate = { ms: evaluateMs, source };
    stats.evaluated++;
    if (signs && expression.kind === 'condition' && SIGNING_KEYWORD.test(source)) signingStats[value.ok ? 'values' : 'errors']++;
    if (!value.ok) {
      stats.evaluationErrors++;
      checkError(value.error, source, 'evaluation');
    } else if (typeof value.value !== 'boolean') {
      stats.malformed++;
    }
    if (i % 10 === 0) {
      const policy = {
        policyId: `p${i}`,
        policyName: 'fuzz',
        effect: random() < 0.5 ? ('EFFECT_ALLOW' as const) : ('EFFECT_DENY' as const),
        ...(expression.kind === 'condition' ? { condition: expression } : { consensus: expression }),
      };
      const context = {
        rootQuorum: { threshold: 2, userIds: ['u0', 'u1'] },
        policies: [policy],
        activity: ACTIVITY,
        ...(signs ? { signing: SIGNING } : {}),
        approvers: APPROVERS.slice(0, 1 + below(APPROVERS.length)),
      };
      const decision = decide({ ...context, submitter: APPROVERS[0]! });
      if (!decision.outcome.startsWith('OUTCOME_')) stats.malformed++;
      mayVote(pick(APPROVERS), context);
      stats.decisions++;
    }
  } catch (error) {
    escaped(error, source);
  }
}

console.log(`signing keywords bound: ${signingStats.values} conditions evaluated to a value, ${signingStats.errors} to an error`);
console.log(
  `expressions: ${stats.expressions}, compiled: ${stats.compiled}, compile errors: ${stats.compileErrors}, ` +
    `evaluated: ${stats.evaluated}, evaluation errors: ${stats.evaluationErrors}, decisions: ${stats.decisions}`,
);
function percentiles(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(3);
  return `median ${at(0.5)} ms, p99 ${at(0.99)} ms, p99.9 ${at(0.999)} ms`;
}
console.log(`compile: ${percentiles(compileTimes)}; worst ${worstCompile.ms.toFixed(2)} ms for ${preview(worstCompile.source)}`);
console.log(`evaluation: ${percentiles(evaluateTimes)}; worst ${worstEvaluate.ms.toFixed(2)} ms for ${preview(worstEvaluate.source)}`);
console.log(`escaped exceptions: ${stats.escaped}, malformed results: ${stats.malformed}`);
const serverFailures = samples.length > 0 ? await throughHttp(samples) : 0;
process.exitCode = stats.escaped === 0 && stats.malformed === 0 && serverFailures === 0 ? 0 : 1;

/** Writes each sample as a policy's expression through a real server, then lets it decide an activity of a non-root user. */
async function throughHttp(expressions: ReadonlyArray<{ source: string; kind: ExpressionKind }>): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-policy-fuzz-'));
  const adminToken = 'policy-fuzz-admin-token-0123456789abcdef';
  const config = loadConfig({ SIGNET_PORT: '0', SIGNET_DATA_DIR: dataDir, SIGNET_ADMIN_TOKEN: adminToken, SIGNET_OUTBOX_WORKER: 'false', SIGNET_LOG_LEVEL: 'warn' });
  const server = await startServer(config);
  const statuses = new Map<number, number>();
  let failures = 0;
  try {
    const root = server.devCredentials!;
    const admin = async (route: string, body: object) =>
      (await (await fetch(`${server.url}/admin/v1${route}`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
    const { userId } = await admin(`/organizations/${root.organizationId}/users`, { userName: 'fuzzed' });
    const member = await admin(`/organizations/${root.organizationId}/api-keys`, { userId });
    const post = async (keys: { apiPublicKey: string; apiPrivateKey: string }, route: string, type: string, parameters: object) => {
      const body = JSON.stringify({ type, timestampMs: String(Date.now()), organizationId: root.organizationId, parameters });
      const stamp = await new ApiKeyStamper({ apiPublicKey: keys.apiPublicKey, apiPrivateKey: keys.apiPrivateKey }).stamp(body);
      const response = await fetch(`${server.url}/public/v1/submit/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue }, body });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const text = await response.text();
      if (response.status >= 500) {
        failures++;
        console.log(`HTTP ${response.status} on ${route} with ${preview(body)}: ${text.slice(0, 200)}`);
      }
      return { status: response.status, json: JSON.parse(text) as any };
    };
    const created = await post(root, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'fuzzed', effect: 'EFFECT_ALLOW', notes: '' });
    const policyId = created.json.activity.result.createPolicyResult.policyId as string;
    let label = 0;
    for (const [i, { source, kind }] of expressions.entries()) {
      const field = kind === 'condition' ? 'policyCondition' : 'policyConsensus';
      const other = kind === 'condition' ? 'policyConsensus' : 'policyCondition';
      const effect = i % 2 === 0 ? 'EFFECT_ALLOW' : 'EFFECT_DENY';
      const written = await post(root, 'update_policy', 'ACTIVITY_TYPE_UPDATE_POLICY_V2', { policyId, policyEffect: effect, [field]: source, [other]: '' });
      if (written.status !== 200) continue;
      await post(member, 'create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
        smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        smartContractInterface: '[]',
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label: `fuzz ${++label}`,
      });
    }
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const counted = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
  console.log(`through HTTP: ${expressions.length} expressions written with update_policy, each deciding a non-root user's activity; answers ${counted}; 5xx: ${failures}`);
  return failures;
}
