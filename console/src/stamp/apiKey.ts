// The API-key stamper: `X-Stamp`, base64url JSON {publicKey, scheme, signature}, the signature DER
// hex ECDSA P-256 SHA-256 over the body, made by a non-extractable WebCrypto key. The private key
// given at sign-in is imported once (importApiKey) and its text dropped.
import { ECDSA_SHA256, importPrivateScalar, importPublicKey, rawToDer } from './p256.ts';
import { base64url, fromHex, toHex, type Stamper } from './stamper.ts';

export interface ApiKeyCredential {
  publicKey: string;
  /** Non-extractable: it signs, and cannot be read back. */
  privateKey: CryptoKey;
}

/** What the sign-in form takes: hex keys, or the JSON `signet org create` writes. */
export interface ApiKeyInput {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

/** The fields of a pasted credentials file (`signet org create --json` or its credentials.json). */
export function parseCredentialsFile(text: string): Partial<ApiKeyInput> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('the pasted text is not JSON: paste the whole credentials file');
  }
  if (!parsed || typeof parsed !== 'object') throw new Error('the pasted JSON is not an object');
  const fields: Partial<ApiKeyInput> = {};
  for (const name of ['organizationId', 'apiPublicKey', 'apiPrivateKey'] as const) {
    const value = (parsed as Record<string, unknown>)[name];
    if (typeof value === 'string') fields[name] = value.trim();
  }
  return fields;
}

/**
 * Imports the private key as a non-extractable signing key and checks, by signing and verifying a
 * probe, that it is the private half of `publicKey`.
 */
export async function importApiKey(publicKeyHex: string, privateKeyHex: string): Promise<ApiKeyCredential> {
  const publicKey = publicKeyHex.trim().toLowerCase();
  const privateHex = privateKeyHex.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(privateHex)) throw new Error('the API private key must be 64 hexadecimal characters');
  if (!/^(0[23][0-9a-f]{64}|04[0-9a-f]{128})$/.test(publicKey)) throw new Error('the API public key must be 66 (compressed) or 130 hexadecimal characters');
  let privateKey: CryptoKey;
  try {
    privateKey = await importPrivateScalar(fromHex(privateHex), publicKey);
  } catch {
    throw new Error('the private key is not the private half of this public key');
  }
  const verifier = await importPublicKey(publicKey);
  const probe = crypto.getRandomValues(new Uint8Array(32));
  const signature = await crypto.subtle.sign(ECDSA_SHA256, privateKey, probe);
  if (!(await crypto.subtle.verify(ECDSA_SHA256, verifier, signature, probe))) {
    throw new Error('the private key is not the private half of this public key');
  }
  return { publicKey, privateKey };
}

export function apiKeyStamper(credential: ApiKeyCredential): Stamper {
  return {
    async stamp(body) {
      const raw = new Uint8Array(await crypto.subtle.sign(ECDSA_SHA256, credential.privateKey, new TextEncoder().encode(body)));
      const stamp = { publicKey: credential.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: toHex(rawToDer(raw)) };
      return { name: 'X-Stamp', value: base64url(new TextEncoder().encode(JSON.stringify(stamp))) };
    },
  };
}
