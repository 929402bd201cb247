// A transaction in words, pure, for approval emails, the console and webhooks: plain data (what a
// template or a page lays out) and a one-line text. Ethereum: the chain (by name for the common
// ones), the recipient with its interface's label, the function and its named arguments, the value
// in the chain's unit (from wei) and in wei. Solana: each instruction by its program's label and
// name, SOL transfers in SOL and lamports, SPL transfers in the token's base units. EIP-712: the
// domain and the message. Token amounts stay in base units: the decimals of a token are not in its ABI.
import type { EthereumTransactionView } from './ethereum.ts';
import type { SolanaTransactionView } from './solana.ts';
import type { TypedDataView } from './typedData.ts';
import type { EthereumSummary, ReadableSummary, SolanaSummary, SummaryArgument, TypedDataSummary } from './summaryShape.ts';
import { valueText } from './values.ts';

export type { EthereumSummary, ReadableSummary, SolanaSummary, SummaryArgument, TypedDataSummary };

/** Chains by id: name and native unit (18 decimals each). */
export const CHAINS: ReadonlyMap<number, { readonly name: string; readonly unit: string }> = new Map([
  [1, { name: 'Ethereum', unit: 'ETH' }],
  [10, { name: 'OP Mainnet', unit: 'ETH' }],
  [56, { name: 'BNB Smart Chain', unit: 'BNB' }],
  [137, { name: 'Polygon', unit: 'POL' }],
  [8453, { name: 'Base', unit: 'ETH' }],
  [42161, { name: 'Arbitrum One', unit: 'ETH' }],
  [43114, { name: 'Avalanche C-Chain', unit: 'AVAX' }],
  [17000, { name: 'Holesky', unit: 'ETH' }],
  [84532, { name: 'Base Sepolia', unit: 'ETH' }],
  [11155111, { name: 'Sepolia', unit: 'ETH' }],
]);

/** `amount` in units of 10^decimals as decimal text, without trailing zeros: 1500000000000000000 wei → '1.5'. */
export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

function chainOf(id: number): { id: number; name: string; unit: string } {
  const known = CHAINS.get(id);
  return { id, name: known?.name ?? `chain ${id}`, unit: known?.unit ?? 'ETH' };
}

const short = (address: string) => (address.length > 14 ? `${address.slice(0, 8)}…${address.slice(-6)}` : address);
const argumentsOf = (names: readonly string[], args: Readonly<Record<string, unknown>>): SummaryArgument[] =>
  names.map((name) => ({ name, value: valueText(args[name]) }));
const argumentsText = (args: readonly SummaryArgument[]) => args.map(({ name, value }) => `${name}=${value}`).join(', ');

export function summarizeEthereumTransaction(view: EthereumTransactionView): EthereumSummary {
  const { transaction, call } = view;
  const chain = chainOf(transaction.chainId);
  const value = { amount: formatUnits(transaction.value, 18), unit: chain.unit, wei: transaction.value.toString() };
  const to = transaction.to === undefined ? undefined : { address: transaction.to, ...(view.contractLabel !== undefined ? { label: view.contractLabel } : {}) };
  const fn = call && { name: call.functionName, signature: call.functionSignature, arguments: argumentsOf(call.argNames, call.args) };
  const recipient = to ? (to.label !== undefined ? `${to.label} (${to.address})` : to.address) : 'a new contract';
  const parts = [`On ${chain.name} (chain ${chain.id})`];
  if (fn) parts.push(`call ${fn.name}(${argumentsText(fn.arguments)}) on ${recipient}`);
  else if (transaction.data !== '0x') parts.push(`send ${(transaction.data.length - 2) / 2} bytes of undecoded call data to ${recipient}`);
  else parts.push(`send to ${recipient}`);
  parts.push(`with ${value.amount} ${value.unit}`);
  if (view.from !== undefined) parts.push(`from ${view.from}`);
  return {
    kind: 'ethereum_transaction',
    chain: { id: chain.id, name: chain.name },
    ...(view.from !== undefined ? { from: view.from } : {}),
    ...(to ? { to } : {}),
    ...(fn ? { function: fn } : {}),
    value,
    text: parts.join(' '),
  };
}

export function summarizeSolanaTransaction(view: SolanaTransactionView): SolanaSummary {
  const instructions = view.instructions.map((instruction) => ({
    program: instruction.programKey ?? '',
    ...(instruction.programLabel !== undefined ? { label: instruction.programLabel } : {}),
    ...(instruction.call ? { name: instruction.call.instructionName, arguments: argumentsOf(instruction.call.argNames, instruction.call.args) } : {}),
  }));
  const transfers = view.transfers.map((transfer) => ({
    ...(transfer.from !== undefined ? { from: transfer.from } : {}),
    ...(transfer.to !== undefined ? { to: transfer.to } : {}),
    sol: formatUnits(transfer.amount, 9),
    lamports: transfer.amount.toString(),
  }));
  const splTransfers = view.splTransfers.map((transfer) => ({
    ...(transfer.from !== undefined ? { from: transfer.from } : {}),
    ...(transfer.to !== undefined ? { to: transfer.to } : {}),
    amount: transfer.amount.toString(),
    ...(transfer.tokenMint ? { tokenMint: transfer.tokenMint } : {}),
  }));
  const parts: string[] = [];
  for (const transfer of transfers) parts.push(`transfer ${transfer.sol} SOL to ${transfer.to ?? 'an account from a lookup table'}`);
  for (const transfer of splTransfers) {
    parts.push(`transfer ${transfer.amount} base units${transfer.tokenMint ? ` of ${short(transfer.tokenMint)}` : ''} to ${transfer.to ?? 'an account from a lookup table'}`);
  }
  for (const instruction of instructions) {
    if (!instruction.name) continue;
    parts.push(`${instruction.label ?? short(instruction.program)}: ${instruction.name}(${argumentsText(instruction.arguments ?? [])})`);
  }
  const others = instructions.length - instructions.filter((instruction) => instruction.name).length - transfers.length - splTransfers.length;
  if (others > 0) parts.push(`${others} other instruction${others === 1 ? '' : 's'}`);
  return { kind: 'solana_transaction', instructions, transfers, splTransfers, text: `Solana transaction: ${parts.join('; ') || 'no instructions'}` };
}

/** `label`: the interface stored for the domain's verifying contract, when the caller knows one. */
export function summarizeTypedData(view: TypedDataView, label?: string): TypedDataSummary {
  const { domain } = view;
  const chainId = domain.chain_id as number | bigint | undefined;
  const chain = chainId === undefined ? undefined : typeof chainId === 'number' ? { id: chainId, name: chainOf(chainId).name } : { id: chainId.toString() };
  const summaryDomain = {
    ...(typeof domain.name === 'string' ? { name: domain.name } : {}),
    ...(typeof domain.version === 'string' ? { version: domain.version } : {}),
    ...(chain ? { chain } : {}),
    ...(typeof domain.verifying_contract === 'string' ? { verifyingContract: domain.verifying_contract } : {}),
    ...(label !== undefined ? { label } : {}),
  };
  const message = argumentsOf(Object.keys(view.message), view.message);
  const where = [
    summaryDomain.name !== undefined ? `${summaryDomain.name}${summaryDomain.version !== undefined ? ` v${summaryDomain.version}` : ''}` : undefined,
    chain ? `on ${chain.name ?? `chain ${chain.id}`}` : undefined,
    summaryDomain.verifyingContract !== undefined ? `at ${label !== undefined ? `${label} (${summaryDomain.verifyingContract})` : summaryDomain.verifyingContract}` : undefined,
  ].filter((part) => part !== undefined);
  return {
    kind: 'eip712',
    primaryType: view.primaryType,
    domain: summaryDomain,
    message,
    text: `Sign EIP-712 ${view.primaryType}${where.length ? ` for ${where.join(' ')}` : ''}: ${argumentsText(message)}`,
  };
}
