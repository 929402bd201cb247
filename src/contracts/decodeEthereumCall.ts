// A contract call's data decoded against a stored Ethereum ABI, pure: the function whose selector
// starts the data (ox's AbiFunction), its arguments by name. Values as a policy reads them: integers
// as bigint (exact to 2^256), addresses in lowercase, bytes as 0x hex, bools, strings, arrays as lists
// and tuples as maps by component name. What cannot be decoded is a problem, never an exception.
import * as AbiFunction from 'ox/AbiFunction';
import * as AbiParameters from 'ox/AbiParameters';

/** A decoded argument: what a condition's `contract_call_args['name']` reads. */
export type DecodedValue = boolean | bigint | string | readonly DecodedValue[] | { readonly [name: string]: DecodedValue };

/** Values decoded from one call at most (ox bounds its own reads; this bounds what we build from them). */
export const MAX_DECODED_VALUES = 10_000;

export interface EthereumCall {
  readonly functionName: string;
  /** The selector, `0x` and 8 hex digits, as `eth.tx.function_signature` reads it. */
  readonly functionSignature: string;
  /** Arguments by their ABI name; an unnamed one by its position ('0', '1', …). */
  readonly args: { readonly [name: string]: DecodedValue };
  /** The ABI's argument names in order (the readable summary lists them so). */
  readonly argNames: readonly string[];
}

export type DecodeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

interface AbiParameter {
  readonly name?: string;
  readonly type: string;
  readonly components?: readonly AbiParameter[];
}

type Selectors = ReadonlyMap<string, AbiFunction.AbiFunction>;
const selectorCache = new WeakMap<object, Selectors>();

/** The ABI's functions by selector, computed once per ABI array (an interface is parsed once and kept). */
function selectorsOf(abi: readonly unknown[]): Selectors {
  let selectors = selectorCache.get(abi);
  if (selectors) return selectors;
  const map = new Map<string, AbiFunction.AbiFunction>();
  for (const entry of abi) {
    if (typeof entry !== 'object' || entry === null || (entry as { type?: unknown }).type !== 'function') continue;
    try {
      // Older tooling omits empty parameter lists: they are empty, not unknown.
      const given = entry as Partial<AbiFunction.AbiFunction>;
      const fn = { ...given, inputs: given.inputs ?? [], outputs: given.outputs ?? [] } as AbiFunction.AbiFunction;
      const selector = AbiFunction.getSelector(fn).toLowerCase();
      // Two entries with one selector (overloads cannot collide in a valid ABI): the first one wins.
      if (!map.has(selector)) map.set(selector, fn);
    } catch {
      // An entry ox cannot format has no selector: calls to it are not recognised.
    }
  }
  selectors = map;
  selectorCache.set(abi, selectors);
  return selectors;
}

/** Decodes `data` (0x hex) as a call of one of `abi`'s functions. */
export function decodeEthereumCall(abi: readonly unknown[], data: string): DecodeResult<EthereumCall> {
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(data)) return { ok: false, problem: 'the call data is not 0x hex' };
  if (data.length < 10) return { ok: false, problem: 'the call data is shorter than a 4-byte function selector' };
  const selector = data.slice(0, 10).toLowerCase();
  const fn = selectorsOf(abi).get(selector);
  if (!fn) return { ok: false, problem: `no function of the ABI has the selector ${selector}` };
  const inputs = fn.inputs as readonly AbiParameter[];
  let decoded: readonly unknown[];
  try {
    decoded = AbiParameters.decode(fn.inputs, `0x${data.slice(10)}`) as readonly unknown[];
  } catch (error) {
    return { ok: false, problem: `the call data does not decode as ${fn.name}'s arguments: ${firstLine(error)}` };
  }
  const budget = { left: MAX_DECODED_VALUES };
  const args: Record<string, DecodedValue> = {};
  const argNames: string[] = [];
  try {
    inputs.forEach((input, index) => {
      const name = input.name ? input.name : String(index);
      argNames.push(name);
      args[name] = convert(input, input.type, decoded[index], budget);
    });
  } catch (error) {
    if (error instanceof TooLarge) return { ok: false, problem: `the call's arguments hold more than ${MAX_DECODED_VALUES} values` };
    throw error;
  }
  return { ok: true, value: { functionName: fn.name, functionSignature: selector, args, argNames } };
}

class TooLarge extends Error {}

function convert(parameter: AbiParameter, type: string, value: unknown, budget: { left: number }): DecodedValue {
  if (--budget.left < 0) throw new TooLarge();
  const array = /^(.*)\[\d*\]$/.exec(type);
  if (array) return (value as readonly unknown[]).map((item) => convert(parameter, array[1]!, item, budget));
  if (type === 'tuple') {
    const components = parameter.components ?? [];
    const map: Record<string, DecodedValue> = {};
    components.forEach((component, index) => {
      const name = component.name ? component.name : String(index);
      const item = Array.isArray(value) ? value[index] : (value as Record<string, unknown>)[component.name ? component.name : index];
      map[name] = convert(component, component.type, item, budget);
    });
    return map;
  }
  if (typeof value === 'bigint' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return BigInt(value);
  if (typeof value === 'string') return type === 'string' ? value : value.toLowerCase();
  throw new Error(`unexpected decoded value for ${type}`);
}

function firstLine(error: unknown): string {
  const value = error as { shortMessage?: string; message?: string };
  return String(value?.shortMessage ?? value?.message ?? error).split('\n')[0]!.slice(0, 200);
}
