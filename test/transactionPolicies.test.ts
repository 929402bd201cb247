// Transactions as policies read them (src/readable/, src/contracts/decode*.ts, the signing keywords of
// src/policy/keywords.ts): transactions built as a client builds them (viem, @solana/web3.js), parsed
// by src/chains/, decoded against stored ABIs and IDLs, bound to eth.tx, eth.eip_712 and solana.tx, and
// read by conditions; what a transaction lacks is an evaluation error; the readable summaries. Pure
// functions, so no server is started (no activity signs yet).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { AddressLookupTableAccount, Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { encodeFunctionData, getAddress, getTypesForEIP712Domain, parseAbi, serializeTransaction, serializeTypedData, type Hex } from 'viem';
import { parseEthereumTransaction } from '../src/chains/ethereum/transaction.ts';
import { parseSolanaTransaction } from '../src/chains/solana/transaction.ts';
import { decodeEthereumCall, MAX_DECODED_VALUES } from '../src/contracts/decodeEthereumCall.ts';
import { decodeSolanaInstruction, derivedDiscriminator } from '../src/contracts/decodeSolanaInstruction.ts';
import { compileExpression, decide, evaluate, type Approver, type Bindings, type Policy, type SigningBindings } from '../src/policy/index.ts';
import {
  ethereumTransactionView,
  interfaceIndex,
  solanaTransactionView,
  summarizeEthereumTransaction,
  summarizeSolanaTransaction,
  summarizeTypedData,
  typedDataView,
  EMPTY_INTERFACES,
  TOKEN_PROGRAM,
  type StoredInterface,
} from '../src/readable/index.ts';

const ERC20_ABI = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
  { type: 'function', name: 'approve', stateMutability: 'nonpayable', inputs: [{ name: 'spender', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
] as const;
const TOKEN = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const RECIPIENT = getAddress('0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7');
const SIGNER = '0x52908400098527886E0F7030069857D2E4169EE7';

const ethereumInterface = (address: string, abi: unknown = ERC20_ABI, label = 'USDC'): StoredInterface => ({
  smartContractAddress: address,
  smartContractInterface: JSON.stringify(abi),
  type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
  label,
});

function condition(source: string, signing: SigningBindings): ReturnType<typeof evaluate> {
  const compiled = compileExpression(source, 'condition');
  assert.ok(compiled.ok, `${source}: ${compiled.ok ? '' : compiled.error.message}`);
  const bindings: Bindings = { activity: { type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', kind: 'SIGN_TRANSACTION', params: {} }, ...signing };
  return evaluate(compiled.value, bindings);
}

function holds(source: string, signing: SigningBindings): boolean {
  const result = condition(source, signing);
  assert.ok(result.ok, `${source}: ${result.ok ? '' : result.error.message}`);
  return result.value;
}

function fails(source: string, signing: SigningBindings, message: RegExp): void {
  const result = condition(source, signing);
  assert.equal(result.ok, false, `${source} evaluated to ${result.ok ? result.value : ''}`);
  if (!result.ok) assert.match(result.error.message, message);
}

function ethereumCall(functionName: 'transfer' | 'approve', amount: bigint, to: Hex = TOKEN): string {
  return serializeTransaction({
    type: 'eip1559',
    chainId: 1,
    nonce: 7,
    to,
    value: 0n,
    gas: 60_000n,
    maxFeePerGas: 30_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    data: encodeFunctionData({ abi: ERC20_ABI, functionName, args: [RECIPIENT, amount] }),
  });
}

function ethTx(serialized: string, interfaces: StoredInterface[] = [ethereumInterface(TOKEN)]) {
  const view = ethereumTransactionView(parseEthereumTransaction(serialized).transaction, interfaceIndex(interfaces), SIGNER);
  return { view, signing: { eth: { tx: view.tx } } satisfies SigningBindings };
}

describe('eth.tx', () => {
  test('an ERC-20 transfer of more than 2^53 base units is read exactly by contract_call_args', () => {
    const cap = "eth.tx.contract_call_args['amount'] <= 1000000000000000000000";
    assert.equal(holds(cap, ethTx(ethereumCall('transfer', 1_000_000_000_000_000_000_000n)).signing), true);
    // One more base unit than the cap: a rounded (float) comparison would call the two equal.
    assert.equal(holds(cap, ethTx(ethereumCall('transfer', 1_000_000_000_000_000_000_001n)).signing), false);
    const { signing } = ethTx(ethereumCall('transfer', 2n ** 60n + 1n));
    assert.equal(holds(`eth.tx.contract_call_args['amount'] == ${2n ** 60n + 1n}`, signing), true);
    assert.equal(holds(`eth.tx.contract_call_args['amount'] == ${2n ** 60n}`, signing), false);
    assert.equal(holds("eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb'", signing), true);
  });

  test('to, from and address arguments match in either spelling, the ABI stored under either', () => {
    for (const stored of [TOKEN, TOKEN.toLowerCase()]) {
      const { signing } = ethTx(ethereumCall('transfer', 5n), [ethereumInterface(stored)]);
      for (const to of [TOKEN, TOKEN.toLowerCase()]) assert.equal(holds(`eth.tx.to == '${to}'`, signing), true, to);
      for (const dst of [RECIPIENT, RECIPIENT.toLowerCase()]) assert.equal(holds(`eth.tx.contract_call_args['to'] == '${dst}'`, signing), true, dst);
      assert.equal(holds(`eth.tx.from == '${SIGNER}' && eth.tx.from == '${SIGNER.toLowerCase()}'`, signing), true);
      assert.equal(holds("eth.tx.function_name == 'transfer'", signing), true);
    }
    const { view } = ethTx(ethereumCall('transfer', 5n));
    assert.equal(view.tx.to, TOKEN.toLowerCase());
    assert.equal((view.tx.contract_call_args as Record<string, unknown>).to, RECIPIENT.toLowerCase());
  });

  test('approve is recognised by function_name; the transaction fields under the ecosystem names', () => {
    const { signing } = ethTx(ethereumCall('approve', 10n));
    assert.equal(holds("eth.tx.function_name == 'approve'", signing), true);
    assert.equal(holds("eth.tx.function_name == 'transfer'", signing), false);
    assert.equal(
      holds(
        "eth.tx.type == 'TYPE_2' && eth.tx.chain_id == 1 && eth.tx.nonce == 7 && eth.tx.gas == 60000 && eth.tx.value == 0 && " +
          'eth.tx.max_fee_per_gas == 30000000000 && eth.tx.gas_price == 30000000000 && eth.tx.max_priority_fee_per_gas == 1000000000 && ' +
          "eth.tx.data[0..10] == '0x095ea7b3'",
        signing,
      ),
      true,
    );
  });

  test('function_name of a transaction to an address with no ABI, or with data its ABI does not decode, is an evaluation error', () => {
    const noAbi = ethTx(ethereumCall('transfer', 5n), []).signing;
    fails("eth.tx.function_name == 'transfer'", noAbi, /no field 'function_name'/);
    fails("eth.tx.contract_call_args['amount'] < 10", noAbi, /no field 'contract_call_args'/);
    // A DENY written as a negation must fail (and so deny), never read as "not transfer".
    fails("eth.tx.function_name != 'transfer'", noAbi, /no field 'function_name'/);
    // Another contract's ABI: the selector is unknown.
    const other = ethTx(ethereumCall('transfer', 5n), [ethereumInterface(TOKEN, [{ type: 'function', name: 'mint', inputs: [], outputs: [] }])]);
    fails("eth.tx.function_name == 'transfer'", other.signing, /no field 'function_name'/);
    assert.match(other.view.callProblem!, /no function of the ABI has the selector 0xa9059cbb/);
    // The selector matches but the arguments are cut short.
    const cut = serializeTransaction({ type: 'eip1559', chainId: 1, to: TOKEN, data: '0xa9059cbb0000', maxFeePerGas: 1n, gas: 21_000n });
    const truncated = ethTx(cut);
    fails("eth.tx.contract_call_args['amount'] > 0", truncated.signing, /no field 'contract_call_args'/);
    assert.match(truncated.view.callProblem!, /does not decode as transfer's arguments/);
    // A legacy transaction has no max_fee_per_gas.
    const legacy = ethTx(serializeTransaction({ type: 'legacy', chainId: 1, to: RECIPIENT, value: 1n, gas: 21_000n, gasPrice: 5n }));
    assert.equal(holds("eth.tx.gas_price == 5 && eth.tx.type == 'LEGACY'", legacy.signing), true);
    fails('eth.tx.max_fee_per_gas < 10', legacy.signing, /no field 'max_fee_per_gas'/);
  });

  test('an argument compared with a value of another type is an evaluation error, so a DENY over it denies', () => {
    const { signing } = ethTx(ethereumCall('transfer', 5n));
    fails("eth.tx.contract_call_args['amount'] == '5'", signing, /cannot compare int with string/);
    fails("eth.tx.contract_call_args['to'] == 5", signing, /cannot compare string with int/);
    fails("eth.tx.contract_call_args['missing'] == 5", signing, /no field 'missing'/);
  });

  test('arrays, tuples, bytes, bools and signed ints decode as lists, maps, hex, bools and exact ints', () => {
    const abi = parseAbi(['function swap((address token, int256 delta)[] legs, bytes memo, bool strict, string note)']);
    const data = encodeFunctionData({
      abi,
      functionName: 'swap',
      args: [[{ token: TOKEN, delta: -(2n ** 200n) }, { token: RECIPIENT, delta: 3n }], '0xABCD', true, 'hi'],
    });
    const serialized = serializeTransaction({ type: 'eip1559', chainId: 8453, to: RECIPIENT, data, maxFeePerGas: 1n, gas: 100_000n });
    const { signing, view } = ethTx(serialized, [ethereumInterface(RECIPIENT, abi, 'Router')]);
    assert.equal(
      holds(
        `eth.tx.contract_call_args['legs'].count() == 2 && eth.tx.contract_call_args['legs'][0]['delta'] == -${2n ** 200n} && ` +
          `eth.tx.contract_call_args['legs'].any(l, l['token'] == '${TOKEN}') && eth.tx.contract_call_args['memo'] == '0xabcd' && ` +
          "eth.tx.contract_call_args['strict'] == true && eth.tx.contract_call_args['note'] == 'hi'",
        signing,
      ),
      true,
    );
    const summary = summarizeEthereumTransaction(view);
    assert.equal(summary.chain.name, 'Base');
    assert.equal(summary.to?.label, 'Router');
    assert.match(summary.text, /^On Base \(chain 8453\) call swap\(legs=\[\{token: 0xa0b8/);
  });

  test('the summary names the chain, the recipient by its label, the function, its arguments and the value in ETH', () => {
    const { view } = ethTx(ethereumCall('transfer', 2n ** 60n));
    const summary = summarizeEthereumTransaction(view);
    assert.deepEqual(summary.chain, { id: 1, name: 'Ethereum' });
    assert.deepEqual(summary.to, { address: TOKEN.toLowerCase(), label: 'USDC' });
    assert.deepEqual(summary.function?.arguments, [
      { name: 'to', value: RECIPIENT.toLowerCase() },
      { name: 'amount', value: (2n ** 60n).toString() },
    ]);
    assert.equal(
      summary.text,
      `On Ethereum (chain 1) call transfer(to=${RECIPIENT.toLowerCase()}, amount=${2n ** 60n}) on USDC (${TOKEN.toLowerCase()}) with 0 ETH from ${SIGNER.toLowerCase()}`,
    );
    const plain = ethTx(serializeTransaction({ type: 'eip1559', chainId: 137, to: RECIPIENT, value: 1_500_000_000_000_000_000n, maxFeePerGas: 1n, gas: 21_000n }), []);
    const sent = summarizeEthereumTransaction(plain.view);
    assert.deepEqual(sent.value, { amount: '1.5', unit: 'POL', wei: '1500000000000000000' });
    assert.equal(sent.text, `On Polygon (chain 137) send to ${RECIPIENT.toLowerCase()} with 1.5 POL from ${SIGNER.toLowerCase()}`);
  });
});

describe('eth.eip_712', () => {
  const typedData = {
    domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: TOKEN },
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: { owner: SIGNER, spender: RECIPIENT, value: 2n ** 64n + 1n, nonce: 0n, deadline: 1_900_000_000n },
  } as const;
  // As sign_raw_payload receives it (PAYLOAD_ENCODING_EIP712): the JSON viem's signTypedData makes
  // (types with EIP712Domain, bigints as decimal strings).
  const serialized = (data: { domain: Record<string, unknown> } & Omit<typeof typedData, 'domain'>) =>
    JSON.parse(serializeTypedData({ ...data, types: { EIP712Domain: getTypesForEIP712Domain({ domain: data.domain }), ...data.types } } as never));
  const view = typedDataView(serialized(typedData));
  assert.ok(view.ok);
  const signing: SigningBindings = { eth: { eip_712: view.value.eip712 } };

  test('conditions on primary_type, the domain and the message (exact ints, addresses in any case)', () => {
    assert.equal(holds("eth.eip_712.primary_type == 'Permit'", signing), true);
    assert.equal(
      holds(
        `eth.eip_712.domain.name == 'USD Coin' && eth.eip_712.domain.version == '2' && eth.eip_712.domain.chain_id == 1 && eth.eip_712.domain.verifying_contract == '${TOKEN}'`,
        signing,
      ),
      true,
    );
    assert.equal(holds(`eth.eip_712.message['value'] == ${2n ** 64n + 1n} && eth.eip_712.message['spender'] == '${RECIPIENT}'`, signing), true);
    assert.equal(holds(`eth.eip_712.message['value'] <= ${2n ** 64n}`, signing), false);
    assert.equal(holds("eth.eip_712.primary_type == 'Order'", signing), false);
  });

  test('a domain without a field, or a transaction read when typed data is signed, is an evaluation error', () => {
    const bare = typedDataView(serialized({ ...typedData, domain: { name: 'X' } }));
    assert.ok(bare.ok);
    fails('eth.eip_712.domain.chain_id == 1', { eth: { eip_712: bare.value.eip712 } }, /no field 'chain_id'/);
    fails("eth.tx.to == '0x'", signing, /no field 'tx'/);
    fails("solana.tx.recent_blockhash == 'x'", signing, /'solana' has no value here/);
  });

  test('a domain field types.EIP712Domain leaves out is not signed, so a condition cannot read it', () => {
    // ox hashes the domain by its declared type: the verifyingContract below is not in the signature.
    const partial = typedDataView({ ...serialized(typedData), types: { ...serialized(typedData).types, EIP712Domain: [{ name: 'name', type: 'string' }] } });
    assert.ok(partial.ok);
    const partialSigning: SigningBindings = { eth: { eip_712: partial.value.eip712 } };
    assert.equal(holds("eth.eip_712.domain.name == 'USD Coin'", partialSigning), true);
    fails(`eth.eip_712.domain.verifying_contract == '${TOKEN}'`, partialSigning, /no field 'verifying_contract'/);
    fails('eth.eip_712.domain.chain_id == 1', partialSigning, /no field 'chain_id'/);
    // Without types.EIP712Domain (as @turnkey/viem sends viem's serializeTypedData), every field given is signed.
    const { EIP712Domain: _declared, ...undeclared } = serialized(typedData).types;
    const derived = typedDataView({ ...serialized(typedData), types: undeclared });
    assert.ok(derived.ok);
    assert.equal(holds(`eth.eip_712.domain.verifying_contract == '${TOKEN}' && eth.eip_712.domain.chain_id == 1`, { eth: { eip_712: derived.value.eip712 } }), true);
  });

  test('the summary names the primary type, the domain and the message', () => {
    assert.ok(view.ok);
    const summary = summarizeTypedData(view.value, 'USDC');
    assert.equal(summary.domain.chain?.name, 'Ethereum');
    assert.equal(
      summary.text,
      `Sign EIP-712 Permit for USD Coin v2 on Ethereum at USDC (${TOKEN.toLowerCase()}): owner=${SIGNER.toLowerCase()}, spender=${RECIPIENT.toLowerCase()}, value=${2n ** 64n + 1n}, nonce=0, deadline=1900000000`,
    );
  });
});

const payer = Keypair.fromSeed(new Uint8Array(32).fill(1));
const other = Keypair.fromSeed(new Uint8Array(32).fill(2));
const BLOCKHASH = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';

function solanaTx(instructions: TransactionInstruction[], interfaces: StoredInterface[] = []) {
  const transaction = new Transaction({ feePayer: payer.publicKey, recentBlockhash: BLOCKHASH }).add(...instructions);
  const hex = transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('hex');
  const view = solanaTransactionView(parseSolanaTransaction(hex).message, interfaceIndex(interfaces));
  return { view, signing: { solana: { tx: view.tx } } satisfies SigningBindings };
}

describe('solana.tx', () => {
  test('a SOL transfer cap on solana.tx.transfers, and the keys', () => {
    const to = other.publicKey.toBase58();
    const small = solanaTx([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: other.publicKey, lamports: 1_000_000_000 })]);
    const large = solanaTx([SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: other.publicKey, lamports: 1_000_000_001 })]);
    const cap = `solana.tx.transfers.all(t, t.amount <= 1000000000 && t.to == '${to}')`;
    assert.equal(holds(cap, small.signing), true);
    assert.equal(holds(cap, large.signing), false);
    assert.equal(
      holds(
        `solana.tx.transfers.count() == 1 && solana.tx.transfers[0].from == '${payer.publicKey.toBase58()}' && ` +
          "solana.tx.program_keys.all(p, p == '11111111111111111111111111111111') && " +
          `solana.tx.recent_blockhash == '${BLOCKHASH}' && solana.tx.account_keys.count() == 3 && solana.tx.spl_transfers.count() == 0 && ` +
          `solana.tx.instructions[0].accounts[0].account_key == '${payer.publicKey.toBase58()}' && solana.tx.instructions[0].accounts[0].signer && ` +
          "solana.tx.instructions[0].accounts[1].writable && solana.tx.instructions[0].accounts[1].signer == false && " +
          "solana.tx.instructions[0].instruction_data_hex == '0200000000ca9a3b00000000'",
        small.signing,
      ),
      true,
    );
    fails("solana.tx.instructions[0].parsed_instruction_data.instruction_name == 'transfer'", small.signing, /no field 'parsed_instruction_data'/);
    const summary = summarizeSolanaTransaction(small.view);
    assert.deepEqual(summary.transfers, [{ from: payer.publicKey.toBase58(), to, sol: '1', lamports: '1000000000' }]);
    assert.equal(summary.text, `Solana transaction: transfer 1 SOL to ${to}`);
  });

  test('a v0 transaction: an account loaded from a lookup table has no address to read, so a transfer to it fails closed', () => {
    const recipient = Keypair.fromSeed(new Uint8Array(32).fill(6)).publicKey;
    const table = new AddressLookupTableAccount({
      key: new PublicKey('AddressLookupTab1e1111111111111111111111111'),
      state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, authority: undefined, addresses: [recipient] },
    });
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: BLOCKHASH,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 42 })],
    }).compileToV0Message([table]);
    const hex = Buffer.from(new VersionedTransaction(message).serialize()).toString('hex');
    const view = solanaTransactionView(parseSolanaTransaction(hex).message, EMPTY_INTERFACES);
    const signing: SigningBindings = { solana: { tx: view.tx } };
    assert.equal(
      holds(
        `solana.tx.transfers.count() == 1 && solana.tx.transfers[0].amount == 42 && solana.tx.transfers[0].from == '${payer.publicKey.toBase58()}' && ` +
          "solana.tx.address_table_lookups[0].address_table_key == 'AddressLookupTab1e1111111111111111111111111' && solana.tx.address_table_lookups[0].writable_indexes.contains(0) && solana.tx.address_table_lookups[0].readonly_indexes.count() == 0",
        signing,
      ),
      true,
    );
    assert.equal(holds("solana.tx.instructions[0].address_table_lookups[0].writable_indexes.contains(0) && solana.tx.instructions[0].accounts[1].writable", signing), true);
    // An allow-list of recipients cannot be satisfied by an address the message does not hold: it fails.
    fails(`solana.tx.transfers.all(t, t.to == '${recipient.toBase58()}')`, signing, /no field 'to'/);
    fails('solana.tx.instructions[0].accounts[1].account_key == \'x\'', signing, /no field 'account_key'/);
    assert.equal(summarizeSolanaTransaction(view).text, 'Solana transaction: transfer 0.000000042 SOL to an account from a lookup table');
  });

  test('SPL Transfer and TransferChecked: from, to, amount, owner, signers, token_mint', () => {
    const source = Keypair.fromSeed(new Uint8Array(32).fill(3)).publicKey;
    const destination = Keypair.fromSeed(new Uint8Array(32).fill(4)).publicKey;
    const mint = Keypair.fromSeed(new Uint8Array(32).fill(5)).publicKey;
    const amount = 2n ** 63n + 5n;
    const u64 = (value: bigint) => {
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64LE(value);
      return bytes;
    };
    const account = (pubkey: PublicKey, isSigner = false, isWritable = true) => ({ pubkey, isSigner, isWritable });
    const token = new PublicKey(TOKEN_PROGRAM);
    const transfer = new TransactionInstruction({
      programId: token,
      keys: [account(source), account(destination), account(payer.publicKey, true, false)],
      data: Buffer.concat([Buffer.from([3]), u64(amount)]),
    });
    const checked = new TransactionInstruction({
      programId: token,
      keys: [account(source), account(mint, false, false), account(destination), account(payer.publicKey, true, false)],
      data: Buffer.concat([Buffer.from([12]), u64(7n), Buffer.from([6])]),
    });
    const { signing, view } = solanaTx([transfer, checked]);
    assert.equal(
      holds(
        `solana.tx.spl_transfers.count() == 2 && solana.tx.spl_transfers.all(t, t.from == '${source.toBase58()}' && t.to == '${destination.toBase58()}' && t.owner == '${payer.publicKey.toBase58()}' && t.signers.count() == 0) && ` +
          `solana.tx.spl_transfers[0].amount == ${amount} && solana.tx.spl_transfers[0].token_mint == '' && ` +
          `solana.tx.spl_transfers[1].amount == 7 && solana.tx.spl_transfers[1].token_mint == '${mint.toBase58()}' && solana.tx.transfers.count() == 0`,
        signing,
      ),
      true,
    );
    assert.equal(holds('solana.tx.spl_transfers.all(t, t.amount < 1000000)', signing), false);
    assert.match(summarizeSolanaTransaction(view).text, new RegExp(`transfer ${amount} base units to ${destination.toBase58()}; transfer 7 base units of `));
  });

  // An instruction of one program, described by a legacy IDL (discriminators derived) and by an
  // Anchor 0.30 IDL (discriminators stated): the same data decodes the same way under both.
  const program = Keypair.fromSeed(new Uint8Array(32).fill(9)).publicKey;
  const vault = Keypair.fromSeed(new Uint8Array(32).fill(10)).publicKey;
  const beneficiary = Keypair.fromSeed(new Uint8Array(32).fill(11)).publicKey;
  const discriminator = createHash('sha256').update('global:deposit_funds').digest().subarray(0, 8);
  const legacyIdl = {
    version: '0.1.0',
    name: 'vault',
    instructions: [
      { name: 'initialize', accounts: [], args: [] },
      {
        name: 'depositFunds',
        accounts: [
          { name: 'authority', isMut: false, isSigner: true },
          { name: 'vault', isMut: true, isSigner: false },
        ],
        args: [
          { name: 'amount', type: 'u64' },
          { name: 'beneficiary', type: 'publicKey' },
          { name: 'memo', type: 'string' },
          { name: 'limit', type: { option: 'u128' } },
          { name: 'weights', type: { vec: 'u16' } },
          { name: 'config', type: { defined: 'Config' } },
          { name: 'tag', type: { array: ['u8', 2] } },
          { name: 'delta', type: 'i64' },
        ],
      },
    ],
    types: [
      { name: 'Config', type: { kind: 'struct', fields: [{ name: 'fast', type: 'bool' }, { name: 'mode', type: { defined: 'Mode' } }] } },
      { name: 'Mode', type: { kind: 'enum', variants: [{ name: 'Off' }, { name: 'On', fields: [{ name: 'level', type: 'u8' }] }] } },
    ],
  };
  const modernIdl = {
    address: program.toBase58(),
    metadata: { name: 'vault', version: '0.1.0', spec: '0.1.0' },
    instructions: [
      {
        name: 'deposit_funds',
        discriminator: [...discriminator],
        accounts: [{ name: 'authority', signer: true }, { name: 'vault', writable: true }],
        args: [
          { name: 'amount', type: 'u64' },
          { name: 'beneficiary', type: 'pubkey' },
          { name: 'memo', type: 'string' },
          { name: 'limit', type: { option: 'u128' } },
          { name: 'weights', type: { vec: 'u16' } },
          { name: 'config', type: { defined: { name: 'Config' } } },
          { name: 'tag', type: { array: ['u8', 2] } },
          { name: 'delta', type: 'i64' },
        ],
      },
    ],
    types: [
      { name: 'Config', type: { kind: 'struct', fields: [{ name: 'fast', type: 'bool' }, { name: 'mode', type: { defined: { name: 'Mode' } } }] } },
      { name: 'Mode', type: { kind: 'enum', variants: [{ name: 'Off' }, { name: 'On', fields: [{ name: 'level', type: 'u8' }] }] } },
    ],
  };
  const borsh = (() => {
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n);
      return b;
    };
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64LE(2n ** 60n + 3n);
    const limit = Buffer.alloc(16);
    limit.writeBigUInt64LE(5n, 0);
    const delta = Buffer.alloc(8);
    delta.writeBigInt64LE(-42n);
    const weights = Buffer.alloc(4);
    weights.writeUInt16LE(10, 0);
    weights.writeUInt16LE(20, 2);
    return Buffer.concat([
      discriminator,
      amount,
      beneficiary.toBuffer(),
      u32(5),
      Buffer.from('hello'),
      Buffer.from([1]),
      limit,
      u32(2),
      weights,
      Buffer.from([1, 1, 3]), // Config { fast: true, mode: On { level: 3 } }
      Buffer.from([7, 8]),
      delta,
    ]);
  })();
  const deposit = new TransactionInstruction({
    programId: program,
    keys: [
      { pubkey: payer.publicKey, isSigner: true, isWritable: false },
      { pubkey: vault, isSigner: false, isWritable: true },
    ],
    data: borsh,
  });

  for (const [format, idl] of [
    ['legacy', legacyIdl],
    ['0.30', modernIdl],
  ] as const) {
    test(`an instruction decoded by a ${format} IDL: instruction_name, discriminator, named_accounts, program_call_args`, () => {
      const stored: StoredInterface = { smartContractAddress: program.toBase58(), smartContractInterface: JSON.stringify(idl), type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', label: 'Vault' };
      const { signing, view } = solanaTx([deposit], [stored]);
      const name = format === 'legacy' ? 'depositFunds' : 'deposit_funds';
      const parsed = 'solana.tx.instructions[0].parsed_instruction_data';
      assert.equal(
        holds(
          `${parsed}.instruction_name == '${name}' && ${parsed}.discriminator == '${discriminator.toString('hex')}' && ` +
            `${parsed}.named_accounts['authority'] == '${payer.publicKey.toBase58()}' && ${parsed}.named_accounts['vault'] == '${vault.toBase58()}' && ` +
            `${parsed}.program_call_args['amount'] == ${2n ** 60n + 3n} && ${parsed}.program_call_args['beneficiary'] == '${beneficiary.toBase58()}' && ` +
            `${parsed}.program_call_args['memo'] == 'hello' && ${parsed}.program_call_args['limit'] == 5 && ` +
            `${parsed}.program_call_args['weights'].count() == 2 && ${parsed}.program_call_args['weights'][0] == 10 && ${parsed}.program_call_args['weights'][1] == 20 && ` +
            `${parsed}.program_call_args['config']['fast'] && ${parsed}.program_call_args['config']['mode']['On']['level'] == 3 && ` +
            `${parsed}.program_call_args['tag'][0] == 7 && ${parsed}.program_call_args['tag'][1] == 8 && ${parsed}.program_call_args['delta'] == -42`,
          signing,
        ),
        true,
      );
      assert.equal(holds(`solana.tx.instructions.any(i, i.program_key == '${program.toBase58()}' && ${parsed.replace('solana.tx.instructions[0]', 'i')}.program_call_args['amount'] > 1000)`, signing), true);
      const summary = summarizeSolanaTransaction(view);
      assert.equal(summary.instructions[0]!.label, 'Vault');
      assert.match(summary.text, new RegExp(`^Solana transaction: Vault: ${name}\\(amount=${2n ** 60n + 3n}, beneficiary=${beneficiary.toBase58()}, memo=hello, limit=5, weights=\\[10, 20\\], config=\\{fast: true, mode: \\{On: \\{level: 3\\}\\}\\}`));
    });
  }

  test('an instruction its IDL does not decode, or of a program with no IDL, has no parsed_instruction_data to read', () => {
    const stored: StoredInterface = { smartContractAddress: program.toBase58(), smartContractInterface: JSON.stringify(legacyIdl), type: 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA', label: 'Vault' };
    const cut = new TransactionInstruction({ programId: program, keys: deposit.keys, data: borsh.subarray(0, 20) });
    const { signing, view } = solanaTx([cut], [stored]);
    fails("solana.tx.instructions[0].parsed_instruction_data.instruction_name == 'depositFunds'", signing, /no field 'parsed_instruction_data'/);
    assert.match(view.instructions[0]!.callProblem!, /the data ends inside a public key/);
    // Program ids compare exactly: the IDL stored under another case of the address decodes nothing.
    const wrongCase: StoredInterface = { ...stored, smartContractAddress: program.toBase58().toLowerCase() };
    fails("solana.tx.instructions[0].parsed_instruction_data.instruction_name == 'depositFunds'", solanaTx([deposit], [wrongCase]).signing, /no field 'parsed_instruction_data'/);
    // A length prefix larger than the data is refused without allocating it.
    const huge = Buffer.concat([discriminator, Buffer.alloc(40), Buffer.from([0xff, 0xff, 0xff, 0x7f])]);
    const bomb = solanaTx([new TransactionInstruction({ programId: program, keys: deposit.keys, data: huge })], [stored]);
    assert.match(bomb.view.instructions[0]!.callProblem!, /larger than the data/);
  });
});

describe('decisions and bounds', () => {
  const alice: Approver = {
    user: { id: 'u-alice', tags: [], email: 'alice@example.com', name: 'Alice' },
    credentials: [{ id: 'k-1', user_id: 'u-alice', type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: '02ab', credential_id: '' }],
  };
  const policy = (policyId: string, effect: Policy['effect'], source: string): Policy => {
    const compiled = compileExpression(source, 'condition');
    assert.ok(compiled.ok);
    return { policyId, policyName: policyId, effect, condition: compiled.value };
  };
  const decideOn = (policies: Policy[], signing?: SigningBindings) =>
    decide({
      rootQuorum: { threshold: 1, userIds: ['u-root'] },
      policies,
      activity: { type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', params: {} },
      ...(signing ? { signing } : {}),
      approvers: [alice],
      submitter: alice,
    });

  test('decide reads the signing keywords it is given; a DENY over a field the transaction lacks denies', () => {
    const allow = policy('allow-small', 'EFFECT_ALLOW', "eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= 1000");
    assert.equal(decideOn([allow], ethTx(ethereumCall('transfer', 1000n)).signing).outcome, 'OUTCOME_ALLOW');
    assert.equal(decideOn([allow], ethTx(ethereumCall('transfer', 1001n)).signing).outcome, 'OUTCOME_DENY_IMPLICIT');
    // No ABI for `to`: the ALLOW cannot read function_name and allows nothing; the DENY that cannot read it denies.
    assert.equal(decideOn([allow], ethTx(ethereumCall('transfer', 1n), []).signing).outcome, 'OUTCOME_DENY_IMPLICIT');
    const deny = policy('deny-approve', 'EFFECT_DENY', "eth.tx.function_name == 'approve'");
    const everything = policy('allow-all', 'EFFECT_ALLOW', 'true');
    assert.equal(decideOn([deny, everything], ethTx(ethereumCall('transfer', 1n)).signing).outcome, 'OUTCOME_ALLOW');
    assert.equal(decideOn([deny, everything], ethTx(ethereumCall('transfer', 1n), []).signing).outcome, 'OUTCOME_DENY_EXPLICIT');
    // An activity that signs nothing: eth is unbound, the DENY fails and denies.
    assert.equal(decideOn([deny, everything]).outcome, 'OUTCOME_DENY_EXPLICIT');
  });

  test('call data whose arrays point at one another decodes to a problem, not to millions of values', () => {
    // uint256[][]: 2,000 entries all pointing at one array of 1,000 items: 2,000,000 values from 100 KB.
    const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0');
    const outer = 2000;
    const inner = 1000;
    const data = `0x${'4b6b2fd6'}${word(32)}${word(outer)}${word(outer * 32).repeat(outer)}${word(inner)}${word(1).repeat(inner)}`;
    const abi = parseAbi(['function run(uint256[][] grid)']);
    const selector = encodeFunctionData({ abi, functionName: 'run', args: [[]] }).slice(0, 10);
    const decoded = decodeEthereumCall(abi, selector + data.slice(10));
    assert.equal(decoded.ok, false);
    if (!decoded.ok) assert.match(decoded.problem, new RegExp(`does not decode as run's arguments|more than ${MAX_DECODED_VALUES} values`));
  });

  test('a condition over a long decoded list stays within the step budget', () => {
    const abi = parseAbi(['function batch(uint256[] amounts)']);
    const amounts = Array.from({ length: 3000 }, (_, i) => BigInt(i));
    const serialized = serializeTransaction({ type: 'eip1559', chainId: 1, to: RECIPIENT, data: encodeFunctionData({ abi, functionName: 'batch', args: [amounts] }), maxFeePerGas: 1n, gas: 1n });
    const { signing } = ethTx(serialized, [ethereumInterface(RECIPIENT, abi, 'Batcher')]);
    assert.equal(holds("eth.tx.contract_call_args['amounts'].all(a, a < 3000)", signing), true);
    fails("eth.tx.contract_call_args['amounts'].all(a, eth.tx.contract_call_args['amounts'].all(b, a >= 0))", signing, /budget/);
  });
});

describe('older interface shapes', () => {
  test('an ABI function written without inputs and outputs (older tooling) is recognised', () => {
    const { signing } = ethTx(
      serializeTransaction({ type: 'eip1559', chainId: 1, to: TOKEN, data: '0xd0e30db0', maxFeePerGas: 1n, gas: 1n, value: 5n }),
      [ethereumInterface(TOKEN, [{ type: 'function', name: 'deposit', payable: true, stateMutability: 'payable' }], 'WETH')],
    );
    assert.equal(holds("eth.tx.function_name == 'deposit' && eth.tx.function_signature == '0xd0e30db0'", signing), true);
  });

  test('a legacy IDL argument of a type declared under accounts decodes', () => {
    const idl = {
      version: '0.1.0',
      name: 'p',
      instructions: [{ name: 'setState', accounts: [], args: [{ name: 'state', type: { defined: 'State' } }] }],
      accounts: [{ name: 'State', type: { kind: 'struct', fields: [{ name: 'count', type: 'u32' }] } }],
    };
    const decoded = decodeSolanaInstruction(idl, Buffer.concat([derivedDiscriminator('setState'), Buffer.from([7, 0, 0, 0])]), []);
    assert.ok(decoded.ok, decoded.ok ? '' : decoded.problem);
    assert.deepEqual(decoded.value.args, { state: { count: 7n } });
    assert.equal(Buffer.from(derivedDiscriminator('setState')).toString('hex'), createHash('sha256').update('global:set_state').digest().subarray(0, 8).toString('hex'));
  });
});

describe('the signing keywords in the type checker', () => {
  test('wallet, wallet_account and private_key are known to the typecheck, unbound at evaluation', () => {
    for (const source of ["wallet.label == 'x' && wallet.id == 'w' && wallet.exported == false", "wallet_account.address == 'a'", "private_key.tags.contains('t') && private_key.imported"]) {
      const compiled = compileExpression(source, 'condition');
      assert.ok(compiled.ok, source);
      fails(source, {}, /has no value here: it is bound only when an activity signs/);
    }
    const unknown = compileExpression('eth.tx.nonexistent == 1', 'condition');
    assert.equal(unknown.ok, false);
    if (!unknown.ok) assert.match(unknown.error.message, /EthereumTransaction has no field 'nonexistent'/);
    const wrongType = compileExpression("solana.tx.transfers.all(t, t.amount == 'x')", 'condition');
    assert.equal(wrongType.ok, false);
    assert.equal(compileExpression('eth.tx.value > 0', 'consensus').ok, false);
  });

  test('no interfaces stored: eth.tx still reads the transaction fields', () => {
    const view = ethereumTransactionView(parseEthereumTransaction(ethereumCall('transfer', 1n)).transaction, EMPTY_INTERFACES);
    assert.equal(holds(`eth.tx.to == '${TOKEN}' && eth.tx.chain_id == 1`, { eth: { tx: view.tx } }), true);
    fails(`eth.tx.from == '${SIGNER}'`, { eth: { tx: view.tx } }, /no field 'from'/);
  });
});
