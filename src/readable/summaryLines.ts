// A readable summary as labelled lines, pure and free of imports but types, so the approval email
// (delivery/email) and the console's activity page (console/, bundled for the browser) lay out the
// same lines: the chain, the recipient with its interface's label, the function and each named
// argument, the value in the chain's unit and in wei; each Solana transfer and instruction; the
// EIP-712 primary type, domain and message fields. Every value is one line of plain text: control
// characters and the marks that reorder text (bidirectional overrides) become spaces, so a decoded
// string cannot forge a line of its own or disguise an address.
import type { ReadableSummary, SummaryArgument } from './summaryShape.ts';

export interface SummaryLine {
  readonly label: string;
  readonly value: string;
}

const KINDS: ReadonlySet<string> = new Set(['ethereum_transaction', 'solana_transaction', 'eip712']);

/** Whether `value` (a stored or received JSON value) is a summary these lines can be made of. */
export function isReadableSummary(value: unknown): value is ReadableSummary {
  if (value === null || typeof value !== 'object') return false;
  const { kind, text } = value as { kind?: unknown; text?: unknown };
  return typeof kind === 'string' && KINDS.has(kind) && typeof text === 'string';
}

/** Text in one line: control characters, line and paragraph separators and bidirectional marks as spaces, runs of spaces as one. */
export function oneLine(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

const line = (label: string, value: string): SummaryLine => ({ label, value: oneLine(value) });
const named = (address: string, label: string | undefined) => (label !== undefined ? `${label} (${address})` : address);
const argumentLines = (prefix: string, args: readonly SummaryArgument[] | undefined) => (args ?? []).map(({ name, value }) => line(`${prefix} ${name}`, value));

/** The summary's lines, in the order a reader checks them; the one-line `text` is not among them. */
export function summaryLines(summary: ReadableSummary): SummaryLine[] {
  const lines: SummaryLine[] = [];
  switch (summary.kind) {
    case 'ethereum_transaction': {
      lines.push(line('Chain', `${summary.chain.name} (chain ${summary.chain.id})`));
      if (summary.from !== undefined) lines.push(line('From', summary.from));
      lines.push(line('Recipient', summary.to ? named(summary.to.address, summary.to.label) : 'a new contract (contract creation)'));
      if (summary.function) {
        const names = (summary.function.arguments ?? []).map((argument) => argument.name).join(', ');
        lines.push(line('Function', `${summary.function.name}(${names}), selector ${summary.function.signature}`));
        lines.push(...argumentLines('Argument', summary.function.arguments));
      }
      lines.push(line('Value', `${summary.value.amount} ${summary.value.unit} (${summary.value.wei} wei)`));
      break;
    }
    case 'solana_transaction': {
      for (const transfer of summary.transfers ?? []) {
        lines.push(line('SOL transfer', `${transfer.sol} SOL (${transfer.lamports} lamports) to ${transfer.to ?? 'an account from a lookup table'}${transfer.from ? ` from ${transfer.from}` : ''}`));
      }
      for (const transfer of summary.splTransfers ?? []) {
        const token = transfer.tokenMint ? ` of token ${transfer.tokenMint}` : '';
        lines.push(line('Token transfer', `${transfer.amount} base units${token} to ${transfer.to ?? 'an account from a lookup table'}${transfer.from ? ` from ${transfer.from}` : ''}`));
      }
      const instructions = summary.instructions ?? [];
      for (const instruction of instructions) {
        if (instruction.name === undefined) continue;
        const args = (instruction.arguments ?? []).map(({ name, value }) => `${name}=${value}`).join(', ');
        lines.push(line('Instruction', `${instruction.name}(${args}) on ${named(instruction.program, instruction.label)}`));
      }
      // The transfers above are instructions no interface decoded too: the others are counted, as the text counts them.
      const others = instructions.filter((instruction) => instruction.name === undefined).length - (summary.transfers ?? []).length - (summary.splTransfers ?? []).length;
      if (others > 0) lines.push(line('Other instructions', `${others} not decoded: read the intent`));
      break;
    }
    case 'eip712': {
      lines.push(line('Primary type', summary.primaryType));
      const { domain } = summary;
      if (domain.name !== undefined) lines.push(line('Domain', `${domain.name}${domain.version !== undefined ? ` version ${domain.version}` : ''}`));
      if (domain.chain) lines.push(line('Chain', domain.chain.name !== undefined ? `${domain.chain.name} (chain ${domain.chain.id})` : `chain ${domain.chain.id}`));
      if (domain.verifyingContract !== undefined) lines.push(line('Verifying contract', named(domain.verifyingContract, domain.label)));
      lines.push(...argumentLines('Message', summary.message));
      break;
    }
  }
  if (summary.truncated) lines.push(line('Note', 'the summary was cut to stay within its bound: read the intent for the rest'));
  return lines;
}
