// Address rules for the contracts an interface belongs to: Ethereum addresses (with the EIP-55
// checksum) and Solana program ids (base58 public keys). Each returns a problem or undefined.
// keccak-256 is not in Node's crypto (its sha3-256 has different padding), hence @noble/hashes.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58 } from '@scure/base';
import { ETHEREUM_ADDRESS_PATTERN } from '../wire/ethereumAddress.ts';

/**
 * Problem with an Ethereum address, or undefined when it is valid: `0x` and 40 hex digits. Digits
 * all in one case carry no checksum and are accepted; mixed case is an EIP-55 checksum and must match.
 */
export function ethereumAddressProblem(address: string): string | undefined {
  if (!ETHEREUM_ADDRESS_PATTERN.test(address)) {
    if (!address.startsWith('0x')) return 'must start with 0x followed by 40 hexadecimal digits';
    const digits = address.slice(2);
    if (/[^0-9a-fA-F]/.test(digits)) return 'must be 0x followed by 40 hexadecimal digits (0-9, a-f); it contains other characters';
    return `must be 0x followed by 40 hexadecimal digits; it has ${digits.length}`;
  }
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return undefined;
  // Never reveal the checksummed form: for a mistyped address it would "fix" the typo's checksum.
  if (!checksumMatches(hex)) {
    return 'mixed-case address does not match its EIP-55 checksum, so a character is probably wrong; copy the address again from its source';
  }
  return undefined;
}

// A client registers interfaces of the same few contracts again and again: a checksummed address is
// hashed once, not at every submission (keccak-256 is the costliest step of a small submission's checks).
const checkedAddresses = new Map<string, boolean>();
const CHECKED_LIMIT = 1024;

function checksumMatches(hex: string): boolean {
  let matches = checkedAddresses.get(hex);
  if (matches === undefined) {
    matches = toChecksumHex(hex) === hex;
    if (checkedAddresses.size >= CHECKED_LIMIT) checkedAddresses.clear();
    checkedAddresses.set(hex, matches);
  }
  return matches;
}

/** EIP-55: a hex letter is upper case where the same nibble of keccak-256(lowercase hex) is ≥ 8. */
function toChecksumHex(hex: string): string {
  const lower = hex.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '';
  for (let i = 0; i < lower.length; i++) {
    const byte = hash[i >> 1] ?? 0;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Problem with a Solana address (program id), or undefined: base58 of exactly 32 bytes. */
export function solanaAddressProblem(address: string): string | undefined {
  if (address === '') return 'must not be empty; a Solana address is a base58 string of a 32-byte public key';
  for (let i = 0; i < address.length; i++) {
    const char = address[i]!;
    if (!BASE58_ALPHABET.includes(char)) {
      return `contains ${JSON.stringify(char)} at position ${i + 1}, which is not a base58 character (base58 has no 0, O, I or l)`;
    }
  }
  if (address.length > 44) {
    return `has ${address.length} characters, but a Solana address is 32 to 44 base58 characters (a 32-byte public key)`;
  }
  // The exact length is checked after decoding: leading '1's stand for zero bytes, so character counts vary.
  const length = base58.decode(address).length;
  if (length !== 32) {
    return `decodes to ${length} bytes, but a Solana address is a 32-byte public key (32 to 44 base58 characters)`;
  }
  return undefined;
}
