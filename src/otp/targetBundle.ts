// The OTP's encryption target (init_otp's otpEncryptionTargetBundle) and the encrypted code that
// comes back (verify_otp V2's encryptedOtpBundle), in the formats of @turnkey/crypto's
// encryptOtpCodeToBundle; decryption is that library's own HPKE.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { p256PointHex, uncompressedPublicKeyHex } from '../keys/p256.ts';
import { turnkeyCrypto } from '../keys/turnkeyCrypto.ts';

/** A fresh P-256 key pair for one OTP: the client encrypts the code to its public half. */
export interface TargetKey {
  /** The private scalar, lowercase hex (64 characters): what hpkeDecrypt takes. */
  privateKey: string;
  /** Uncompressed SEC1 point, lowercase hex (130 characters): the bundle's targetPublic. */
  publicKey: string;
}

/** Creates an OTP's target key pair; keep the private half with the OTP and use it once. */
export function createTargetKey(): TargetKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  return { privateKey: d.toString('hex').padStart(64, '0'), publicKey: uncompressedPublicKeyHex(publicKey) };
}

/**
 * The otpEncryptionTargetBundle for a target key: JSON {enclaveQuorumPublic, dataSignature, data},
 * where data is the hex of the UTF-8 JSON {targetPublic (uncompressed hex), ...extra} and
 * dataSignature the DER ECDSA P-256 SHA-256 signature (hex) over those bytes.
 *
 * encryptOtpCodeToBundle compares enclaveQuorumPublic, as a string, with the signer key the app
 * passes as its 4th argument, so `signer.publicKey` must be the exact string Signet publishes:
 * lowercase uncompressed hex of `signer.privateKey`'s public half (checked; throws otherwise).
 * `target.publicKey` may be given in either SEC1 form: the bundle carries it uncompressed, since a
 * compressed targetPublic makes the client build an AAD that the decryption does not rebuild.
 */
export function targetBundle(signer: { privateKey: KeyObject; publicKey: string }, target: { publicKey: string; extra?: Record<string, string> }): string {
  if (signer.publicKey !== uncompressedPublicKeyHex(signer.privateKey)) {
    throw new Error('the OTP bundle signer publicKey must be the lowercase uncompressed hex (130 characters) of its private key');
  }
  const point = p256PointHex(target.publicKey);
  if (!point) throw new Error('the OTP target publicKey is not a P-256 public key in hex');
  if (target.extra && Object.hasOwn(target.extra, 'targetPublic')) throw new Error('extra fields of an OTP target bundle cannot replace targetPublic');
  const data = Buffer.from(JSON.stringify({ targetPublic: point.uncompressed, ...target.extra }), 'utf8');
  const dataSignature = sign('sha256', data, { key: signer.privateKey, dsaEncoding: 'der' });
  return JSON.stringify({ enclaveQuorumPublic: signer.publicKey, dataSignature: dataSignature.toString('hex'), data: data.toString('hex') });
}

/** Why an encryptedOtpBundle cannot be used. The message never holds the code or the bundle. */
export class OtpBundleError extends Error {
  constructor(
    /** malformed: not the JSON the library writes; undecryptable: not encrypted to this OTP's key, or changed; plaintext: decrypted, but not {otp_code, public_key}. */
    readonly kind: 'malformed' | 'undecryptable' | 'plaintext',
    message: string,
  ) {
    super(message);
    this.name = 'OtpBundleError';
  }
}

/** What the client encrypted: the code the user typed and the client's public key (hex, as sent). */
export interface OtpBundleContent {
  otpCode: string;
  publicKey: string;
}

/** Longest encryptedOtpBundle read (one written by encryptOtpCodeToBundle is under 1 KiB). */
export const MAX_OTP_BUNDLE_LENGTH = 4096;
/** Longest otp_code read: the bound verify_otp puts on a typed otpCode. */
export const MAX_OTP_CODE_LENGTH = 64;
/** Longest ciphertext read: the JSON of a 64-character code and an uncompressed key, plus the 16-byte tag, with room. */
const MAX_CIPHERTEXT_BYTES = 1024;
// AES-GCM's 16-byte tag plus the shortest plaintext, {"otp_code":"","public_key":""} (31 bytes).
const MIN_CIPHERTEXT_BYTES = 16 + 31;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * Decrypts a verify_otp V2 encryptedOtpBundle (JSON {encappedPublic, ciphertext} from
 * encryptOtpCodeToBundle) with the OTP's target private key (64 hex) using @turnkey/crypto's
 * hpkeDecrypt, and reads the plaintext JSON {otp_code, public_key}. Every input is bounded; throws
 * OtpBundleError saying which part is wrong. `publicKey` is a P-256 point (checked), returned
 * as decrypted: the caller decides which of its forms it binds.
 */
export async function decryptOtpBundle(encryptedOtpBundle: string, targetPrivateKey: string): Promise<OtpBundleContent> {
  if (!/^[0-9a-f]{64}$/.test(targetPrivateKey)) throw new Error('an OTP target private key is 64 lowercase hex characters');
  if (typeof encryptedOtpBundle !== 'string' || encryptedOtpBundle === '') {
    throw new OtpBundleError('malformed', 'encryptedOtpBundle must be the non-empty string encryptOtpCodeToBundle returned');
  }
  if (encryptedOtpBundle.length > MAX_OTP_BUNDLE_LENGTH) {
    throw new OtpBundleError('malformed', `encryptedOtpBundle is longer than ${MAX_OTP_BUNDLE_LENGTH} characters; send what encryptOtpCodeToBundle returned`);
  }
  let bundle: unknown;
  try {
    bundle = JSON.parse(encryptedOtpBundle);
  } catch {
    throw new OtpBundleError('malformed', 'encryptedOtpBundle is not JSON; send what encryptOtpCodeToBundle returned');
  }
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    throw new OtpBundleError('malformed', 'encryptedOtpBundle must be a JSON object {encappedPublic, ciphertext}');
  }
  const fields = Object.keys(bundle).sort();
  if (fields.length !== 2 || fields[0] !== 'ciphertext' || fields[1] !== 'encappedPublic') {
    throw new OtpBundleError('malformed', 'encryptedOtpBundle must have exactly the fields encappedPublic and ciphertext');
  }
  const { encappedPublic, ciphertext } = bundle as { encappedPublic: unknown; ciphertext: unknown };
  if (typeof encappedPublic !== 'string' || !/^04[0-9a-fA-F]{128}$/.test(encappedPublic) || !p256PointHex(encappedPublic)) {
    throw new OtpBundleError('malformed', 'encryptedOtpBundle.encappedPublic must be an uncompressed P-256 point in hex (130 characters starting with 04)');
  }
  if (typeof ciphertext !== 'string' || !HEX.test(ciphertext) || ciphertext.length / 2 < MIN_CIPHERTEXT_BYTES || ciphertext.length / 2 > MAX_CIPHERTEXT_BYTES) {
    throw new OtpBundleError('malformed', `encryptedOtpBundle.ciphertext must be hex of ${MIN_CIPHERTEXT_BYTES} to ${MAX_CIPHERTEXT_BYTES} bytes`);
  }

  const { hpkeDecrypt } = await turnkeyCrypto();
  let plaintext: Uint8Array;
  try {
    plaintext = hpkeDecrypt({
      ciphertextBuf: Buffer.from(ciphertext, 'hex'),
      encappedKeyBuf: Buffer.from(encappedPublic, 'hex'),
      receiverPriv: targetPrivateKey,
    });
  } catch {
    // The library's message says only that the AES-GCM tag did not match; it adds nothing for the client.
    throw new OtpBundleError(
      'undecryptable',
      "encryptedOtpBundle cannot be decrypted with this OTP's key: encrypt the code with encryptOtpCodeToBundle to this OTP's otpEncryptionTargetBundle, and send the result unchanged",
    );
  }

  let content: unknown;
  try {
    content = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
  } catch {
    throw new OtpBundleError('plaintext', 'the decrypted encryptedOtpBundle is not JSON {otp_code, public_key}');
  }
  if (content === null || typeof content !== 'object' || Array.isArray(content)) {
    throw new OtpBundleError('plaintext', 'the decrypted encryptedOtpBundle is not a JSON object {otp_code, public_key}');
  }
  const names = Object.keys(content).sort();
  if (names.length !== 2 || names[0] !== 'otp_code' || names[1] !== 'public_key') {
    throw new OtpBundleError('plaintext', 'the decrypted encryptedOtpBundle must have exactly the fields otp_code and public_key');
  }
  const { otp_code: otpCode, public_key: publicKey } = content as { otp_code: unknown; public_key: unknown };
  if (typeof otpCode !== 'string' || otpCode === '' || otpCode.length > MAX_OTP_CODE_LENGTH) {
    throw new OtpBundleError('plaintext', `the decrypted otp_code must be a string of 1 to ${MAX_OTP_CODE_LENGTH} characters`);
  }
  if (typeof publicKey !== 'string' || !p256PointHex(publicKey)) {
    throw new OtpBundleError('plaintext', 'the decrypted public_key must be a P-256 public key in hex, the key encryptOtpCodeToBundle was given');
  }
  return { otpCode, publicKey };
}
