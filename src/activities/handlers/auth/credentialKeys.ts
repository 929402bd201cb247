// What the activities that give a key in a credential bundle share (otp_auth, email_auth,
// create_read_write_session): the client's target key as a parameter, and the plan that makes a new
// expiring API key of a user, its private half sealed to that target (otp/credentialBundle.ts) and
// its public half registered, ending the user's other keys of the same kind when asked.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { P256_PUBLIC_KEY_PATTERN, p256PointHex } from '../../../keys/p256.ts';
import { sealNewCredential } from '../../../otp/credentialBundle.ts';
import { lock, write, type Effect } from '../../../store/effects.ts';
import type { ExecutionContext } from '../../handler.ts';

/** The client's P-256 key the new key's private half is sealed to; kept as the client wrote it. */
export const targetPublicKeyParameter = z
  .string({ error: "must be a string: the client's P-256 public key in hex, to which the credential is encrypted" })
  .refine((v) => p256PointHex(v) !== undefined, 'must be a P-256 public key in hex: 66 characters (compressed) or 130 (uncompressed), a point on the curve')
  .meta({
    pattern: P256_PUBLIC_KEY_PATTERN,
    description:
      "The client's P-256 public key in hex (compressed or uncompressed), e.g. generateP256KeyPair's: the new API key's private half is encrypted to it (credentialBundle), which decryptCredentialBundle opens with its private half",
  });

/** The kinds of key a credential bundle carries, each with its own invalidateExisting. */
type BundledKeyKind = 'otp_auth' | 'email_auth' | 'session' | 'recovery';

/** The write that ends the user's other keys of each kind (invalidateExisting). */
const REVOKE_OTHERS = { session: 'revokeOtherSessionKeys', otp_auth: 'revokeOtherOtpAuthKeys', email_auth: 'revokeOtherEmailAuthKeys', recovery: 'revokeOtherRecoveryKeys' } as const;

export interface BundledKey {
  apiKeyId: string;
  /** The key's private half sealed to the target: for the answer only (a secret field). */
  credentialBundle: string;
  /** Compressed hex of the key's public half, as registered. */
  publicKey: string;
  effects: Effect[];
}

/**
 * A new API key of `userId` of kind `kind`, named `name`, expiring after `expirationSeconds`: its
 * private half sealed to `targetPublicKey`, its row written by the activity's statement; with
 * `invalidateExisting`, the user's other live keys of that kind revoked in the same statement. The
 * caller adds the check that the user is still there.
 */
export async function planBundledKey(
  context: ExecutionContext,
  key: { userId: string; kind: BundledKeyKind; name: string; targetPublicKey: string; expirationSeconds: string; invalidateExisting: boolean },
): Promise<BundledKey> {
  const { organizationId, now } = context;
  const credential = await sealNewCredential(key.targetPublicKey);
  const apiKeyId = randomUUID();
  const row = {
    id: apiKeyId,
    userId: key.userId,
    name: key.name,
    publicKey: credential.publicKey,
    expiresAt: new Date(now.getTime() + Number(key.expirationSeconds) * 1000),
    kind: key.kind,
  };
  const keep = { organizationId, userId: key.userId, keepPublicKey: credential.publicKey, now };
  return {
    apiKeyId,
    credentialBundle: credential.credentialBundle,
    publicKey: credential.publicKey,
    effects: [
      write('insertApiKeys', organizationId, [row], now),
      ...(key.invalidateExisting
        ? [
            write(REVOKE_OTHERS[key.kind], keep),
            // Ending the other keys and making this one is one step per user: a concurrent request
            // holding the lock commits its key first, and this statement then sees it and ends it.
            lock('userApiKeys', organizationId, key.userId),
          ]
        : []),
    ],
  };
}
