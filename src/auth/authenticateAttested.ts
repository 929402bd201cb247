// Authenticates an attested stamp (X-Stamp-Attested, stamp_login only): the verification token is
// one Signet issued, unexpired and bound to the stamp's key, which signed the raw body; the principal
// is the user whose contact the token names. Whether the token was used already is checked by the
// statements of the request (store/credentials.ts), and the login's own statement uses it up, so a
// token logs in once even when two requests carry it at once.
import type { Principal } from '../activities/handler.ts';
import type { VerifyingKey } from '../activities/serviceKeys.ts';
import { permissionDenied, SignetError, unauthenticated } from '../errors.ts';
import { p256PointHex } from '../keys/p256.ts';
import { readVerificationToken, verifiedContact, type ReadVerificationClaims } from '../otp/verificationToken.ts';
import type { Queryable } from '../store/db.ts';
import { findUser, findUserByContact, type UserRecord } from '../store/users.ts';
import { ATTESTED_HEADER, ATTESTED_SCHEME, type AttestedStamp } from './parseStamp.ts';
import { verifyApiKeyStamp } from './verifyApiKeyStamp.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * 401 for a token that is not Signet's, has expired or is bound to another key (or none), a bad
 * signature, or a contact no user of the organization has; 403 for a token of another organization.
 */
export async function authenticateAttested(
  db: Queryable,
  body: Buffer,
  stamp: AttestedStamp,
  organizationId: string,
  options: { now: Date; verificationTokenKeys: () => Promise<VerifyingKey[]> },
): Promise<Principal> {
  // Everything but the user is checked without the database, so forged stamps cost no query.
  const reading = readVerificationToken(stamp.publicKeyAttestation, await options.verificationTokenKeys(), options.now);
  if ('problem' in reading) {
    throw unauthenticated(`${ATTESTED_HEADER} publicKeyAttestation: ${reading.problem}`, /has expired/.test(reading.problem) ? 'expired' : 'unknown_credential');
  }
  const token = reading.claims;
  if (token.publicKey === undefined) {
    throw unauthenticated(
      `${ATTESTED_HEADER} publicKeyAttestation: the verification token is bound to no key, so no stamp can be attested by it; ` +
        'verify the code with verify_otp V2 (encryptedOtpBundle), or V1 with publicKey, and stamp with that key',
      'unknown_credential',
    );
  }
  // Signet issues its tokens with UUIDs; the id is what the vote names as the credential.
  if (!UUID.test(token.id)) throw unauthenticated(`${ATTESTED_HEADER} publicKeyAttestation: the verification token has no usable id`, 'unknown_credential');
  const stampKey = p256PointHex(stamp.publicKey)!.compressed;
  if (p256PointHex(token.publicKey)?.compressed !== stampKey) {
    throw unauthenticated(
      `${ATTESTED_HEADER} publicKey ${stampKey} is not the key the verification token is bound to; ` +
        'stamp with the key pair whose public key was given to verify_otp',
      'bad_signature',
    );
  }
  try {
    await verifyApiKeyStamp(body, { kind: 'apiKey', publicKey: stamp.publicKey, signature: stamp.signature, scheme: 'SIGNATURE_SCHEME_TK_API_P256' });
  } catch (error) {
    if (error instanceof SignetError) throw unauthenticated(`${ATTESTED_HEADER}: ${error.message}`, error.stampFailure);
    throw error;
  }

  const user = await attestedUser(db, token, organizationId);
  return {
    organizationId: organizationId.toLowerCase(),
    userId: user.id,
    userName: user.userName,
    userEmail: user.email,
    userPhoneNumber: user.phoneNumber,
    userCreatedAt: user.createdAt,
    userUpdatedAt: user.updatedAt,
    scheme: ATTESTED_SCHEME,
    publicKey: stampKey,
    signature: stamp.signature,
    // A key vouched for by an OTP, as policies name such keys.
    credentialType: 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256',
    credential: { kind: 'verificationToken', tokenId: token.id, expiresAt: token.expiresAt, now: options.now },
  };
}

/**
 * The user an attested stamp stands for in `organizationId`: of the organization the token was
 * issued in, whose email or phone number the token names. The one place that says whom a token may
 * log in.
 */
async function attestedUser(db: Queryable, token: ReadVerificationClaims, organizationId: string): Promise<UserRecord> {
  // Compared here, not in SQL, so a malformed id cannot become a database error.
  if (token.organizationId.toLowerCase() !== organizationId.toLowerCase()) {
    const shown = organizationId.length > 64 ? `${organizationId.slice(0, 64)}…` : organizationId;
    throw permissionDenied(
      `${ATTESTED_HEADER}: the verification token was issued in organization ${token.organizationId}, not ${shown}; ` +
        'set organizationId to the organization where the code was verified',
      'wrong_organization',
    );
  }
  const contact = verifiedContact(token);
  const found = await findUserByContact(db, token.organizationId, contact);
  const user = found && (await findUser(db, token.organizationId, found.id));
  if (!user) {
    const named = 'email' in contact ? `email address ${contact.email}` : `phone number ${contact.phoneNumber}`;
    throw unauthenticated(
      `${ATTESTED_HEADER}: no user of organization ${token.organizationId} has the ${named} the verification token names; ` +
        `create the user first (create_users with ${'email' in contact ? 'userEmail' : 'userPhoneNumber'}), then log in`,
      'unknown_credential',
    );
  }
  return user;
}
