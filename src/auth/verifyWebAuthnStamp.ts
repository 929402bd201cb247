// Verifies a WebAuthn (passkey) stamp against its registered credential with @simplewebauthn/server
//, and turns each failed check into a 401 that names it.
import { createHash } from 'node:crypto';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { unauthenticated } from '../errors.ts';
import type { WebAuthnStamp } from './parseStamp.ts';
import { strictDerProblem, type EcdsaCurve } from '../keys/strictDer.ts';

export interface RegisteredAuthenticator {
  /** base64url credential ID, as stored in authenticators.credential_id. */
  credentialId: string;
  /** The credential's COSE public key, as registration returned it. */
  publicKey: Uint8Array;
  /** The highest signature counter seen so far. */
  signCount: number;
}

export interface WebAuthnOptions {
  /** Origins an assertion may come from (SIGNET_WEBAUTHN_ORIGINS). */
  origins: string[];
  /** Relying-party ID whose SHA-256 must open authenticatorData (SIGNET_WEBAUTHN_RP_ID). */
  rpId: string;
}

/**
 * Throws 401 unless the stamp is a fresh assertion by `authenticator` over `body`. Returns the
 * authenticator's new counter, which the caller must store (with a compare-and-set against replays).
 */
export async function verifyWebAuthnStamp(
  body: Buffer,
  stamp: WebAuthnStamp,
  authenticator: RegisteredAuthenticator,
  options: WebAuthnOptions,
): Promise<{ newSignCount: number }> {
  if (stamp.credentialId !== authenticator.credentialId) {
    throw unauthenticated('WebAuthn stamp credentialId is not the credential it is being verified against', 'unknown_credential');
  }
  const clientData = decodeClientData(stamp.clientDataJson);
  requireStrictDer(stamp.signature, authenticator.publicKey);
  // The challenge @turnkey/webauthn-stamper signs: the UTF-8 bytes of the body's lowercase hex SHA-256.
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const expectedChallenge = Buffer.from(bodyHash, 'utf8').toString('base64url');

  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response: {
        id: stamp.credentialId,
        rawId: stamp.credentialId,
        type: 'public-key',
        response: {
          clientDataJSON: stamp.clientDataJson,
          authenticatorData: stamp.authenticatorData,
          signature: stamp.signature,
        },
        clientExtensionResults: {},
      },
      expectedChallenge,
      expectedOrigin: options.origins,
      expectedRPID: options.rpId,
      expectedType: 'webauthn.get',
      // Counter 0 turns the library's counter check off: it runs before the signature check, and a
      // forger must not learn the counter. The same rule is applied below once the signature holds.
      credential: { id: authenticator.credentialId, publicKey: new Uint8Array(authenticator.publicKey), counter: 0 },
      // User presence (UP) is still required; verification (UV, a PIN or biometric) is the
      // authenticator's policy, as with the WebAuthn stamper's default "preferred".
      requireUserVerification: false,
    });
  } catch (error) {
    throw rejection(error, { clientData, bodyHash, options });
  }
  if (!result.verified) throw badSignature();

  const newSignCount = result.authenticationInfo.newCounter;
  const stored = authenticator.signCount;
  // Authenticators without a counter always send 0; otherwise it must grow (WebAuthn L2 §6.1.1).
  if ((newSignCount > 0 || stored > 0) && newSignCount <= stored) {
    throw unauthenticated(
      `counter went backwards: the authenticator's signature counter is ${newSignCount} but ${stored} was ` +
        'already seen; this assertion was replayed or the authenticator was cloned. Stamp a new request',
      'replayed',
    );
  }
  return { newSignCount };
}

// The curves of the EC2 keys the library verifies (ES256, ES384, ES512).
const EC2_CURVES = new Map<number, EcdsaCurve>([
  [cose.COSECRV.P256, 'P-256'],
  [cose.COSECRV.P384, 'P-384'],
  [cose.COSECRV.P521, 'P-521'],
]);

/**
 * An ECDSA (COSE EC2) credential's signature must be strict DER: the library's ASN.1 parser takes
 * other encodings of the same (r, s), which would make a stamp malleable. EdDSA and RSA signatures
 * are not DER and are left to the library, as are curves it cannot verify.
 */
function requireStrictDer(signature: string, credentialPublicKey: Uint8Array): void {
  const key = decodeCredentialPublicKey(new Uint8Array(credentialPublicKey));
  if (!cose.isCOSEPublicKeyEC2(key)) return;
  const curve = EC2_CURVES.get(key.get(cose.COSEKEYS.crv) ?? 0);
  if (!curve) return;
  const problem = strictDerProblem(Buffer.from(signature, 'base64url'), curve);
  if (problem) {
    throw unauthenticated(
      `WebAuthn signature is not a strict DER ECDSA signature (${problem}); send ` +
        'PublicKeyCredential.response.signature exactly as the authenticator returned it, base64url-encoded',
      'malformed',
    );
  }
}

interface ClientData {
  type?: unknown;
  origin?: unknown;
  challenge?: unknown;
}

function decodeClientData(clientDataJson: string): ClientData {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(clientDataJson, 'base64url')));
  } catch {
    throw unauthenticated(
      'WebAuthn clientDataJson does not decode to UTF-8 JSON; send PublicKeyCredential.response.clientDataJSON as base64url',
      'malformed',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw unauthenticated('WebAuthn clientDataJson must be a JSON object', 'malformed');
  }
  return value as ClientData;
}

// The library reports each failed check with an Error whose message names it; these are its v14
// messages (test/verifyWebAuthnStamp.test.ts fails if an upgrade changes one that matters).
function rejection(
  error: unknown,
  context: { clientData: ClientData; bodyHash: string; options: WebAuthnOptions },
): Error {
  const message = error instanceof Error ? error.message : String(error);
  const { clientData, bodyHash, options } = context;
  if (message.startsWith('Unexpected authentication response type')) {
    return unauthenticated(
      `wrong type: clientDataJSON.type is ${show(clientData.type)}, expected "webauthn.get"; ` +
        'stamp with navigator.credentials.get(), not create()',
      'webauthn_type',
    );
  }
  if (message.startsWith('Unexpected authentication response challenge')) {
    return unauthenticated(
      'wrong challenge: the WebAuthn challenge must be the UTF-8 bytes of the lowercase hex SHA-256 of the ' +
        `request body (${bodyHash}); stamp the exact bytes you send`,
      'webauthn_challenge',
    );
  }
  if (message.startsWith('Unexpected authentication response origin')) {
    return unauthenticated(
      `wrong origin: clientDataJSON.origin ${show(clientData.origin)} is not an accepted origin ` +
        `(${options.origins.join(', ') || 'none configured'}); stamp from the site SIGNET_WEBAUTHN_ORIGINS lists`,
      'webauthn_origin',
    );
  }
  if (message === 'Unexpected RP ID hash') {
    return unauthenticated(
      `wrong RP ID: authenticatorData is not for relying party "${options.rpId}"; use rpId "${options.rpId}" ` +
        'in the WebAuthn stamper and a passkey registered for it',
      'webauthn_rp_id',
    );
  }
  if (message.startsWith('User not present')) {
    return unauthenticated(
      'user not present: authenticatorData lacks the user-present (UP) flag; the authenticator must get a user gesture',
      'webauthn_user_not_present',
    );
  }
  if (/cross-origin|top origin/i.test(message)) {
    return unauthenticated(`cross-origin assertion rejected: ${message}`, 'webauthn_cross_origin');
  }
  if (/authenticator data|CBOR/i.test(message)) {
    return unauthenticated(`malformed authenticatorData: ${message}`, 'malformed');
  }
  // A signature the library cannot parse (ECDSA ones were already held to strict DER above).
  if (/ASN1|ASN\.1|signature/i.test(message)) return badSignature();
  return unauthenticated(`WebAuthn assertion rejected: ${message}`, 'webauthn_rejected');
}

function badSignature(): Error {
  return unauthenticated(
    'bad signature: the WebAuthn signature does not verify with the registered credential key over ' +
      'authenticatorData and the SHA-256 of clientDataJSON',
    'bad_signature',
  );
}

function show(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'missing' : `a ${typeof value}`;
  return JSON.stringify(value.length > 128 ? `${value.slice(0, 128)}…` : value);
}
