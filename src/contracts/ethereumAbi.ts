// Rules for an Ethereum JSON ABI (the JSON form of the Solidity ABI specification): its entries,
// names, parameter types and flags. Pure functions; problems name the JSON path they are about.
//
// Not abitype's `Abi` zod schema: under zod 4 it reports every bad entry as a bare "Invalid input"
// at the entry's index, and it rejects fixed<M>x<N> while accepting uint256[0].
import { z } from 'zod';
import { describeJsonType, quoteJson, required } from './schemaMessages.ts';

export const ABI_ENTRY_TYPES = ['function', 'constructor', 'event', 'error', 'fallback', 'receive'] as const;

/** Tuples nest through `components`; the bound keeps validation well inside the call stack. */
export const MAX_TUPLE_DEPTH = 32;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const NAME_RULE = 'letters, digits, _ and $, not starting with a digit';
const TYPE_EXAMPLES =
  'an elementary type (uint256, int8, address, bool, string, bytes, bytes32, …), tuple with components, or an array of one such as uint256[] or address[3]';

/** Problems with a JSON ABI, each as `path: what is wrong`; empty when the ABI is valid. */
export function ethereumAbiProblems(value: unknown): string[] {
  const parsed = abiSchema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const path = z.core.toDotPath(issue.path);
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
}

/**
 * Problem with a Solidity ABI type in canonical form (`uint256`, `bytes32[]`, `tuple[2]`), or
 * undefined. `tuple` is accepted here; whether it has components is the parameter's rule.
 */
export function solidityTypeProblem(type: string): string | undefined {
  const quoted = quoteJson(type);
  const bracket = type.indexOf('[');
  const base = bracket === -1 ? type : type.slice(0, bracket);
  const suffix = bracket === -1 ? '' : type.slice(bracket);

  if (suffix !== '') {
    if (!/^(\[\d*\])+$/.test(suffix)) {
      return `${quoted} has a malformed array suffix: write T[] for a dynamic array or T[k] for k elements`;
    }
    for (const [, length] of suffix.matchAll(/\[(\d*)\]/g)) {
      if (length !== '' && !/^[1-9]\d*$/.test(length!)) {
        return `${quoted}: a fixed-size array needs a length of at least 1, written without leading zeros`;
      }
    }
  }

  if (['address', 'bool', 'string', 'bytes', 'function', 'tuple'].includes(base)) return undefined;

  const integer = /^(u?int)(\d*)$/.exec(base);
  if (integer) {
    const [, kind, bits] = integer;
    if (bits === '') return `${quoted} is an alias; write the canonical ${kind}256 (selectors are computed from it)`;
    if (!isMultipleOf8UpTo256(bits!)) {
      return `${quoted} is not a valid integer type: the size must be a multiple of 8 from 8 to 256 (e.g. ${kind}8, ${kind}256)`;
    }
    return undefined;
  }

  const fixedBytes = /^bytes(\d+)$/.exec(base);
  if (fixedBytes) {
    const size = fixedBytes[1]!;
    if (!/^[1-9]\d*$/.test(size) || Number(size) > 32) return `${quoted}: fixed-size byte types are bytes1 to bytes32`;
    return undefined;
  }

  const fixed = /^(u?fixed)(?:(\d+)x(\d+))?$/.exec(base);
  if (fixed) {
    const [, kind, bits, decimals] = fixed;
    if (bits === undefined) return `${quoted} is an alias; write the canonical ${kind}128x18 (selectors are computed from it)`;
    if (!isMultipleOf8UpTo256(bits) || !/^[1-9]\d*$/.test(decimals!) || Number(decimals) > 80) {
      return `${quoted} is not a valid ${kind}<M>x<N> type: M must be a multiple of 8 from 8 to 256 and N from 1 to 80 (e.g. ${kind}128x18)`;
    }
    return undefined;
  }

  return `${quoted} is not a Solidity ABI type; use ${TYPE_EXAMPLES}`;
}

function isMultipleOf8UpTo256(digits: string): boolean {
  if (!/^[1-9]\d*$/.test(digits)) return false;
  const n = Number(digits);
  return n >= 8 && n <= 256 && n % 8 === 0;
}

const isTupleType = (type: string) => /^tuple(\[\d*\])*$/.test(type);

const optionalText = (expected = 'a string') =>
  z.string({ error: (issue) => `must be ${expected}, got ${describeJsonType(issue.input)}` }).optional();

const optionalFlag = () => z.boolean({ error: (issue) => `must be true or false, got ${describeJsonType(issue.input)}` }).optional();

// Parameter schemas are built once per nesting level (not with z.lazy), so that tuples nested too
// deeply meet a clear rule instead of the end of the stack.
const parameterSchemas = new Map<string, z.ZodType>();

function parameterSchema(depth: number, indexedAllowed: boolean): z.ZodType {
  const key = `${depth}:${indexedAllowed}`;
  const known = parameterSchemas.get(key);
  if (known) return known;
  const components =
    depth < MAX_TUPLE_DEPTH
      ? z.array(parameterSchema(depth + 1, false), { error: required("the tuple's parameters", 'an array of parameters') }).optional()
      : z.never({ error: `tuples may be nested at most ${MAX_TUPLE_DEPTH} levels deep` }).optional();
  const schema = z
    .looseObject(
      {
        name: optionalText('a string (empty for an unnamed parameter)'),
        type: z.string({ error: required('the Solidity type of the parameter, e.g. uint256', 'a string') }),
        internalType: optionalText(),
        components,
        indexed: indexedAllowed
          ? optionalFlag()
          : z.never({ error: 'is only allowed on the inputs of an event entry; remove it' }).optional(),
      },
      { error: (issue) => `each parameter must be a JSON object with a type, got ${describeJsonType(issue.input)}` },
    )
    .superRefine((parameter, ctx) => {
      if (parameter.name !== undefined && parameter.name !== '' && !IDENTIFIER.test(parameter.name)) {
        ctx.addIssue({ code: 'custom', path: ['name'], message: `${quoteJson(parameter.name)} is not a valid parameter name (${NAME_RULE})` });
      }
      const problem = solidityTypeProblem(parameter.type);
      if (problem) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: problem });
      } else if (isTupleType(parameter.type) && parameter.components === undefined) {
        ctx.addIssue({ code: 'custom', path: ['components'], message: `is required when type is ${parameter.type}: the tuple's parameters` });
      } else if (!isTupleType(parameter.type) && parameter.components !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['components'], message: `is only allowed when type is a tuple (tuple, tuple[] or tuple[k]), not ${parameter.type}` });
      }
    });
  parameterSchemas.set(key, schema);
  return schema;
}

const parameterList = (indexedAllowed = false) =>
  z.array(parameterSchema(0, indexedAllowed), { error: (issue) => `must be an array of parameters, got ${describeJsonType(issue.input)}` }).optional();

const entryName = (entry: string) =>
  z
    .string({ error: required(`the ${entry}'s name`, 'a string') })
    .regex(IDENTIFIER, { error: (issue) => `${quoteJson(issue.input)} is not a valid ${entry} name (${NAME_RULE})` });

const stateMutability = <const T extends readonly [string, ...string[]]>(allowed: T, why = '') =>
  z.enum(allowed, { error: (issue) => `must be ${allowed.join(', ').replace(/, ([^,]*)$/, ' or $1')}${why}, got ${quoteJson(issue.input)}` }).optional();

// Entries may carry keys beyond these (Vyper's gas, tooling metadata): they are kept, not judged.
// inputs/outputs may be absent (older tooling omits empty lists); `constant` and `payable` are
// the pre-0.5 spellings of stateMutability.
const functionEntry = z.looseObject({
  type: z.literal('function'),
  name: entryName('function'),
  inputs: parameterList(),
  outputs: parameterList(),
  stateMutability: stateMutability(['pure', 'view', 'nonpayable', 'payable']),
  constant: optionalFlag(),
  payable: optionalFlag(),
});

const constructorEntry = z.looseObject({
  type: z.literal('constructor'),
  inputs: parameterList(),
  stateMutability: stateMutability(['nonpayable', 'payable'], ' for a constructor'),
  payable: optionalFlag(),
});

const eventEntry = z
  .looseObject({
    type: z.literal('event'),
    name: entryName('event'),
    inputs: parameterList(true),
    anonymous: optionalFlag(),
  })
  .superRefine((event, ctx) => {
    // Topics: the signature takes one of four, unless the event is anonymous.
    const limit = event.anonymous ? 4 : 3;
    const indexed = (event.inputs ?? []).filter((input) => (input as { indexed?: boolean }).indexed === true).length;
    if (indexed > limit) {
      ctx.addIssue({
        code: 'custom',
        path: ['inputs'],
        message: `has ${indexed} indexed inputs, but an event can index at most ${limit}${event.anonymous ? ' (anonymous)' : ' (4 if anonymous)'}`,
      });
    }
  });

const errorEntry = z.looseObject({
  type: z.literal('error'),
  name: entryName('error'),
  inputs: parameterList(),
});

const fallbackEntry = z.looseObject({
  type: z.literal('fallback'),
  stateMutability: stateMutability(['nonpayable', 'payable'], ' for a fallback function'),
  payable: optionalFlag(),
});

const receiveEntry = z.looseObject({
  type: z.literal('receive'),
  stateMutability: stateMutability(['payable'], ' (a receive function always accepts ether)'),
});

const entryTypes = ABI_ENTRY_TYPES.join(', ');

const abiEntry = z.discriminatedUnion(
  'type',
  [functionEntry, constructorEntry, eventEntry, errorEntry, fallbackEntry, receiveEntry],
  {
    error: (issue) => {
      const input = issue.input;
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        return `each ABI entry must be a JSON object, got ${describeJsonType(input)}`;
      }
      const type = (input as { type?: unknown }).type;
      return type === undefined
        ? `is required: one of ${entryTypes}`
        : `must be one of ${entryTypes}, got ${quoteJson(type)}`;
    },
  },
);

const abiSchema = z.array(abiEntry, {
  error: (issue) => {
    const input = issue.input as Record<string, unknown> | null;
    if (input !== null && typeof input === 'object' && Array.isArray(input.abi)) {
      return 'an Ethereum ABI is a JSON array, and this is an object with an "abi" field (a build artifact): submit only the value of "abi"';
    }
    return `an Ethereum ABI must be a JSON array of entries, got ${describeJsonType(issue.input)}`;
  },
});
