// Export and import bundles in the ecosystem's formats, for wallets and private keys alike: key
// material sealed to a client's target key and signed by Signet's signer key (what @turnkey/crypto's
// decryptExportBundle opens), the import bundle naming a fresh target key (what encryptWalletToBundle
// and encryptPrivateKeyToBundle encrypt to), and what such a client sends back opened to raw bytes.
// The HPKE is @turnkey/crypto's own (hpkeEncrypt, formatHpkeBuf, hpkeDecrypt), loaded on first use.
//
// A signed bundle is JSON {version, data, dataSignature, enclaveQuorumPublic}: data is the hex of a
// UTF-8 JSON object, dataSignature the DER ECDSA P-256 SHA-256 signature of those bytes (hex), and
// enclaveQuorumPublic the signer's uncompressed public key (hex), which the client compares as a
// string with the key it was told to trust.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { p256PointHex, uncompressedPublicKeyHex } from './p256.ts';
import { ParameterRejected } from './parameterRejected.ts';
import { turnkeyCrypto } from './turnkeyCrypto.ts';

/** The version field the ecosystem's bundles carry. */
export const BUNDLE_VERSION = 'v1.0.0';

/** An encrypted import bundle, well formed, that the target key given does not open (another target's, or changed). */
export class BundleDoesNotOpen extends ParameterRejected {
  override name = 'BundleDoesNotOpen';
}

/** The key that signs bundles: its private half, and its public half as published (lowercase uncompressed hex). */
export interface BundleSigner {
  privateKey: KeyObject;
  publicKey: string;
}

/** The longest encryptedBundle read: a 24-word mnemonic or a private key encrypts to far less. */
export const MAX_ENCRYPTED_BUNDLE_CHARACTERS = 8192;
/** The longest plaintext an import bundle may open to (a mnemonic's text, a private key). */
export const MAX_IMPORTED_BYTES = 1024;
/** AES-GCM's tag: the shortest ciphertext of a non-empty plaintext is one byte longer. */
const TAG_BYTES = 16;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const UNCOMPRESSED = /^04[0-9a-fA-F]{128}$/;

/**
 * The client's target key as the export activities take it: an uncompressed P-256 point in hex
 * (130 characters, 04 then X and Y), on the curve. Answers it in lowercase; a ParameterRejected
 * naming `field` otherwise.
 */
export function parseTargetPublicKey(value: unknown, field = 'parameters.targetPublicKey'): string {
  if (typeof value !== 'string' || !UNCOMPRESSED.test(value)) {
    throw new ParameterRejected(field, 'must be an uncompressed P-256 public key in hex: 130 hex digits starting with 04');
  }
  const point = p256PointHex(value);
  if (!point) throw new ParameterRejected(field, 'is not a point of the P-256 curve');
  return point.uncompressed;
}

/** A bundle signed by `signer`: `data` as the hex of its JSON, with the signature and the signer's key. */
export function signedBundle(signer: BundleSigner, data: Record<string, string>): string {
  if (signer.publicKey !== uncompressedPublicKeyHex(signer.privateKey)) {
    throw new Error('a bundle signer publicKey must be the lowercase uncompressed hex of its private key');
  }
  const bytes = Buffer.from(JSON.stringify(data), 'utf8');
  const dataSignature = sign('sha256', bytes, { key: signer.privateKey, dsaEncoding: 'der' });
  return JSON.stringify({ version: BUNDLE_VERSION, data: bytes.toString('hex'), dataSignature: dataSignature.toString('hex'), enclaveQuorumPublic: signer.publicKey });
}

/**
 * An export bundle: `plaintext` (a mnemonic's UTF-8 text, a private key's bytes; not modified, the
 * caller zeroes it) HPKE-encrypted to `targetPublicKey` (checked by parseTargetPublicKey) and signed
 * for `organizationId`, which decryptExportBundle compares with the organization its caller names.
 */
export async function sealExportBundle(signer: BundleSigner, to: { organizationId: string; targetPublicKey: string }, plaintext: Uint8Array): Promise<string> {
  const target = parseTargetPublicKey(to.targetPublicKey);
  const { hpkeEncrypt, formatHpkeBuf } = await turnkeyCrypto();
  // Uncompressed: the decryption rebuilds the AAD and the KEM context from the receiver's uncompressed key.
  const sealed = hpkeEncrypt({ plainTextBuf: plaintext, targetKeyBuf: Buffer.from(target, 'hex') });
  const { encappedPublic, ciphertext } = JSON.parse(formatHpkeBuf(sealed)) as { encappedPublic: string; ciphertext: string };
  return signedBundle(signer, { organizationId: to.organizationId, encappedPublic, ciphertext });
}

/** A fresh import target: the private scalar (32 bytes, the caller's to seal and zero) and its public point. */
export interface ImportTarget {
  privateKey: Buffer;
  /** Uncompressed SEC1 point, lowercase hex (130 characters): the import bundle's targetPublic. */
  publicKey: string;
}

/** A new P-256 key pair for one import; its private half is kept sealed until the import uses it. */
export function newImportTarget(): ImportTarget {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const scalar = Buffer.concat([Buffer.alloc(32 - d.length), d]);
  d.fill(0);
  return { privateKey: scalar, publicKey: uncompressedPublicKeyHex(publicKey) };
}

/** The import bundle naming `targetPublic` for `userId` of `organizationId`, as encryptWalletToBundle and encryptPrivateKeyToBundle check it. */
export function importBundle(signer: BundleSigner, to: { organizationId: string; userId: string; targetPublic: string }): string {
  const point = p256PointHex(to.targetPublic);
  if (!point) throw new Error('an import target is a P-256 public key in hex');
  return signedBundle(signer, { organizationId: to.organizationId, userId: to.userId, targetPublic: point.uncompressed });
}

/**
 * What a client encrypted to an import target (encryptWalletToBundle's or encryptPrivateKeyToBundle's
 * JSON {encappedPublic, ciphertext}), opened with the target's private scalar (32 bytes): the raw
 * plaintext, the caller's to zero. Every part is bounded; a bundle that is malformed, or does not open
 * with this key (another target's, changed: BundleDoesNotOpen), is a ParameterRejected naming `field`
 * that never holds the bundle nor what it holds.
 */
export async function openImportBundle(encryptedBundle: unknown, targetPrivateKey: Uint8Array, field = 'parameters.encryptedBundle'): Promise<Buffer> {
  const { encappedPublic, ciphertext } = importBundleParts(encryptedBundle, field);
  if (targetPrivateKey.length !== 32) throw new Error('an import target private key has 32 bytes');
  const { hpkeDecrypt } = await turnkeyCrypto();
  let plaintext: Uint8Array;
  try {
    plaintext = hpkeDecrypt({
      ciphertextBuf: Buffer.from(ciphertext, 'hex'),
      encappedKeyBuf: Buffer.from(encappedPublic, 'hex'),
      receiverPriv: Buffer.from(targetPrivateKey).toString('hex'),
    });
  } catch {
    // The library's message says only that the AES-GCM tag did not match.
    throw new BundleDoesNotOpen(field, 'does not open with the import target: encrypt to the importBundle of your latest init_import activity, and send the result unchanged');
  }
  const opened = Buffer.from(plaintext);
  plaintext.fill(0);
  return opened;
}

/** The parts of an encrypted import bundle, checked before anything is decrypted. */
function importBundleParts(encryptedBundle: unknown, field: string): { encappedPublic: string; ciphertext: string } {
  if (typeof encryptedBundle !== 'string' || encryptedBundle === '') {
    throw new ParameterRejected(field, 'must be the non-empty string encryptWalletToBundle or encryptPrivateKeyToBundle returned');
  }
  if (encryptedBundle.length > MAX_ENCRYPTED_BUNDLE_CHARACTERS) {
    throw new ParameterRejected(field, `is longer than ${MAX_ENCRYPTED_BUNDLE_CHARACTERS} characters`);
  }
  let bundle: unknown;
  try {
    bundle = JSON.parse(encryptedBundle);
  } catch {
    throw new ParameterRejected(field, 'is not JSON; send what encryptWalletToBundle or encryptPrivateKeyToBundle returned');
  }
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    throw new ParameterRejected(field, 'must be a JSON object {encappedPublic, ciphertext}');
  }
  const { encappedPublic, ciphertext } = bundle as { encappedPublic?: unknown; ciphertext?: unknown };
  if (typeof encappedPublic !== 'string' || !UNCOMPRESSED.test(encappedPublic) || !p256PointHex(encappedPublic)) {
    throw new ParameterRejected(field, 'must hold encappedPublic, an uncompressed P-256 point in hex (130 characters starting with 04)');
  }
  if (typeof ciphertext !== 'string' || !HEX.test(ciphertext) || ciphertext.length / 2 <= TAG_BYTES || ciphertext.length / 2 > MAX_IMPORTED_BYTES + TAG_BYTES) {
    throw new ParameterRejected(field, `must hold ciphertext, hex of ${TAG_BYTES + 1} to ${MAX_IMPORTED_BYTES + TAG_BYTES} bytes`);
  }
  return { encappedPublic, ciphertext };
}
