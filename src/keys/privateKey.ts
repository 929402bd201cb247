// A private key made for create_private_keys (drawn from the operating system's CSPRNG) or brought by
// import_private_key (32 bytes checked for the curve), with its public key as deriveAccountKey gives an
// account's (secp256k1: the compressed SEC1 point; ed25519: the 32-byte key), so the address formats
// of addresses.ts apply to it alike. The caller seals the private key and zeroes it.
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { AccountKey, DerivationCurve } from './derivation.ts';
import { ParameterRejected } from './parameterRejected.ts';

/** A new key of `curve`; its `privateKey` is the caller's to zero. */
export function generatePrivateKey(curve: DerivationCurve): AccountKey {
  if (curve === 'CURVE_ED25519') {
    // An Ed25519 private key is a 32-byte seed, as SLIP-0010 derives one.
    const privateKey = ed25519.utils.randomPrivateKey();
    return { curve, privateKey, publicKey: ed25519.getPublicKey(privateKey) };
  }
  // Uniform below the group order (noble reduces 48 random bytes modulo n - 1, plus 1).
  const privateKey = secp256k1.utils.randomPrivateKey();
  return { curve, privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}

/**
 * The key of `curve` whose private key is `bytes` (copied: the caller zeroes its own bytes and the
 * copy): 32 bytes, for secp256k1 a scalar from 1 to n - 1. Anything else is refused naming `field`.
 */
export function privateKeyFromBytes(curve: DerivationCurve, bytes: Uint8Array, field: string): AccountKey {
  if (bytes.length !== 32) throw new ParameterRejected(field, `holds ${bytes.length} bytes; a ${curve} private key is 32`);
  const privateKey = Uint8Array.from(bytes);
  if (curve === 'CURVE_ED25519') return { curve, privateKey, publicKey: ed25519.getPublicKey(privateKey) };
  if (!secp256k1.utils.isValidPrivateKey(privateKey)) {
    privateKey.fill(0);
    throw new ParameterRejected(field, 'is no secp256k1 private key (it must be a number from 1 to the group order less one)');
  }
  return { curve, privateKey, publicKey: secp256k1.getPublicKey(privateKey, true) };
}
