// OTP codes: how a code is drawn, how it is shown (in two groups), how it is stored (a keyed hash,
// never the code) and how a code typed by a user is read back. Plain functions, no I/O.
import { createHmac, randomInt } from 'node:crypto';

/** Crockford's Base32: digits and capitals without I, L, O and U, so codes survive being read aloud. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const DIGIT_ALPHABET = '0123456789';

// Prefix of every MAC input, so a hash made here can never be mistaken for another use of the secret.
const HASH_LABEL = 'signet/otp-code/v1';

/**
 * A fresh code of `length` symbols from a CSPRNG. `randomInt` draws each symbol uniformly by
 * rejection sampling, so no symbol is favoured by a modulo.
 */
export function generateOtpCode(length: number, alphanumeric: boolean): string {
  if (!Number.isInteger(length) || length < 1 || length > 64) {
    throw new RangeError(`OTP length must be a whole number from 1 to 64, got ${length}`);
  }
  const alphabet = alphanumeric ? CROCKFORD_ALPHABET : DIGIT_ALPHABET;
  let code = '';
  for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
  return code;
}

/** The separator between a code's two groups: Crockford's own, and one that verification ignores. */
const GROUP_SEPARATOR = '-';

/**
 * A code as shown to a person: two groups joined by a hyphen, the second the longer when the length
 * is odd (6: 3-3, 7: 3-4, 8: 4-4, 9: 4-5, so `30FMDAGXE` reads `30FM-DAGXE`, `123456` reads
 * `123-456`). A single symbol stays as it is. `normalizeOtpCode` drops the hyphen again.
 */
export function groupOtpCode(code: string): string {
  const half = Math.floor(code.length / 2);
  return half === 0 ? code : `${code.slice(0, half)}${GROUP_SEPARATOR}${code.slice(half)}`;
}

/**
 * HMAC-SHA-256 of the code, keyed by the deployment secret, in hex. The OTP id is part of the MAC
 * input, so a hash copied onto another row does not verify there.
 */
export function hashOtpCode(secret: Buffer, otpId: string, code: string): string {
  if (secret.length === 0) throw new Error('the OTP secret is empty');
  // NUL separates the parts: neither a UUID nor a code contains one, so the input is unambiguous.
  return createHmac('sha256', secret).update(`${HASH_LABEL}\0${otpId.toLowerCase()}\0${code}`, 'utf8').digest('hex');
}

/**
 * A code as typed by a user, in the form `generateOtpCode` produced: spaces and hyphens (Crockford's
 * readability separators) dropped, and for alphanumeric codes upper-cased with Crockford's decoding
 * of look-alikes, I and L as 1, O as 0.
 */
export function normalizeOtpCode(input: string, alphanumeric: boolean): string {
  const compact = input.replace(/[\s-]/g, '');
  if (!alphanumeric) return compact;
  return compact.toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
}
