// sign_raw_payload's signing, pure: the payload read per its encoding, hashed per hashFunction, signed
// with the account's key; the answer as the wire has it, {r, s, v} in hex without 0x.
//
// secp256k1: r and s 32 bytes each (64 hex digits), s low (≤ n/2, as Ethereum requires), v "00" or
// "01", the recovery id (@turnkey/viem reads v as yParity; @turnkey/ethers adds 27). ed25519: r and s
// the signature's two halves, v "00" (@turnkey/core's splitSignature and @turnkey/solana join r + s).
//
// Encodings: PAYLOAD_ENCODING_HEXADECIMAL (hex digits, 0x optional, as @turnkey/viem sends a hash),
// PAYLOAD_ENCODING_TEXT_UTF8 (the text's UTF-8 bytes), PAYLOAD_ENCODING_EIP712 (typed data JSON, as
// viem's serializeTypedData or ethers' TypedDataEncoder.getPayload make it; the EIP-712 digest is
// signed), PAYLOAD_ENCODING_EIP7702_AUTHORIZATION (JSON {address, chainId, nonce}, as @turnkey/viem's
// signAuthorization sends it; keccak256(0x05 ‖ rlp([chainId, address, nonce])) is signed). The last two
// are digests already: their hashFunction is HASH_FUNCTION_NO_OP, as both libraries send.
//
// hashFunction: HASH_FUNCTION_KECCAK256, HASH_FUNCTION_SHA256, HASH_FUNCTION_NO_OP (the payload is the
// 32-byte digest) on secp256k1; HASH_FUNCTION_NOT_APPLICABLE on ed25519, which signs the message itself.
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import * as Authorization from 'ox/Authorization';
import * as TypedData from 'ox/TypedData';
import { jsonDocumentProblem } from '../wire/jsonDocument.ts';
import type { DerivationCurve } from './derivation.ts';
import { ParameterRejected } from './parameterRejected.ts';

export const PAYLOAD_ENCODINGS = [
  'PAYLOAD_ENCODING_HEXADECIMAL',
  'PAYLOAD_ENCODING_TEXT_UTF8',
  'PAYLOAD_ENCODING_EIP712',
  'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
] as const;
export type PayloadEncoding = (typeof PAYLOAD_ENCODINGS)[number];

export const HASH_FUNCTIONS = ['HASH_FUNCTION_KECCAK256', 'HASH_FUNCTION_SHA256', 'HASH_FUNCTION_NO_OP', 'HASH_FUNCTION_NOT_APPLICABLE'] as const;
export type HashFunction = (typeof HASH_FUNCTIONS)[number];

/** The longest payload, in characters of `parameters.payload` (hex digits count two to a byte): 64 KiB of text. */
export const MAX_PAYLOAD_CHARACTERS = 65_536;
/** Nesting of an EIP-712 payload's JSON (objects and arrays); a struct of structs of arrays needs few. */
export const MAX_TYPED_DATA_DEPTH = 16;

export interface RawSignature {
  r: string;
  s: string;
  v: string;
}

export interface RawPayloadRequest {
  curve: DerivationCurve;
  /** 32 bytes; not kept, not zeroed (the caller owns it). */
  privateKey: Uint8Array;
  payload: unknown;
  encoding: unknown;
  hashFunction: unknown;
}

const FIELD = { payload: 'parameters.payload', encoding: 'parameters.encoding', hashFunction: 'parameters.hashFunction' } as const;
const HEX = /^(0x)?((?:[0-9a-fA-F]{2})*)$/;

/** Signs one payload; a ParameterRejected naming parameters.payload, .encoding or .hashFunction when it cannot. */
export function signRawPayload(request: RawPayloadRequest): RawSignature {
  const signed = bytesToSign(request);
  return request.curve === 'CURVE_ED25519' ? signEd25519(request.privateKey, signed) : signSecp256k1(request.privateKey, signed);
}

/**
 * What a key of `curve` signs for this payload, encoding and hash function: the 32-byte digest
 * (secp256k1) or the message itself (ed25519). A ParameterRejected naming parameters.payload,
 * .encoding or .hashFunction when such a key cannot sign it: the check signing makes, without a key
 * (a signing activity's prepare step makes it before the activity is decided).
 */
export function bytesToSign(request: Omit<RawPayloadRequest, 'privateKey'>): Uint8Array {
  const { curve, payload, encoding, hashFunction } = request;
  if (typeof encoding !== 'string' || !(PAYLOAD_ENCODINGS as readonly string[]).includes(encoding)) {
    throw new ParameterRejected(FIELD.encoding, `must be one of ${PAYLOAD_ENCODINGS.join(', ')}`);
  }
  if (typeof hashFunction !== 'string' || !(HASH_FUNCTIONS as readonly string[]).includes(hashFunction)) {
    throw new ParameterRejected(FIELD.hashFunction, `must be one of ${HASH_FUNCTIONS.join(', ')}`);
  }
  if (typeof payload !== 'string') throw new ParameterRejected(FIELD.payload, 'must be a string');
  if (payload.length > MAX_PAYLOAD_CHARACTERS) {
    throw new ParameterRejected(FIELD.payload, `is ${payload.length} characters long; the limit is ${MAX_PAYLOAD_CHARACTERS}`);
  }
  if (curve === 'CURVE_ED25519') return ed25519Message(payload, encoding as PayloadEncoding, hashFunction as HashFunction);
  return payloadDigest(payload, encoding as PayloadEncoding, hashFunction as HashFunction);
}

/** The 32 bytes a secp256k1 key signs for this payload, encoding and hash function. */
export function payloadDigest(payload: string, encoding: PayloadEncoding, hashFunction: HashFunction): Uint8Array {
  if (encoding === 'PAYLOAD_ENCODING_EIP712' || encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION') {
    if (hashFunction !== 'HASH_FUNCTION_NO_OP') {
      throw new ParameterRejected(FIELD.hashFunction, `must be HASH_FUNCTION_NO_OP with ${encoding}: the payload is hashed as its standard says`);
    }
    return encoding === 'PAYLOAD_ENCODING_EIP712' ? typedDataDigest(payload) : authorizationDigest(payload);
  }
  const bytes = payloadBytes(payload, encoding);
  switch (hashFunction) {
    case 'HASH_FUNCTION_KECCAK256':
      return keccak_256(bytes);
    case 'HASH_FUNCTION_SHA256':
      return sha256(bytes);
    case 'HASH_FUNCTION_NO_OP':
      if (bytes.length !== 32) {
        throw new ParameterRejected(FIELD.payload, `is ${bytes.length} bytes; with HASH_FUNCTION_NO_OP it is the 32-byte digest to sign (64 hex digits)`);
      }
      return bytes;
    default:
      throw new ParameterRejected(FIELD.hashFunction, 'HASH_FUNCTION_NOT_APPLICABLE is for ed25519 keys; a secp256k1 key needs HASH_FUNCTION_KECCAK256, HASH_FUNCTION_SHA256 or HASH_FUNCTION_NO_OP');
  }
}

function payloadBytes(payload: string, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' | 'PAYLOAD_ENCODING_TEXT_UTF8'): Uint8Array {
  if (encoding === 'PAYLOAD_ENCODING_TEXT_UTF8') {
    if (!payload.isWellFormed()) throw new ParameterRejected(FIELD.payload, 'contains an unpaired UTF-16 surrogate, which has no UTF-8 form');
    return new TextEncoder().encode(payload);
  }
  const match = HEX.exec(payload);
  if (!match) throw new ParameterRejected(FIELD.payload, 'must be an even number of hexadecimal digits, 0x optional, with PAYLOAD_ENCODING_HEXADECIMAL');
  return Buffer.from(match[2]!, 'hex');
}

function parseJsonPayload(payload: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch (error) {
    throw new ParameterRejected(FIELD.payload, `is not JSON (${(error as Error).message}); ${what}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ParameterRejected(FIELD.payload, `must be a JSON object; ${what}`);
  const problem = jsonDocumentProblem(value, MAX_TYPED_DATA_DEPTH, FIELD.payload);
  if (problem) throw new ParameterRejected(problem.field, problem.description);
  return value as Record<string, unknown>;
}

const TYPED_DATA = 'PAYLOAD_ENCODING_EIP712 takes the typed data {types, primaryType, domain, message}';

/**
 * EIP-712: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)), by ox. Without
 * types.EIP712Domain the domain's type follows from its fields, as viem and ethers hash it.
 */
function typedDataDigest(payload: string): Uint8Array {
  const { types, primaryType, domain, message } = parseJsonPayload(payload, TYPED_DATA);
  if (typeof types !== 'object' || types === null || Array.isArray(types)) throw new ParameterRejected(FIELD.payload, `has no "types" object; ${TYPED_DATA}`);
  if (typeof primaryType !== 'string') throw new ParameterRejected(FIELD.payload, `has no "primaryType" string; ${TYPED_DATA}`);
  try {
    const value = {
      types: types as TypedData.TypedData,
      primaryType,
      domain: (domain ?? {}) as TypedData.Domain,
      message: (message ?? {}) as Record<string, unknown>,
    };
    if (primaryType !== 'EIP712Domain') TypedData.validate(value as never);
    return Buffer.from(TypedData.getSignPayload(value as never).slice(2), 'hex');
  } catch (error) {
    throw new ParameterRejected(FIELD.payload, `is not valid EIP-712 typed data: ${firstLine(error)}`);
  }
}

const AUTHORIZATION = 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION takes {"address": "0x…", "chainId": 1, "nonce": 0}';

/** EIP-7702: keccak256(0x05 ‖ rlp([chainId, address, nonce])), by ox. chainId 0 is valid on every chain. */
function authorizationDigest(payload: string): Uint8Array {
  const { address, chainId, nonce } = parseJsonPayload(payload, AUTHORIZATION);
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
    throw new ParameterRejected(FIELD.payload, `"address" must be 0x and 40 hex digits; ${AUTHORIZATION}`);
  }
  const chain = whole(chainId, 'chainId', 2n ** 53n);
  const count = whole(nonce, 'nonce', 2n ** 64n);
  const digest = Authorization.getSignPayload({ address: address as `0x${string}`, chainId: Number(chain), nonce: count });
  return Buffer.from(digest.slice(2), 'hex');
}

/** A whole number ≥ 0 below `limit`, as a JSON number or a decimal or 0x string (JSON cannot hold a bigint). */
function whole(value: unknown, name: string, limit: bigint): bigint {
  const ok = (n: bigint) => n >= 0n && n < limit;
  if (typeof value === 'number' && Number.isSafeInteger(value) && ok(BigInt(value))) return BigInt(value);
  if (typeof value === 'string' && /^(0|[1-9][0-9]{0,19}|0x[0-9a-fA-F]{1,16})$/.test(value) && ok(BigInt(value))) return BigInt(value);
  throw new ParameterRejected(FIELD.payload, `"${name}" must be a whole number from 0 below ${limit}; ${AUTHORIZATION}`);
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]!.slice(0, 200);
}

/** ECDSA over the 32-byte digest: deterministic (RFC 6979), s low, v the recovery id. */
export function signSecp256k1(privateKey: Uint8Array, digest: Uint8Array): RawSignature {
  const signature = secp256k1.sign(digest, privateKey, { lowS: true });
  return {
    r: signature.r.toString(16).padStart(64, '0'),
    s: signature.s.toString(16).padStart(64, '0'),
    v: signature.recovery === 1 ? '01' : '00',
  };
}

/** The message an ed25519 key signs: the payload's bytes, as Ed25519 hashes the message itself. */
function ed25519Message(payload: string, encoding: PayloadEncoding, hashFunction: HashFunction): Uint8Array {
  if (encoding !== 'PAYLOAD_ENCODING_HEXADECIMAL' && encoding !== 'PAYLOAD_ENCODING_TEXT_UTF8') {
    throw new ParameterRejected(FIELD.encoding, `${encoding} is for secp256k1 (Ethereum) keys; an ed25519 key signs PAYLOAD_ENCODING_HEXADECIMAL or PAYLOAD_ENCODING_TEXT_UTF8`);
  }
  if (hashFunction !== 'HASH_FUNCTION_NOT_APPLICABLE') {
    throw new ParameterRejected(FIELD.hashFunction, 'must be HASH_FUNCTION_NOT_APPLICABLE for an ed25519 key: Ed25519 signs the message itself, not a digest');
  }
  return payloadBytes(payload, encoding);
}

function signEd25519(privateKey: Uint8Array, message: Uint8Array): RawSignature {
  const signature = Buffer.from(ed25519.sign(message, privateKey));
  return { r: signature.subarray(0, 32).toString('hex'), s: signature.subarray(32).toString('hex'), v: '00' };
}
