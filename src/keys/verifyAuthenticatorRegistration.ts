// Verifies a WebAuthn registration (navigator.credentials.create() result) with @simplewebauthn/server
// and returns what the authenticators table stores; pure (no store), for the admin API and create_users. Attestation "none" is accepted: passkeys send it.
// Two shapes are accepted and made one before verifying: the W3C JSON and the ecosystem's v1Attestation.
import { verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { ParameterRejected } from './parameterRejected.ts';

/** The registration is refused: `field` (the request's, or a path below it) and what is wrong with it. */
export class RegistrationRejected extends ParameterRejected {
  override name = 'RegistrationRejected';
}

const rejected = (field: string, description: string) => new RegistrationRejected(field, description);

export interface RegistrationOptions {
  /** The base64url challenge the registration ceremony was started with. */
  expectedChallenge: string;
  /** Origins the ceremony may run on (SIGNET_WEBAUTHN_ORIGINS). */
  origins: string[];
  /** Relying-party ID the credential must be scoped to (SIGNET_WEBAUTHN_RP_ID). */
  rpId: string;
  /** The request's field that holds the registration, named by errors (default "attestation"). */
  field?: string;
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

// The admin API takes the registration result in the field "attestation"; errors name the field given.
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

/** The ecosystem's transport names and the W3C values (AuthenticatorTransport) stored for them. */
export const ECOSYSTEM_TRANSPORTS: Record<string, string> = {
  AUTHENTICATOR_TRANSPORT_INTERNAL: 'internal',
  AUTHENTICATOR_TRANSPORT_USB: 'usb',
  AUTHENTICATOR_TRANSPORT_NFC: 'nfc',
  AUTHENTICATOR_TRANSPORT_BLE: 'ble',
  AUTHENTICATOR_TRANSPORT_HYBRID: 'hybrid',
};

// v1Attestation, as @turnkey/http's getWebAuthnAttestation() gives it (and so sdk-browser's
// createUserPasskey and core's createPasskey): credentialId is the rawId, every field base64url.
const ecosystemAttestation = z.object({
  credentialId: base64url(1400),
  clientDataJson: base64url(8192),
  attestationObject: base64url(65536),
  transports: z
    .array(z.enum(Object.keys(ECOSYSTEM_TRANSPORTS) as [string, ...string[]], { message: `must be one of ${Object.keys(ECOSYSTEM_TRANSPORTS).join(', ')}` }))
    .max(16)
    .optional(),
});

const W3C_HINT = 'send the JSON of the PublicKeyCredential that navigator.credentials.create() returned';
const ECOSYSTEM_HINT = 'send the attestation that createUserPasskey() or getWebAuthnAttestation() returned';

type Transport = NonNullable<RegistrationResponseJSON['response']['transports']>[number];

/**
 * Either shape as the W3C JSON @simplewebauthn/server verifies, with W3C transport values, and the
 * name the sender gave the credential ID (for errors).
 */
function registrationJson(response: unknown, field: string): { json: RegistrationResponseJSON; idField: string } {
  const ecosystem = typeof response === 'object' && response !== null && 'credentialId' in response;
  const parsed = ecosystem ? ecosystemAttestation.safeParse(response) : registrationResponse.safeParse(response);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    throw rejected(path ? `${field}.${path}` : field, `${issue.message}; ${ecosystem ? ECOSYSTEM_HINT : W3C_HINT}`);
  }
  // Padding is not part of base64url as WebAuthn writes it; the credential ID is compared as text.
  const unpadded = (value: string) => value.replace(/=+$/, '');
  if ('credentialId' in parsed.data) {
    const { credentialId, clientDataJson, attestationObject, transports = [] } = parsed.data;
    const json: RegistrationResponseJSON = {
      id: unpadded(credentialId),
      rawId: unpadded(credentialId),
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: clientDataJson, attestationObject, transports: transports.map((t) => ECOSYSTEM_TRANSPORTS[t] as Transport) },
    };
    return { json, idField: `${field}.credentialId` };
  }
  const w3c = parsed.data;
  const json: RegistrationResponseJSON = {
    ...w3c,
    id: unpadded(w3c.id),
    rawId: unpadded(w3c.rawId),
    clientExtensionResults: w3c.clientExtensionResults ?? {},
    // Already W3C values; an ecosystem name sent here too is stored in the same form.
    response: { ...w3c.response, transports: (w3c.response.transports ?? []).map((t) => (ECOSYSTEM_TRANSPORTS[t] ?? t) as Transport) },
  };
  return { json, idField: `${field}.id` };
}

/**
 * Throws RegistrationRejected naming the failed check unless `response` registers a credential for this RP.
 * `response` is the W3C RegistrationResponseJSON or the ecosystem's v1Attestation
 * {credentialId, clientDataJson, attestationObject, transports: AUTHENTICATOR_TRANSPORT_*[]};
 * transports are returned as W3C values (internal, usb, nfc, ble, hybrid, …) whichever was sent.
 */
export async function verifyAuthenticatorRegistration(
  response: unknown,
  options: RegistrationOptions,
): Promise<RegisteredCredential> {
  const field = options.field ?? FIELD;
  const { json, idField } = registrationJson(response, field);

  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: json,
      // Browsers write clientDataJSON.challenge unpadded; a challenge given with padding is the same one.
      expectedChallenge: options.expectedChallenge.replace(/=+$/, ''),
      expectedOrigin: options.origins,
      expectedRPID: options.rpId,
      expectedType: 'webauthn.create',
      // As for assertions: user presence is required, user verification is the authenticator's policy.
      requireUserVerification: false,
    });
  } catch (error) {
    throw rejection(error, options, field);
  }
  const info = result.registrationInfo;
  if (!result.verified || !info) {
    throw rejected(field, 'the attestation statement does not verify; register the authenticator again');
  }
  if (info.credential.id !== json.id) {
    throw rejected(idField, 'is not the credential ID inside authenticatorData');
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
function rejection(error: unknown, options: RegistrationOptions, field: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith('Unexpected registration response type')) {
    return rejected(field, 'clientDataJSON.type must be "webauthn.create": send the result of navigator.credentials.create()');
  }
  if (message.startsWith('Unexpected registration response challenge')) {
    return rejected(field, 'wrong challenge: clientDataJSON.challenge is not the challenge sent with it; register with that challenge');
  }
  if (message.startsWith('Unexpected registration response origin')) {
    return rejected(
      field,
      `wrong origin: the registration ran on an origin that is not accepted (${options.origins.join(', ') || 'none configured'})`,
    );
  }
  if (message === 'Unexpected RP ID hash') {
    return rejected(field, `wrong RP ID: the credential is not for relying party "${options.rpId}"; register it with rp.id "${options.rpId}"`);
  }
  if (message.startsWith('User presence was required')) {
    return rejected(field, 'user not present: authenticatorData lacks the user-present (UP) flag');
  }
  return rejected(field, `registration rejected: ${message}`);
}
