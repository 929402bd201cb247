// EIP-712 typed data as a condition reads it (`eth.eip_712`), pure: primary_type, the domain under
// the ecosystem's names (name, version, chain_id, verifying_contract; a field the domain lacks, or
// that types.EIP712Domain leaves out of what is signed, is left out, so reading it is an evaluation
// error), and the message read through its types: integers
// exact, addresses in lowercase, bytes as lowercase 0x hex, structs as maps, arrays as lists.
import * as TypedData from 'ox/TypedData';
import type { DecodeResult } from '../contracts/decodeEthereumCall.ts';
import { normalizeInt, type PolicyStruct, type PolicyValue } from '../policy/index.ts';

/** Values read from one message at most (the payload is bounded too: keys/rawPayload.ts). */
export const MAX_TYPED_DATA_VALUES = 10_000;
const MAX_DEPTH = 16;

export interface TypedDataView {
  /** What `eth.eip_712` is bound to. */
  readonly eip712: PolicyStruct;
  readonly primaryType: string;
  readonly domain: PolicyStruct;
  readonly message: PolicyStruct;
}

type Types = Record<string, readonly { name: string; type: string }[]>;

class Unreadable extends Error {}

/** The view of typed data `{types, primaryType, domain, message}` (parsed JSON, as sign_raw_payload's PAYLOAD_ENCODING_EIP712 carries it). */
export function typedDataView(typedData: unknown): DecodeResult<TypedDataView> {
  if (typeof typedData !== 'object' || typedData === null) return { ok: false, problem: 'typed data is a JSON object {types, primaryType, domain, message}' };
  const { types, primaryType, domain = {}, message = {} } = typedData as Record<string, unknown>;
  if (typeof types !== 'object' || types === null || typeof primaryType !== 'string') {
    return { ok: false, problem: 'typed data needs a types object and a primaryType string' };
  }
  try {
    if (primaryType !== 'EIP712Domain') TypedData.validate({ types, primaryType, domain, message } as never);
  } catch (error) {
    return { ok: false, problem: `not valid EIP-712 typed data: ${String((error as Error)?.message ?? error).split('\n')[0]!.slice(0, 200)}` };
  }
  const budget = { left: MAX_TYPED_DATA_VALUES };
  try {
    const domainFields = readDomain(domain as Record<string, unknown>, signedDomainFields(types as Types));
    const messageValue = primaryType === 'EIP712Domain' ? {} : readStruct(types as Types, primaryType, message, budget, 0);
    const eip712: PolicyStruct = { primary_type: primaryType, domain: domainFields, message: messageValue };
    return { ok: true, value: { eip712, primaryType, domain: domainFields, message: messageValue } };
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, problem: error.message };
    throw error;
  }
}

/**
 * The domain's fields the signature covers: those types.EIP712Domain declares, when it is given (a
 * field of the domain object it leaves out is not hashed, so a condition must not read it); without
 * it, every field, as the domain's type then follows from them.
 */
function signedDomainFields(types: Types): ReadonlySet<string> | undefined {
  const declared = types.EIP712Domain;
  return Array.isArray(declared) ? new Set(declared.map((field) => field.name)) : undefined;
}

function readDomain(domain: Record<string, unknown>, signed: ReadonlySet<string> | undefined): PolicyStruct {
  const fields: Record<string, PolicyValue> = {};
  const covered = (name: string) => domain[name] !== undefined && (signed === undefined || signed.has(name));
  if (covered('name') && typeof domain.name === 'string') fields.name = domain.name;
  if (covered('version') && typeof domain.version === 'string') fields.version = domain.version;
  if (covered('chainId')) fields.chain_id = integer(domain.chainId, 'domain.chainId');
  if (covered('verifyingContract') && typeof domain.verifyingContract === 'string') fields.verifying_contract = domain.verifyingContract.toLowerCase();
  return fields;
}

function readStruct(types: Types, name: string, value: unknown, budget: { left: number }, depth: number): PolicyStruct {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Unreadable(`a ${name} must be an object`);
  const struct: Record<string, PolicyValue> = {};
  for (const field of types[name] ?? []) struct[field.name] = read(types, field.type, (value as Record<string, unknown>)[field.name], budget, depth + 1);
  return struct;
}

function read(types: Types, type: string, value: unknown, budget: { left: number }, depth: number): PolicyValue {
  if (--budget.left < 0) throw new Unreadable(`the message holds more than ${MAX_TYPED_DATA_VALUES} values`);
  if (depth > MAX_DEPTH) throw new Unreadable(`the message nests more than ${MAX_DEPTH} levels deep`);
  const array = /^(.*)\[\d*\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) throw new Unreadable(`a ${type} must be an array`);
    return value.map((item) => read(types, array[1]!, item, budget, depth + 1));
  }
  if (Object.hasOwn(types, type)) return readStruct(types, type, value, budget, depth);
  if (/^u?int\d*$/.test(type)) return integer(value, type);
  if (type === 'address' || /^bytes\d*$/.test(type)) {
    if (typeof value !== 'string') throw new Unreadable(`a ${type} must be a 0x hex string`);
    return value.toLowerCase();
  }
  if (type === 'bool' || type === 'string') return value as boolean | string;
  throw new Unreadable(`the type ${type} is not read`);
}

function integer(value: unknown, what: string): PolicyValue {
  try {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    if (typeof value === 'bigint') return normalizeInt(value);
    if (typeof value === 'string' && /^(?:-?\d{1,78}|0x[0-9a-fA-F]{1,64})$/.test(value)) return normalizeInt(BigInt(value));
  } catch {
    // falls through
  }
  throw new Unreadable(`${what} is not an exact integer`);
}
