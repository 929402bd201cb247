// A wallet account's address and public key as the wire shows them. Supported formats, by curve:
// CURVE_SECP256K1: ADDRESS_FORMAT_ETHEREUM (EIP-55), ADDRESS_FORMAT_COMPRESSED (the SEC1 point, 66
// hex digits), ADDRESS_FORMAT_UNCOMPRESSED (130 hex digits); CURVE_ED25519: ADDRESS_FORMAT_SOLANA
// (base58 of the key), ADDRESS_FORMAT_COMPRESSED (the key, 64 hex digits). The wire's other formats
// (Bitcoin, Tron, Cosmos, Sui, Aptos, XRP, TON, Stellar, Dogecoin, Sei, Spark) are refused as not
// supported. A known format on the wrong curve is refused naming `addressFormat`.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { base58 } from '@scure/base';
import * as Address from 'ox/Address';
import * as PublicKey from 'ox/PublicKey';
import type { DerivationCurve } from './derivation.ts';
import { ParameterRejected } from './parameterRejected.ts';

/** The formats each curve's accounts may have here. */
export const ADDRESS_FORMATS: Readonly<Record<DerivationCurve, readonly string[]>> = {
  CURVE_SECP256K1: ['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_COMPRESSED', 'ADDRESS_FORMAT_UNCOMPRESSED'],
  CURVE_ED25519: ['ADDRESS_FORMAT_SOLANA', 'ADDRESS_FORMAT_COMPRESSED'],
};

const SUPPORTED: ReadonlySet<string> = new Set(Object.values(ADDRESS_FORMATS).flat());

/** Refuses an address format the curve's accounts cannot have (or that is not supported at all). */
export function checkAddressFormat(curve: DerivationCurve, addressFormat: unknown, field = 'addressFormat'): void {
  if (typeof addressFormat !== 'string' || !addressFormat.startsWith('ADDRESS_FORMAT_')) {
    throw new ParameterRejected(field, `must be an ADDRESS_FORMAT_ value; supported: ${[...SUPPORTED].join(', ')}`);
  }
  if (!SUPPORTED.has(addressFormat)) {
    throw new ParameterRejected(field, `${addressFormat} is not supported; supported: ${[...SUPPORTED].join(', ')}`);
  }
  if (!ADDRESS_FORMATS[curve].includes(addressFormat)) {
    throw new ParameterRejected(field, `${addressFormat} is not an address of a ${curve} key; ${curve} accounts have ${ADDRESS_FORMATS[curve].join(', ')}`);
  }
}

/** The address of a public key (as deriveAccountKey returns it) in a format its curve supports. */
export function addressOf(curve: DerivationCurve, addressFormat: string, publicKey: Uint8Array, field = 'addressFormat'): string {
  checkAddressFormat(curve, addressFormat, field);
  if (curve === 'CURVE_ED25519') {
    if (publicKey.length !== 32) throw new RangeError('an ed25519 public key has 32 bytes');
    return addressFormat === 'ADDRESS_FORMAT_SOLANA' ? base58.encode(publicKey) : Buffer.from(publicKey).toString('hex');
  }
  const point = secp256k1.ProjectivePoint.fromHex(publicKey);
  switch (addressFormat) {
    case 'ADDRESS_FORMAT_ETHEREUM':
      return Address.fromPublicKey(PublicKey.fromBytes(point.toRawBytes(false)), { checksum: true });
    case 'ADDRESS_FORMAT_UNCOMPRESSED':
      return point.toHex(false);
    default:
      return point.toHex(true);
  }
}

/**
 * `walletAccount.publicKey` on the wire: for secp256k1 the compressed SEC1 point in lowercase hex
 * (66 digits, what an ADDRESS_FORMAT_COMPRESSED account's address is too), for ed25519 the 32-byte key
 * in hex (64 digits).
 */
export function accountPublicKeyHex(curve: DerivationCurve, publicKey: Uint8Array): string {
  if (curve === 'CURVE_ED25519') return Buffer.from(publicKey).toString('hex');
  return secp256k1.ProjectivePoint.fromHex(publicKey).toHex(true);
}
