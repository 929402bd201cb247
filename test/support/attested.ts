// X-Stamp-Attested as @turnkey/core's AttestedStamper builds it, for tests of stamp_login.
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import type { generateP256KeyPair } from '@turnkey/crypto';
import { stringToBase64urlString } from '@turnkey/encoding';

type KeyPair = ReturnType<typeof generateP256KeyPair>;

/**
 * X-Stamp-Attested as @turnkey/core's AttestedStamper builds it: {publicKeyAttestation, scheme,
 * publicKey, signature} as JSON, base64url without padding (@turnkey/encoding), the signature the
 * key's DER signature over the body in hex.
 */
export function attestedStamper(verificationToken: string, key: KeyPair, overrides: { publicKey?: string; sign?: (payload: string) => Promise<string> } = {}) {
  const signer = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  return {
    async stamp(payload: string) {
      const stamp = {
        publicKeyAttestation: verificationToken,
        scheme: 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN',
        publicKey: overrides.publicKey ?? key.publicKey,
        signature: await (overrides.sign ?? ((p: string) => signer.sign(p, SignatureFormat.Der)))(payload),
      };
      return { stampHeaderName: 'X-Stamp-Attested', stampHeaderValue: stringToBase64urlString(JSON.stringify(stamp)) };
    },
  };
}

