// Verifies a WebAuthn registration (navigator.credentials.create() result) with @simplewebauthn/server
// and returns what the authenticators table stores. Attestation "none" is accepted: passkeys send it.
import { verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { invalidField } from '../errors.ts';

export interface RegistrationOptions {
  /** The base64url challenge the registration ceremony was started with. */
  expectedChallenge: string;
  /** Origins the ceremony may run on (SIGNET_WEBAUTHN_ORIGINS). */
  origins: string[];
  /** Relying-party ID the credential must be scoped to (SIGNET_WEBAUTHN_RP_ID). */
  rpId: string;
}

export interface RegisteredCredential {
  /** base64url credential ID. */
  credentialId: string;
  /** COSE public key. */
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  aaguid: string;
}

// The admin API takes the registration result in the field "attestation"; errors name it.
const FIELD = 'attestation';

const base64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');

// RegistrationResponseJSON (WebAuthn L3 §5.1), as PublicKeyCredential.toJSON() or
// @simplewebauthn/browser's startRegistration() give it. Extra members are ignored.
const registrationResponse = z.object({
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key', { message: 'must be "public-key"' }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  response: z.object({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(65536),
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
});

/** Throws 400 naming the failed check unless `response` registers a credential for this RP. */
export async function verifyAuthenticatorRegistration(
  response: unknown,
  options: RegistrationOptions,
): Promise<RegisteredCredential> {
  const parsed = registrationResponse.safeParse(response);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    throw invalidField(
      path ? `${FIELD}.${path}` : FIELD,
      `${issue.message}; send the JSON of the PublicKeyCredential that navigator.credentials.create() returned`,
    );
  }
  const json: RegistrationResponseJSON = { ...parsed.data, clientExtensionResults: parsed.data.clientExtensionResults ?? {} };

  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: json,
      expectedChallenge: options.expectedChallenge,
      expectedOrigin: options.origins,
      expectedRPID: options.rpId,
      expectedType: 'webauthn.create',
      // As for assertions: user presence is required, user verification is the authenticator's policy.
      requireUserVerification: false,
    });
  } catch (error) {
    throw rejection(error, options);
  }
  const info = result.registrationInfo;
  if (!result.verified || !info) {
    throw invalidField(FIELD, 'the attestation statement does not verify; register the authenticator again');
  }
  if (info.credential.id !== json.id) {
    throw invalidField(`${FIELD}.id`, 'is not the credential ID inside authenticatorData');
  }
  return {
    credentialId: info.credential.id,
    publicKey: new Uint8Array(info.credential.publicKey),
    signCount: info.credential.counter,
    transports: json.response.transports ?? [],
    aaguid: info.aaguid,
  };
}

// The library's v14 messages for the checks a client can get wrong.
function rejection(error: unknown, options: RegistrationOptions): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith('Unexpected registration response type')) {
    return invalidField(FIELD, 'clientDataJSON.type must be "webauthn.create": send the result of navigator.credentials.create()');
  }
  if (message.startsWith('Unexpected registration response challenge')) {
    return invalidField(FIELD, 'wrong challenge: clientDataJSON.challenge is not the challenge sent with it; register with that challenge');
  }
  if (message.startsWith('Unexpected registration response origin')) {
    return invalidField(
      FIELD,
      `wrong origin: the registration ran on an origin that is not accepted (${options.origins.join(', ') || 'none configured'})`,
    );
  }
  if (message === 'Unexpected RP ID hash') {
    return invalidField(FIELD, `wrong RP ID: the credential is not for relying party "${options.rpId}"; register it with rp.id "${options.rpId}"`);
  }
  if (message.startsWith('User presence was required')) {
    return invalidField(FIELD, 'user not present: authenticatorData lacks the user-present (UP) flag');
  }
  return invalidField(FIELD, `registration rejected: ${message}`);
}
