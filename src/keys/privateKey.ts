// A private key made for create_private_keys: drawn from the operating system's CSPRNG, with its
// public key as deriveAccountKey gives an account's (secp256k1: the compressed SEC1 point; ed25519:
// the 32-byte key), so the address formats of addresses.ts apply to it alike. The caller seals the
// private key and zeroes it.
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { AccountKey, DerivationCurve } from './derivation.ts';

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
