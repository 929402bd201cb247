// The passkey stamper: the ecosystem's own @turnkey/webauthn-stamper (X-Stamp-WebAuthn, the
// challenge the UTF-8 bytes of the body's lowercase hex SHA-256), for this page's host as the
// relying party. And the creation of a new passkey, in the attestation shape create_authenticators takes.
import { WebauthnStamper } from '@turnkey/webauthn-stamper';
import { base64url, type Stamper } from './stamper.ts';

/**
 * Stamps with a passkey of this page's host. Exclusive: one request at a time, from the assertion to
 * the answer (the browser allows one pending assertion, and Signet refuses an assertion whose
 * signature counter is not above the last one it accepted, so they must arrive in order).
 */
export function passkeyStamper(): Stamper {
  const stamper = new WebauthnStamper({ rpId: location.hostname, userVerification: 'preferred' });
  return {
    exclusive: true,
    async stamp(body) {
      const { stampHeaderName, stampHeaderValue } = await stamper.stamp(body);
      return { name: stampHeaderName, value: stampHeaderValue };
    },
  };
}

const TRANSPORTS: Record<string, string> = {
  internal: 'AUTHENTICATOR_TRANSPORT_INTERNAL',
  usb: 'AUTHENTICATOR_TRANSPORT_USB',
  nfc: 'AUTHENTICATOR_TRANSPORT_NFC',
  ble: 'AUTHENTICATOR_TRANSPORT_BLE',
  hybrid: 'AUTHENTICATOR_TRANSPORT_HYBRID',
};

export interface NewPasskey {
  authenticatorName: string;
  challenge: string;
  attestation: { credentialId: string; clientDataJson: string; attestationObject: string; transports: string[] };
}

/** Asks the browser for a new discoverable passkey of this page's host for the user. */
export async function createPasskey(user: { userId: string; userName: string }, authenticatorName: string): Promise<NewPasskey> {
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const credential = (await navigator.credentials.create({
    publicKey: {
      challenge,
      rp: { id: location.hostname, name: 'Signet' },
      user: { id: new TextEncoder().encode(user.userId), name: user.userName, displayName: user.userName },
      // ES256 first; RS256 for authenticators that only make RSA keys (Windows Hello's, among others).
      pubKeyCredParams: [
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -257 },
      ],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      attestation: 'none',
      timeout: 120_000,
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new Error('no passkey was created');
  const response = credential.response as AuthenticatorAttestationResponse;
  const transports = (response.getTransports?.() ?? []).map((t) => TRANSPORTS[t]).filter((t): t is string => t !== undefined);
  return {
    authenticatorName,
    challenge: base64url(challenge),
    attestation: {
      credentialId: base64url(new Uint8Array(credential.rawId)),
      clientDataJson: base64url(new Uint8Array(response.clientDataJSON)),
      attestationObject: base64url(new Uint8Array(response.attestationObject)),
      transports,
    },
  };
}
