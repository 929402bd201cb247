// Reads the one stamp of a request from its headers and checks its shape strictly;
// signatures are verified elsewhere (verifyApiKeyStamp.ts, verifyWebAuthnStamp.ts, authenticateAttested.ts).
import { unauthenticated } from '../errors.ts';
import { P256_PUBLIC_KEY_PATTERN } from '../keys/p256.ts';
import { MAX_VERIFICATION_TOKEN_LENGTH } from '../otp/verificationToken.ts';

export type ApiKeyStamp = {
  kind: 'apiKey';
  /** P-256 public key as sent, lowercase hex: compressed (66 chars) or uncompressed (130 chars). */
  publicKey: string;
  /** DER ECDSA signature over SHA-256 of the body, lowercase hex. */
  signature: string;
  scheme: 'SIGNATURE_SCHEME_TK_API_P256';
};

export type WebAuthnStamp = {
  kind: 'webauthn';
  /** All four are unpadded base64url, as a browser's PublicKeyCredential.toJSON() gives them. */
  credentialId: string;
  authenticatorData: string;
  clientDataJson: string;
  signature: string;
};

/**
 * X-Stamp-Attested (@turnkey/core's AttestedStamper): a key the client holds, vouched for by a
 * verification token Signet issued and bound to it, signing the body like an API key.
 */
export type AttestedStamp = {
  kind: 'attested';
  /** The verification token (a JWT), as sent. */
  publicKeyAttestation: string;
  scheme: typeof ATTESTED_SCHEME;
  /** P-256 public key as sent, lowercase hex: compressed (66 chars) or uncompressed (130 chars). */
  publicKey: string;
  /** DER ECDSA signature over SHA-256 of the body, lowercase hex. */
  signature: string;
};

export type Stamp = ApiKeyStamp | WebAuthnStamp | AttestedStamp;

export interface ParseStampOptions {
  /** The route takes X-Stamp-Attested (stamp_login); elsewhere it is refused. */
  attested?: boolean;
}

type Headers = Record<string, string | string[] | undefined>;

const API_KEY_HEADER = 'X-Stamp';
const WEBAUTHN_HEADER = 'X-Stamp-WebAuthn';
export const ATTESTED_HEADER = 'X-Stamp-Attested';
const API_KEY_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';
export const ATTESTED_SCHEME = 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN';
const MAX_HEADER_BYTES = 8 * 1024;

/** Every refusal here but a missing stamp is about the stamp's shape (reason "malformed"). */
const malformed = (message: string) => unauthenticated(message, 'malformed');

const API_KEY_FIELDS = ['publicKey', 'scheme', 'signature'] as const;
const WEBAUTHN_FIELDS = ['credentialId', 'authenticatorData', 'clientDataJson', 'signature'] as const;
const ATTESTED_FIELDS = ['publicKeyAttestation', 'scheme', 'publicKey', 'signature'] as const;
// Fields only a WebAuthn stamp has: their presence in X-Stamp selects the WebAuthn shape.
const WEBAUTHN_ONLY_FIELDS = ['credentialId', 'authenticatorData', 'clientDataJson'];

// Decoded size bounds per WebAuthn field. Credential IDs are at most 1023 bytes (WebAuthn L2
// §5.8.3); a signature of 512 bytes covers every COSE algorithm a passkey uses (ECDSA, EdDSA, RSA-4096).
const WEBAUTHN_BYTES: Record<(typeof WEBAUTHN_FIELDS)[number], { min: number; max: number }> = {
  credentialId: { min: 1, max: 1023 },
  authenticatorData: { min: 37, max: 2048 },
  clientDataJson: { min: 2, max: 4096 },
  signature: { min: 8, max: 512 },
};

/** The request's stamp; throws 401 naming the check that failed when there is not exactly one well-formed stamp. */
export function parseStamp(headers: Headers, options: ParseStampOptions = {}): Stamp {
  const apiKeyValue = headerValue(headers, API_KEY_HEADER);
  const webauthnValue = headerValue(headers, WEBAUTHN_HEADER);
  const attestedValue = headerValue(headers, ATTESTED_HEADER);
  const count = (apiKeyValue === undefined ? 0 : 1) + (webauthnValue === undefined ? 0 : 1) + (attestedValue === undefined ? 0 : 1);
  if (count === 0) {
    throw unauthenticated(
      `missing stamp: send ${API_KEY_HEADER} or ${WEBAUTHN_HEADER}${options.attested ? ` (or ${ATTESTED_HEADER})` : ''}`,
      'missing',
    );
  }
  if (count > 1) {
    const sent = [apiKeyValue !== undefined && API_KEY_HEADER, webauthnValue !== undefined && WEBAUTHN_HEADER, attestedValue !== undefined && ATTESTED_HEADER].filter(Boolean);
    throw malformed(
      `${count === 2 ? 'two stamps: both' : 'three stamps:'} ${sent.join(' and ')} were sent; stamp the request with exactly one credential`,
    );
  }
  if (attestedValue !== undefined) {
    if (!options.attested) {
      throw malformed(
        `${ATTESTED_HEADER} is accepted by stamp_login only (POST /public/v1/submit/stamp_login, to start a session); ` +
          `stamp this request with ${API_KEY_HEADER} (an API key or the session key) or ${WEBAUTHN_HEADER}`,
      );
    }
    return attestedStamp(decodeHeader(attestedValue, ATTESTED_HEADER));
  }
  if (webauthnValue !== undefined) {
    return webAuthnStamp(decodeHeader(webauthnValue, WEBAUTHN_HEADER), WEBAUTHN_HEADER);
  }
  const document = decodeHeader(apiKeyValue!, API_KEY_HEADER);
  return WEBAUTHN_ONLY_FIELDS.some((field) => Object.hasOwn(document, field))
    ? webAuthnStamp(document, API_KEY_HEADER)
    : apiKeyStamp(document);
}

/**
 * Which credential a request's stamp names (an API key's public key, a passkey's credential id), or
 * undefined when there is no well-formed stamp. Says nothing about whether the stamp is valid.
 */
export function stampCredential(headers: Headers): string | undefined {
  try {
    const stamp = parseStamp(headers, { attested: true });
    return stamp.kind === 'webauthn' ? stamp.credentialId : stamp.publicKey;
  } catch {
    return undefined;
  }
}

/**
 * The header's single value, whatever the case of its name (Node lowercases, other callers may not).
 * Read for three names on every stamped request: the walk allocates only for a header that is there.
 */
function headerValue(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  let found: string | undefined;
  let count = 0;
  for (const key in headers) {
    const value = headers[key];
    if (value === undefined || key.toLowerCase() !== wanted || !Object.hasOwn(headers, key)) continue;
    count += Array.isArray(value) ? value.length : 1;
    found = Array.isArray(value) ? value[0] : value;
  }
  if (count > 1) throw malformed(`${name} was sent ${count} times; send it once`);
  return found;
}

/** Header value → JSON object. Plain JSON (WebAuthn stampers) or base64url of it (API-key stampers). */
function decodeHeader(value: string, header: string): Record<string, unknown> {
  const size = Buffer.byteLength(value, 'utf8');
  if (size > MAX_HEADER_BYTES) {
    throw malformed(`${header} is ${size} bytes; a stamp header is at most ${MAX_HEADER_BYTES} bytes`);
  }
  if (value.length === 0) throw malformed(`${header} is empty; send the stamp JSON, plain or base64url-encoded`);

  let text: string;
  if (value.startsWith('{')) {
    text = value;
  } else {
    const bytes = decodeBase64url(value);
    if (!bytes) {
      throw malformed(
        `${header} is neither a JSON object (starting with "{") nor base64url-encoded JSON; ` +
          'send the stamp JSON as is, or base64url-encode it (alphabet A-Z a-z 0-9 - _, padding optional)',
      );
    }
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw malformed(`${header} decodes from base64url to bytes that are not UTF-8; encode the stamp JSON as UTF-8`);
    }
  }

  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw malformed(`${header} is not valid JSON${text === value ? '' : ' after base64url decoding'}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw malformed(`${header} must hold a JSON object`);
  }
  return document as Record<string, unknown>;
}

function apiKeyStamp(document: Record<string, unknown>): ApiKeyStamp {
  const fields = stringFields(document, API_KEY_HEADER, API_KEY_FIELDS, 'an API key stamp');
  const publicKey = p256PublicKeyField(fields.publicKey, API_KEY_HEADER);
  if (fields.scheme !== API_KEY_SCHEME) {
    throw malformed(
      `${API_KEY_HEADER} scheme must be "${API_KEY_SCHEME}", got ${quote(fields.scheme)}; ` +
        `WebAuthn stamps go in ${WEBAUTHN_HEADER}`,
    );
  }
  return { kind: 'apiKey', publicKey, signature: derSignatureField(fields.signature, API_KEY_HEADER), scheme: API_KEY_SCHEME };
}

function attestedStamp(document: Record<string, unknown>): AttestedStamp {
  const fields = stringFields(document, ATTESTED_HEADER, ATTESTED_FIELDS, 'an attested stamp');
  if (fields.scheme !== ATTESTED_SCHEME) {
    throw malformed(
      `${ATTESTED_HEADER} scheme must be "${ATTESTED_SCHEME}" (a verification token of verify_otp), got ${quote(fields.scheme)}; ` +
        'Signet has no other attestation (no OIDC logins)',
    );
  }
  const token = fields.publicKeyAttestation;
  if (token.length === 0 || token.length > MAX_VERIFICATION_TOKEN_LENGTH) {
    throw malformed(`${ATTESTED_HEADER} publicKeyAttestation must be the verificationToken of verify_otp: 1 to ${MAX_VERIFICATION_TOKEN_LENGTH} characters`);
  }
  return {
    kind: 'attested',
    publicKeyAttestation: token,
    scheme: ATTESTED_SCHEME,
    publicKey: p256PublicKeyField(fields.publicKey, ATTESTED_HEADER),
    signature: derSignatureField(fields.signature, ATTESTED_HEADER),
  };
}

const P256_PUBLIC_KEY = new RegExp(P256_PUBLIC_KEY_PATTERN);

/** A stamp's publicKey: P-256 in hex, either SEC1 form; lowercase (the curve is checked with the signature). */
function p256PublicKeyField(publicKey: string, header: string): string {
  if (!/^[0-9a-fA-F]*$/.test(publicKey)) {
    throw malformed(`${header} publicKey must be hex (0-9, a-f)`);
  }
  if (!P256_PUBLIC_KEY.test(publicKey)) {
    throw malformed(
      `${header} publicKey must be a P-256 public key in hex: 66 characters starting with 02 or 03 ` +
        `(compressed) or 130 characters starting with 04 (uncompressed); got ${publicKey.length} characters`,
    );
  }
  return publicKey.toLowerCase();
}

/** A stamp's DER signature in hex; lowercase. Strict DER is checked with the signature. */
function derSignatureField(signature: string, header: string): string {
  // 8 to 72 bytes: the shortest and longest DER encodings of a P-256 ECDSA signature.
  if (!/^(?:[0-9a-fA-F]{2}){8,72}$/.test(signature)) {
    throw malformed(
      `${header} signature must be a DER-encoded ECDSA signature in hex: an even number of hex ` +
        `characters, 16 to 144 of them; got ${signature.length} characters`,
    );
  }
  return signature.toLowerCase();
}

function webAuthnStamp(document: Record<string, unknown>, header: string): WebAuthnStamp {
  const fields = stringFields(document, header, WEBAUTHN_FIELDS, 'a WebAuthn stamp');
  const stamp: WebAuthnStamp = { kind: 'webauthn', credentialId: '', authenticatorData: '', clientDataJson: '', signature: '' };
  for (const field of WEBAUTHN_FIELDS) {
    const bytes = decodeBase64url(fields[field]);
    if (!bytes) {
      throw malformed(
        `${header} ${field} must be base64url (alphabet A-Z a-z 0-9 - _, padding optional), as ` +
          'PublicKeyCredential.toJSON() gives it',
      );
    }
    const { min, max } = WEBAUTHN_BYTES[field];
    if (bytes.length < min || bytes.length > max) {
      throw malformed(`${header} ${field} decodes to ${bytes.length} bytes; it must be ${min} to ${max} bytes`);
    }
    stamp[field] = bytes.toString('base64url'); // canonical: unpadded
  }
  return stamp;
}

/** Exactly the expected fields, each a string; names what is unknown, missing or mistyped. */
function stringFields<const F extends readonly string[]>(
  document: Record<string, unknown>,
  header: string,
  expected: F,
  what: string,
): Record<F[number], string> {
  const list = expected.join(', ');
  const unknown = Object.keys(document).filter((key) => !expected.includes(key));
  if (unknown.length > 0) {
    const names = unknown.slice(0, 5).map(quote).join(', ') + (unknown.length > 5 ? ', …' : '');
    throw malformed(`${header} has unknown field${unknown.length > 1 ? 's' : ''} ${names}; ${what} has exactly ${list}`);
  }
  const missing = expected.filter((key) => !Object.hasOwn(document, key));
  if (missing.length > 0) {
    throw malformed(`${header} is missing ${missing.join(', ')}; ${what} has exactly ${list}`);
  }
  for (const key of expected) {
    if (typeof document[key] !== 'string') {
      throw malformed(`${header} ${key} must be a string, got ${describe(document[key])}`);
    }
  }
  return document as Record<F[number], string>;
}

/** Strict base64url: right alphabet, padding absent or exact, no stray bits (one encoding per value). */
function decodeBase64url(value: string): Buffer | undefined {
  const match = /^([A-Za-z0-9_-]*)(={0,2})$/.exec(value);
  if (!match) return undefined;
  const [, data = '', padding = ''] = match;
  if (data.length === 0 || data.length % 4 === 1) return undefined;
  if (padding.length > 0 && (data.length + padding.length) % 4 !== 0) return undefined;
  const bytes = Buffer.from(data, 'base64url');
  // Node ignores non-zero trailing bits; re-encoding exposes them.
  return bytes.toString('base64url') === data ? bytes : undefined;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
