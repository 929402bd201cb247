// The service's own signing keys, one per purpose, read from the store (created there on first use,
// sealed under the deployment secret) and then kept in memory: a key never changes once created, so
// signing costs no round trip. Their public halves are what /.well-known/signet-keys.json publishes.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { uncompressedPublicKeyHex } from '../../keys/p256.ts';
import { VERIFICATION_TOKEN_KEY } from '../../otp/verificationToken.ts';
import type { VerifyingKey } from '../../auth/authenticateAttested.ts';
import type { Database } from '../../store/db.ts';
import { activeSigningKey, listSigningKeys, type PublicKeyJwk } from '../../store/signingKeys.ts';

/** signing_keys.purpose of each key, and the name it is published under. */
export const SERVICE_KEYS = {
  /** Signs init_otp's otpEncryptionTargetBundle (encryptOtpCodeToBundle's signer override). */
  otpEncryptionBundle: { purpose: 'otp-encryption-bundle', published: 'otpEncryptionBundleSignerPublicKey' },
  /** Signs verify_otp's verificationToken (verifyOtpVerificationToken's override). */
  verificationToken: { purpose: VERIFICATION_TOKEN_KEY, published: 'verificationTokenSignerPublicKey' },
  /** Signs otp_login's session JWT (verifySessionJwtSignature's override). */
  session: { purpose: 'session', published: 'sessionSignerPublicKey' },
  /** Signs App Proofs (the signing half of the proofs' publicKey). */
  appProof: { purpose: 'app-proof', published: 'appProofSignerPublicKey' },
  /**
   * Signs export bundles and import bundles (decryptExportBundle's, encryptWalletToBundle's and
   * encryptPrivateKeyToBundle's signer override): the ecosystem verifies them against its signer
   * enclave's key, not the key of OTP bundles, so Signet keeps a key of its own for them.
   */
  enclaveSigner: { purpose: 'enclave-signer', published: 'enclaveSignerPublicKey' },
} as const;

export type ServiceKeyName = keyof typeof SERVICE_KEYS;

export interface ServiceKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicKeyJwk;
  /** Uncompressed SEC1 public key, lowercase hex (130 characters): what the ecosystem's verifiers take. */
  publicKeyHex: string;
}

export class ServiceKeys {
  private readonly loaded = new Map<string, Promise<ServiceKey>>();
  private readonly verifying = new Map<string, Promise<VerifyingKey[]>>();

  constructor(
    private readonly db: Database,
    private readonly secret: Buffer,
  ) {}

  /** The active key of a purpose (SERVICE_KEYS' purposes: 'verification-token', 'app-proof', …). */
  get(purpose: string, algorithm = 'ES256'): Promise<ServiceKey> {
    let key = this.loaded.get(purpose);
    if (!key) {
      key = activeSigningKey(this.db, this.secret, { purpose, algorithm }).then((k) => ({ ...k, publicKeyHex: uncompressedPublicKeyHex(k.publicJwk) }));
      this.loaded.set(purpose, key);
      // A failure (the database was away) is not remembered: the next request asks again.
      key.catch(() => this.loaded.delete(purpose));
    }
    return key;
  }

  /** The active key of each published purpose, created where missing. */
  async published(): Promise<Record<(typeof SERVICE_KEYS)[ServiceKeyName]['published'], string>> {
    const entries = await Promise.all(Object.values(SERVICE_KEYS).map(async ({ purpose, published }) => [published, (await this.get(purpose)).publicKeyHex] as const));
    return Object.fromEntries(entries) as Record<(typeof SERVICE_KEYS)[ServiceKeyName]['published'], string>;
  }

  /** The keys of a purpose as stored (retired ones too), none created: what exists now. */
  listed(purpose: string) {
    return listSigningKeys(this.db, purpose);
  }

  /** Every key of a purpose as a verifier (retired ones too), read once. */
  verifiers(purpose: string): Promise<VerifyingKey[]> {
    let keys = this.verifying.get(purpose);
    if (!keys) {
      // The active key first, so a purpose with no key yet gets one that the list then holds.
      keys = this.get(purpose).then(async () =>
        (await listSigningKeys(this.db, purpose)).map(({ kid, publicJwk }) => ({ kid, publicKey: createPublicKey({ key: { ...publicJwk }, format: 'jwk' }) })),
      );
      this.verifying.set(purpose, keys);
      keys.catch(() => this.verifying.delete(purpose));
    }
    return keys;
  }
}
