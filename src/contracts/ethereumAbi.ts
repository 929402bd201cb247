// Rules for an Ethereum JSON ABI (the JSON form of the Solidity ABI specification): its entries,
// names, parameter types and flags. Pure functions; problems name the JSON path they are about.
//
// One hand-written pass over the parsed ABI, iterative over tuple nesting: a 400 KiB ABI is checked in
// about a millisecond, where a schema library building its result object by object took ten times
// as long. (Not abitype's `Abi` schema either: it reports every bad entry as a bare "Invalid input"
// and rejects fixed<M>x<N> while accepting uint256[0].)
import { describeJsonType, quoteJson } from './schemaMessages.ts';

export const ABI_ENTRY_TYPES = ['function', 'constructor', 'event', 'error', 'fallback', 'receive'] as const;
type EntryType = (typeof ABI_ENTRY_TYPES)[number];

/** Tuples nest through `components`; deeper nesting is refused with its own message. */
export const MAX_TUPLE_DEPTH = 32;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const NAME_RULE = 'letters, digits, _ and $, not starting with a digit';
const TYPE_EXAMPLES =
  'an elementary type (uint256, int8, address, bool, string, bytes, bytes32, …), tuple with components, or an array of one such as uint256[] or address[3]';
const ENTRY_TYPES = ABI_ENTRY_TYPES.join(', ');

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

// An ABI repeats a handful of types thousands of times: each is judged once per ABI.
function typeJudge(): (type: string) => string | undefined {
  const judged = new Map<string, string | undefined>();
  return (type) => {
    if (judged.has(type)) return judged.get(type);
    const problem = solidityTypeProblem(type);
    if (judged.size < 1024) judged.set(type, problem);
    return problem;
  };
}

const isTupleType = (type: string) => /^tuple(\[\d*\])*$/.test(type);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** "a, b or c" */
const either = (values: readonly string[]) => values.join(', ').replace(/, ([^,]*)$/, ' or $1');

interface EntryRules {
  /** `name` is required and must be an identifier (function, event, error). */
  named?: boolean;
  /** Allowed parameter lists. */
  inputs?: boolean;
  outputs?: boolean;
  /** Allowed stateMutability values, and what the message adds after them. */
  stateMutability?: { allowed: readonly string[]; why?: string };
  /** Boolean flags the entry may carry. */
  flags: readonly string[];
}

// Keys beyond these (Vyper's gas, tooling metadata) are kept, not judged. inputs/outputs may be
// absent (older tooling omits empty lists); `constant` and `payable` are the pre-0.5 spellings of
// stateMutability.
const ENTRY_RULES: Record<EntryType, EntryRules> = {
  function: { named: true, inputs: true, outputs: true, stateMutability: { allowed: ['pure', 'view', 'nonpayable', 'payable'] }, flags: ['constant', 'payable'] },
  constructor: { inputs: true, stateMutability: { allowed: ['nonpayable', 'payable'], why: ' for a constructor' }, flags: ['payable'] },
  event: { named: true, inputs: true, flags: ['anonymous'] },
  error: { named: true, inputs: true, flags: [] },
  fallback: { stateMutability: { allowed: ['nonpayable', 'payable'], why: ' for a fallback function' }, flags: ['payable'] },
  receive: { stateMutability: { allowed: ['payable'], why: ' (a receive function always accepts ether)' }, flags: [] },
};

/** Problems with a JSON ABI, each as `path: what is wrong`; empty when the ABI is valid. */
export function ethereumAbiProblems(value: unknown): string[] {
  if (!Array.isArray(value)) {
    if (isObject(value) && Array.isArray(value.abi)) {
      return ['an Ethereum ABI is a JSON array, and this is an object with an "abi" field (a build artifact): submit only the value of "abi"'];
    }
    return [`an Ethereum ABI must be a JSON array of entries, got ${describeJsonType(value)}`];
  }
  const problems: string[] = [];
  const judgeType = typeJudge();
  for (let i = 0; i < value.length; i++) {
    const before = problems.length;
    const entry: unknown = value[i];
    const at = `[${i}]`;
    if (!isObject(entry)) {
      problems.push(`${at}: each ABI entry must be a JSON object, got ${describeJsonType(entry)}`);
      continue;
    }
    const type = entry.type;
    if (type === undefined) {
      problems.push(`${at}.type: is required: one of ${ENTRY_TYPES}`);
      continue;
    }
    if (typeof type !== 'string' || !(ABI_ENTRY_TYPES as readonly string[]).includes(type)) {
      problems.push(`${at}.type: must be one of ${ENTRY_TYPES}, got ${quoteJson(type)}`);
      continue;
    }
    const rules = ENTRY_RULES[type as EntryType];
    if (rules.named) nameProblem(entry.name, `${at}.name`, type, problems);
    if (rules.inputs) parameterListProblems(entry.inputs, `${at}.inputs`, type === 'event', judgeType, problems);
    if (rules.outputs) parameterListProblems(entry.outputs, `${at}.outputs`, false, judgeType, problems);
    if (rules.stateMutability && entry.stateMutability !== undefined) {
      const { allowed, why = '' } = rules.stateMutability;
      if (typeof entry.stateMutability !== 'string' || !allowed.includes(entry.stateMutability)) {
        problems.push(`${at}.stateMutability: must be ${either(allowed)}${why}, got ${quoteJson(entry.stateMutability)}`);
      }
    }
    for (const flag of rules.flags) {
      const set = entry[flag];
      if (set !== undefined && typeof set !== 'boolean') problems.push(`${at}.${flag}: must be true or false, got ${describeJsonType(set)}`);
    }
    // Topics: the signature takes one of four, unless the event is anonymous. Judged on a sound entry only.
    if (type === 'event' && problems.length === before && Array.isArray(entry.inputs)) {
      const limit = entry.anonymous ? 4 : 3;
      const indexed = entry.inputs.filter((input) => isObject(input) && input.indexed === true).length;
      if (indexed > limit) {
        problems.push(
          `${at}.inputs: has ${indexed} indexed inputs, but an event can index at most ${limit}${entry.anonymous ? ' (anonymous)' : ' (4 if anonymous)'}`,
        );
      }
    }
  }
  return problems;
}

function nameProblem(name: unknown, at: string, entryType: string, problems: string[]): void {
  if (name === undefined) problems.push(`${at}: is required: the ${entryType}'s name`);
  else if (typeof name !== 'string') problems.push(`${at}: must be a string, got ${describeJsonType(name)}`);
  else if (!IDENTIFIER.test(name)) problems.push(`${at}: ${quoteJson(name)} is not a valid ${entryType} name (${NAME_RULE})`);
}

/**
 * Checks a list of parameters and, through `components`, every tuple inside it: an explicit work
 * list instead of recursion, so nesting depth costs no stack.
 */
function parameterListProblems(
  list: unknown,
  at: string,
  indexedAllowed: boolean,
  judgeType: (type: string) => string | undefined,
  problems: string[],
): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    problems.push(`${at}: must be an array of parameters, got ${describeJsonType(list)}`);
    return;
  }
  const work: Array<{ list: unknown[]; at: string; depth: number; indexedAllowed: boolean }> = [{ list, at, depth: 0, indexedAllowed }];
  while (work.length > 0) {
    const { list: parameters, at: listAt, depth, indexedAllowed: indexable } = work.shift()!;
    for (let i = 0; i < parameters.length; i++) {
      const parameter = parameters[i];
      const p = `${listAt}[${i}]`;
      if (!isObject(parameter)) {
        problems.push(`${p}: each parameter must be a JSON object with a type, got ${describeJsonType(parameter)}`);
        continue;
      }
      const { name, type, internalType, components, indexed } = parameter;
      if (name !== undefined && typeof name !== 'string') {
        problems.push(`${p}.name: must be a string (empty for an unnamed parameter), got ${describeJsonType(name)}`);
      }
      if (type === undefined) problems.push(`${p}.type: is required: the Solidity type of the parameter, e.g. uint256`);
      else if (typeof type !== 'string') problems.push(`${p}.type: must be a string, got ${describeJsonType(type)}`);
      if (internalType !== undefined && typeof internalType !== 'string') {
        problems.push(`${p}.internalType: must be a string, got ${describeJsonType(internalType)}`);
      }
      let nested = false;
      if (components !== undefined) {
        if (depth >= MAX_TUPLE_DEPTH) problems.push(`${p}.components: tuples may be nested at most ${MAX_TUPLE_DEPTH} levels deep`);
        else if (!Array.isArray(components)) problems.push(`${p}.components: must be an array of parameters, got ${describeJsonType(components)}`);
        else nested = true;
      }
      if (indexed !== undefined) {
        if (!indexable) problems.push(`${p}.indexed: is only allowed on the inputs of an event entry; remove it`);
        else if (typeof indexed !== 'boolean') problems.push(`${p}.indexed: must be true or false, got ${describeJsonType(indexed)}`);
      }
      if (typeof name === 'string' && name !== '' && !IDENTIFIER.test(name)) {
        problems.push(`${p}.name: ${quoteJson(name)} is not a valid parameter name (${NAME_RULE})`);
      }
      if (typeof type === 'string') {
        const problem = judgeType(type);
        if (problem) {
          problems.push(`${p}.type: ${problem}`);
        } else if (isTupleType(type) && components === undefined) {
          problems.push(`${p}.components: is required when type is ${type}: the tuple's parameters`);
        } else if (!isTupleType(type) && components !== undefined && depth < MAX_TUPLE_DEPTH) {
          problems.push(`${p}.components: is only allowed when type is a tuple (tuple, tuple[] or tuple[k]), not ${type}`);
        }
      }
      if (nested) work.push({ list: components as unknown[], at: `${p}.components`, depth: depth + 1, indexedAllowed: false });
    }
  }
}
