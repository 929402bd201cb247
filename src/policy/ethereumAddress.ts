// Ethereum addresses in policies, the one rule every place that reads or compares one follows: an
// address is `0x` and 40 hexadecimal digits, and the case of its letters (an EIP-55 checksum, all
// upper or all lower) never makes it another address. So
// - what a condition reads holds an address in lowercase (canonicalValue: params.ts applies it to
//   every string of activity.params; a future reader of addresses, such as a transaction's `to`,
//   `from` or decoded `address` arguments, applies it to what it binds);
// - `==`, `!=`, `in` and `.contains` take two addresses as equal whatever their case (sameValue), so
//   a literal written in EIP-55 form matches as its lowercase form does.
// Nothing else is folded: a Solana address (base58, where case matters) never has this form, since
// base58 has no `0`; nor does any other text, which is compared exactly.
import { ETHEREUM_ADDRESS_PATTERN } from '../wire/ethereumAddress.ts';
import { sameInt } from './integers.ts';

/** `0x` and 40 hexadecimal digits, in any case. */
export function isEthereumAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length === 42 && ETHEREUM_ADDRESS_PATTERN.test(value);
}

/** A value as a condition reads it: an Ethereum address in lowercase, anything else as it is. */
export function canonicalValue<T>(value: T): T {
  return isEthereumAddress(value) ? (value.toLowerCase() as T) : value;
}

/**
 * Whether two values of the same kind are equal for `==`, `!=`, `in` and `.contains`: an int held
 * as a number equals the same int held as a bigint (integers.ts).
 */
export function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left === 'bigint' || typeof right === 'bigint') return sameInt(left, right);
  return isEthereumAddress(left) && isEthereumAddress(right) && left.toLowerCase() === right.toLowerCase();
}
