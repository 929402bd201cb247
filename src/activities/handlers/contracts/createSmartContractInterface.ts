// The create_smart_contract_interface activity: checks an Ethereum ABI or Solana IDL
// and its contract address, then stores the interface exactly as submitted, with its digest.
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ethereumAddressProblem, solanaAddressProblem } from '../../../contracts/address.ts';
import { ethereumAbiProblems } from '../../../contracts/ethereumAbi.ts';
import { MAX_INTERFACE_BYTES } from '../../../contracts/limits.ts';
import { quoteJson } from '../../../contracts/schemaMessages.ts';
import { solanaIdlProblems } from '../../../contracts/solanaIdl.ts';
import { write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { jsonDocumentProblem } from '../../../wire/jsonDocument.ts';

export { MAX_INTERFACE_BYTES };
export const MAX_LABEL_LENGTH = 256;
export const MAX_NOTES_LENGTH = 4096;
/**
 * Nesting of the interface's own JSON: 32 nested tuples of an ABI take about 70 levels, 32 nested IDL
 * types about 40; past 128 the rules (and any message quoting a value) are not run at all.
 */
export const MAX_INTERFACE_DEPTH = 128;
/** An ABI with a systematic mistake has one problem per entry; the first few are enough to act on. */
const MAX_REPORTED_PROBLEMS = 10;

export const SMART_CONTRACT_INTERFACE_TYPES = [
  'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
  'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
] as const;
export type SmartContractInterfaceType = (typeof SMART_CONTRACT_INTERFACE_TYPES)[number];

interface Kind {
  /** 'an Ethereum ABI' */
  interfaceName: string;
  /** 'Ethereum address' */
  addressName: string;
  interfaceProblems(value: unknown): string[];
  addressProblem(address: string): string | undefined;
}

const kinds: Record<SmartContractInterfaceType, Kind> = {
  SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM: {
    interfaceName: 'an Ethereum ABI',
    addressName: 'Ethereum address',
    interfaceProblems: ethereumAbiProblems,
    addressProblem: ethereumAddressProblem,
  },
  SMART_CONTRACT_INTERFACE_TYPE_SOLANA: {
    interfaceName: 'a Solana IDL',
    addressName: 'Solana address',
    interfaceProblems: solanaIdlProblems,
    addressProblem: solanaAddressProblem,
  },
};

const isKnownType = (value: unknown): value is SmartContractInterfaceType =>
  (SMART_CONTRACT_INTERFACE_TYPES as readonly unknown[]).includes(value);

const otherType = (type: SmartContractInterfaceType): SmartContractInterfaceType =>
  type === 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' ? 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA' : 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM';

/**
 * A string PostgreSQL can store unchanged: text and jsonb reject NUL, and an unpaired surrogate
 * would be stored as U+FFFD, so neither could be kept "as submitted".
 */
const storableText = () =>
  z
    .string()
    .refine((value) => !value.includes('\u0000'), { error: 'must not contain the NUL character (\\u0000)' })
    .refine((value) => !/[\uD800-\uDFFF]/u.test(value), {
      error: 'must be well-formed Unicode: it contains an unpaired surrogate (\\uD800-\\uDFFF) escape',
    });

const parameters = z
  .strictObject({
    smartContractAddress: storableText().meta({
      // Either kind's form; the rules below check the one `type` names (EIP-55 checksum, 32 bytes).
      pattern: '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$',
      description:
        'Contract address or program ID that the interface belongs to: for Ethereum 0x and 40 hex digits (mixed case must match its EIP-55 checksum), for Solana a base58 public key of 32 bytes',
    }),
    smartContractInterface: storableText().meta({
      // The limit is in bytes of UTF-8; a character takes at least one, so this bound holds too.
      maxLength: MAX_INTERFACE_BYTES,
      'x-maxBytes': MAX_INTERFACE_BYTES,
      contentMediaType: 'application/json',
      description:
        'ABI or IDL serialized as a JSON string. Limited to 400 KiB (409600 bytes of UTF-8). An Ethereum ABI (a JSON array of entries) or a Solana Anchor IDL, checked against the rules of its type; stored exactly as submitted',
    }),
    type: z
      .enum(SMART_CONTRACT_INTERFACE_TYPES, {
        error: (issue) =>
          issue.input === undefined
            ? `is required: ${SMART_CONTRACT_INTERFACE_TYPES.join(' or ')}`
            : `must be ${SMART_CONTRACT_INTERFACE_TYPES.join(' or ')}, got ${quoteJson(issue.input)}`,
      })
      .describe('SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM (an ABI) or SMART_CONTRACT_INTERFACE_TYPE_SOLANA (an IDL), matching the kind of interface'),
    label: storableText()
      .max(MAX_LABEL_LENGTH, { error: `must be at most ${MAX_LABEL_LENGTH} characters` })
      .regex(/\S/, { error: 'must not be empty or only spaces: it is the human-readable name of the interface' })
      .describe('Human-readable name of the interface; not blank'),
    // Optional and echoed in the intent only when given: the intent records what was stamped.
    // The stored row has '' when absent.
    notes: storableText()
      .max(MAX_NOTES_LENGTH, { error: `must be at most ${MAX_NOTES_LENGTH} characters` })
      .describe('Notes on the interface. Optional')
      .optional(),
  })
  .superRefine(
    (intent, ctx) => {
      const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
      const type = isKnownType(intent.type) ? intent.type : undefined;

      if (type && typeof intent.smartContractAddress === 'string') {
        const problem = kinds[type].addressProblem(intent.smartContractAddress);
        if (problem) {
          const other = otherType(type);
          issue(
            'smartContractAddress',
            kinds[other].addressProblem(intent.smartContractAddress) === undefined
              ? `is not a valid ${kinds[type].addressName} (it is a valid ${kinds[other].addressName}): set type to ${other}, or give the contract's ${kinds[type].addressName}`
              : `is not a valid ${kinds[type].addressName}: ${problem}`,
          );
        }
      }

      const text = intent.smartContractInterface;
      if (typeof text !== 'string') return;
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > MAX_INTERFACE_BYTES) {
        issue(
          'smartContractInterface',
          `is ${bytes} bytes of UTF-8, over the limit of ${MAX_INTERFACE_BYTES} bytes (400 KiB); remove what is not needed (e.g. docs) or split the interface`,
        );
        return;
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        issue('smartContractInterface', `must be JSON text (the ABI or IDL serialized as a string): ${(error as Error).message}`);
        return;
      }
      const structure = jsonDocumentProblem(value, MAX_INTERFACE_DEPTH);
      if (structure) {
        const at = structure.field === '(body)' ? '' : ` at ${structure.field}`;
        issue('smartContractInterface', `is not usable JSON${at}: ${structure.description}`);
        return;
      }
      if (!type) return; // which rules apply is unknown; `type` has its own issue
      const problems = kinds[type].interfaceProblems(value);
      if (problems.length === 0) return;
      const other = otherType(type);
      if (kinds[other].interfaceProblems(value).length === 0) {
        issue(
          'smartContractInterface',
          `is ${kinds[other].interfaceName}, not ${kinds[type].interfaceName}: set type to ${other}, or submit ${kinds[type].interfaceName}`,
        );
        return;
      }
      const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
      shown.forEach((problem, index) => {
        const more = index === shown.length - 1 && problems.length > shown.length ? ` (and ${problems.length - shown.length} more problems)` : '';
        issue('smartContractInterface', `is not ${kinds[type].interfaceName}: ${problem}${more}`);
      });
    },
    // Check the interface and address even when another field is wrong, so one reply names every problem.
    { when: (payload) => payload.value !== null && typeof payload.value === 'object' },
  );

const resultSchema = z.strictObject({
  smartContractInterfaceId: z.uuid().describe('Identifier of the created interface: get_smart_contract_interface and delete_smart_contract_interface take it'),
});
type CreateSmartContractInterfaceResult = z.infer<typeof resultSchema>;

export const createSmartContractInterface: ActivityHandler<typeof parameters, CreateSmartContractInterfaceResult> = {
  path: 'create_smart_contract_interface',
  activityType: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
  resource: 'SMART_CONTRACT_INTERFACE',
  action: 'CREATE',
  reasons: [],
  summary: 'Stores an Ethereum ABI or a Solana (Anchor) IDL; result `createSmartContractInterfaceResult.smartContractInterfaceId`',
  description:
    'Stores an ABI (Ethereum) or IDL (Solana) for a contract address or program ID, checked against the rules of its type; the answer carries the identifier of the stored interface (`createSmartContractInterfaceResult.smartContractInterfaceId`).',
  intentKey: 'createSmartContractInterfaceIntent',
  resultKey: 'createSmartContractInterfaceResult',
  parameters,
  resultSchema,
  example: {
    smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    smartContractInterface: JSON.stringify([
      { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
    ]),
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    label: 'Tether USD (balanceOf)',
  },

  async execute(context, intent) {
    const id = randomUUID();
    // The digest is over the text as submitted, so a client can check what it stored byte for byte.
    const digest = `sha256:${createHash('sha256').update(intent.smartContractInterface, 'utf8').digest('hex')}`;
    return {
      result: { smartContractInterfaceId: id },
      effects: [
        write('insertSmartContractInterface', {
          id,
          organizationId: context.organizationId,
          smartContractAddress: intent.smartContractAddress,
          smartContractInterface: intent.smartContractInterface,
          type: intent.type,
          label: intent.label,
          notes: intent.notes ?? '',
          digest,
          createdAt: context.now,
        }),
      ],
    };
  },
};
