// A Solana instruction's data decoded against a stored Anchor IDL, pure: the instruction whose
// discriminator starts the data (stated in the Anchor 0.30 format; derived before it, the first 8
// bytes of sha256("global:<snake_case name>"), as Anchor derives them), its accounts by the IDL's
// names, and its arguments read as Borsh. Values as a policy reads them: integers as bigint, public
// keys in base58, bytes as hex, options as the value or null, vectors and arrays as lists, structs
// as maps (a tuple struct as a list), an enum as a map of its variant's name to its fields.
//
// A small bounded Borsh reader over the IDL's own types rather than @coral-xyz/anchor's
// BorshInstructionCoder: that one pulls in the whole Anchor client (web3.js 1, bn.js, buffer-layout)
// to read a dozen type forms, and decodes without the bounds a policy input needs (nesting depth, the
// number of values, a length prefix larger than the data). What cannot be decoded (a float, a
// generic, a type the IDL does not define, data shorter than the arguments) is a problem, never an
// exception, and reading the instruction's parsed data is then an evaluation error.
import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import type { DecodeResult } from './decodeEthereumCall.ts';

/** A decoded argument: what `parsed_instruction_data.program_call_args['name']` reads. */
export type IdlValue = null | boolean | bigint | string | readonly IdlValue[] | { readonly [name: string]: IdlValue };

/** Nesting of decoded values (a defined type that contains itself through an option ends here). */
export const MAX_IDL_VALUE_DEPTH = 32;
/** Values decoded from one instruction at most (a vector of empty structs costs no bytes, but values). */
export const MAX_IDL_VALUES = 10_000;

export interface SolanaCall {
  readonly instructionName: string;
  /** The discriminator's bytes in hex (no 0x), as `parsed_instruction_data.discriminator` reads them. */
  readonly discriminator: string;
  /** The instruction's accounts by the IDL's names (groups flattened in order); one whose address the message does not hold is left out. */
  readonly namedAccounts: { readonly [name: string]: string };
  readonly args: { readonly [name: string]: IdlValue };
  readonly argNames: readonly string[];
}

interface IdlField {
  readonly name?: string;
  readonly type: unknown;
}

interface IdlInstruction {
  readonly name: string;
  readonly discriminator?: readonly number[];
  readonly accounts: readonly unknown[];
  readonly args: readonly IdlField[];
}

interface PreparedIdl {
  readonly instructions: readonly { readonly discriminator: Uint8Array; readonly instruction: IdlInstruction }[];
  readonly types: ReadonlyMap<string, unknown>;
}

const prepared = new WeakMap<object, PreparedIdl>();

/** Anchor's snake case of an instruction name (`initializeMint` → `initialize_mint`), for the derived discriminator. */
export function anchorSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** The discriminator Anchor derives for an instruction before its 0.30 format stated it. */
export function derivedDiscriminator(name: string): Uint8Array {
  return sha256(new TextEncoder().encode(`global:${anchorSnakeCase(name)}`)).slice(0, 8);
}

function prepare(idl: object): PreparedIdl {
  let ready = prepared.get(idl);
  if (ready) return ready;
  const record = idl as { instructions?: unknown; types?: unknown; accounts?: unknown };
  const instructions = (Array.isArray(record.instructions) ? record.instructions : []).flatMap((item: unknown) => {
    const instruction = item as IdlInstruction;
    if (typeof instruction?.name !== 'string' || !Array.isArray(instruction.args)) return [];
    const discriminator = Array.isArray(instruction.discriminator)
      ? Uint8Array.from(instruction.discriminator)
      : derivedDiscriminator(instruction.name);
    return [{ discriminator, instruction }];
  });
  // Defined types are declared under `types`; before Anchor 0.30 an account's struct, under `accounts`
  // with its `type`, may be an argument's type too.
  const types = new Map<string, unknown>();
  for (const item of [...(Array.isArray(record.types) ? record.types : []), ...(Array.isArray(record.accounts) ? record.accounts : [])]) {
    const named = item as { name?: unknown; type?: unknown };
    if (typeof named?.name === 'string' && named.type !== undefined && !types.has(named.name)) types.set(named.name, named.type);
  }
  ready = { instructions, types };
  prepared.set(idl, ready);
  return ready;
}

/** Decodes one instruction (`data`, the addresses of its accounts in order) against `idl`. */
export function decodeSolanaInstruction(idl: object, data: Uint8Array, accounts: readonly (string | undefined)[]): DecodeResult<SolanaCall> {
  const { instructions, types } = prepare(idl);
  const match = instructions.find(({ discriminator }) => discriminator.length <= data.length && discriminator.every((byte, i) => data[i] === byte));
  if (!match) return { ok: false, problem: 'no instruction of the IDL has a discriminator that starts the data' };
  const { instruction, discriminator } = match;
  const reader = new BorshReader(data, discriminator.length, types);
  const args: Record<string, IdlValue> = {};
  const argNames: string[] = [];
  try {
    instruction.args.forEach((arg, index) => {
      const name = arg.name ? arg.name : String(index);
      argNames.push(name);
      args[name] = reader.read(arg.type, 0);
    });
  } catch (error) {
    if (error instanceof Undecodable) return { ok: false, problem: `the data does not decode as ${instruction.name}'s arguments: ${error.message}` };
    throw error;
  }
  const namedAccounts: Record<string, string> = {};
  const names = flattenAccounts(instruction.accounts, 0);
  names.forEach((name, index) => {
    const address = accounts[index];
    if (address !== undefined && !Object.hasOwn(namedAccounts, name)) namedAccounts[name] = address;
  });
  return { ok: true, value: { instructionName: instruction.name, discriminator: Buffer.from(discriminator).toString('hex'), namedAccounts, args, argNames } };
}

/** The IDL's account names in the order the instruction takes them: a group's accounts in its place. */
function flattenAccounts(accounts: readonly unknown[], depth: number): string[] {
  if (depth > MAX_IDL_VALUE_DEPTH) return [];
  return accounts.flatMap((item) => {
    const account = item as { name?: unknown; accounts?: unknown };
    if (Array.isArray(account?.accounts)) return flattenAccounts(account.accounts, depth + 1);
    return typeof account?.name === 'string' ? [account.name] : [];
  });
}

class Undecodable extends Error {}

const INTEGER = /^([ui])(8|16|32|64|128|256)$/;

class BorshReader {
  private values = 0;
  constructor(
    private readonly data: Uint8Array,
    private offset: number,
    private readonly types: ReadonlyMap<string, unknown>,
  ) {}

  private take(length: number, what: string): Uint8Array {
    if (length > this.data.length - this.offset) throw new Undecodable(`the data ends inside ${what}`);
    const bytes = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return bytes;
  }

  private integer(signed: boolean, bits: number): bigint {
    const bytes = this.take(bits / 8, `a ${signed ? 'i' : 'u'}${bits}`);
    let value = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
    return signed ? BigInt.asIntN(bits, value) : value;
  }

  private length(what: string): number {
    const length = Number(this.integer(false, 32));
    // Every item takes a byte at least, except items of no size: those are bounded by MAX_IDL_VALUES.
    if (length > this.data.length) throw new Undecodable(`the length of ${what} (${length}) is larger than the data`);
    return length;
  }

  read(type: unknown, depth: number): IdlValue {
    if (depth > MAX_IDL_VALUE_DEPTH) throw new Undecodable(`values nest more than ${MAX_IDL_VALUE_DEPTH} levels deep`);
    if (++this.values > MAX_IDL_VALUES) throw new Undecodable(`the arguments hold more than ${MAX_IDL_VALUES} values`);
    if (typeof type === 'string') return this.primitive(type);
    if (typeof type !== 'object' || type === null) throw new Undecodable('an argument has no type');
    const form = type as Record<string, unknown>;
    if ('vec' in form) {
      const length = this.length('a vector');
      const items: IdlValue[] = [];
      for (let i = 0; i < length; i++) items.push(this.read(form.vec, depth + 1));
      return items;
    }
    if ('option' in form || 'coption' in form) {
      const coption = 'coption' in form;
      const tag = coption ? this.integer(false, 32) : this.integer(false, 8);
      if (tag === 0n) return null;
      if (tag !== 1n) throw new Undecodable(`an option's tag is ${tag}, neither 0 nor 1`);
      return this.read(coption ? form.coption : form.option, depth + 1);
    }
    if ('array' in form) {
      const [inner, length] = (Array.isArray(form.array) ? form.array : []) as [unknown, unknown];
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) throw new Undecodable('an array of generic or unknown length');
      if (length > this.data.length && length > MAX_IDL_VALUES) throw new Undecodable(`an array of ${length} items is larger than the data`);
      const items: IdlValue[] = [];
      for (let i = 0; i < length; i++) items.push(this.read(inner, depth + 1));
      return items;
    }
    if ('defined' in form) {
      const defined = form.defined;
      const name = typeof defined === 'string' ? defined : (defined as { name?: unknown })?.name;
      if (typeof name !== 'string') throw new Undecodable('a defined type without a name');
      if (typeof defined === 'object' && Array.isArray((defined as { generics?: unknown }).generics) && (defined as { generics: unknown[] }).generics.length > 0) {
        throw new Undecodable(`the generic type ${name} is not decoded`);
      }
      if (!this.types.has(name)) throw new Undecodable(`the type ${name} is not defined in the IDL`);
      return this.definedType(name, this.types.get(name), depth + 1);
    }
    throw new Undecodable(`the type form ${Object.keys(form)[0] ?? '{}'} is not decoded`);
  }

  private primitive(type: string): IdlValue {
    const integer = INTEGER.exec(type);
    if (integer) return this.integer(integer[1] === 'i', Number(integer[2]));
    switch (type) {
      case 'bool': {
        const byte = this.take(1, 'a bool')[0]!;
        if (byte > 1) throw new Undecodable(`a bool's byte is ${byte}, neither 0 nor 1`);
        return byte === 1;
      }
      case 'publicKey':
      case 'pubkey':
        return base58.encode(this.take(32, 'a public key'));
      case 'string': {
        const bytes = this.take(this.length('a string'), 'a string');
        try {
          return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          throw new Undecodable('a string is not UTF-8');
        }
      }
      case 'bytes':
        return Buffer.from(this.take(this.length('bytes'), 'bytes')).toString('hex');
      case 'f32':
      case 'f64':
        throw new Undecodable(`${type} has no exact value in the policy language, which has integers only`);
      default:
        throw new Undecodable(`the type ${type} is not decoded`);
    }
  }

  private definedType(name: string, definition: unknown, depth: number): IdlValue {
    const kind = (definition as { kind?: unknown })?.kind;
    if (kind === 'struct') return this.fields((definition as { fields?: unknown }).fields, depth);
    if (kind === 'type') return this.read((definition as { alias?: unknown }).alias, depth);
    if (kind === 'enum') {
      const variants = (definition as { variants?: unknown }).variants;
      if (!Array.isArray(variants)) throw new Undecodable(`the enum ${name} has no variants`);
      const index = Number(this.integer(false, 8));
      const variant = variants[index] as { name?: unknown; fields?: unknown } | undefined;
      if (variant === undefined || typeof variant.name !== 'string') throw new Undecodable(`the enum ${name} has no variant ${index}`);
      return { [variant.name]: this.fields(variant.fields, depth) };
    }
    throw new Undecodable(`the type ${name} is neither a struct, an enum nor an alias`);
  }

  /** Named fields as a map, a tuple's fields (types alone) as a list, none as an empty map. */
  private fields(fields: unknown, depth: number): IdlValue {
    if (!Array.isArray(fields) || fields.length === 0) return {};
    const named = fields.every((field) => typeof field === 'object' && field !== null && typeof (field as IdlField).name === 'string' && 'type' in field);
    if (!named) return fields.map((field) => this.read(field, depth + 1));
    const map: Record<string, IdlValue> = {};
    for (const field of fields as IdlField[]) map[field.name!] = this.read(field.type, depth + 1);
    return map;
  }
}
