// Authenticates an attested stamp (X-Stamp-Attested, stamp_login only): the verification token is
// one Signet issued, unexpired and bound to the stamp's key, which signed the raw body; the principal
// is the user whose contact the token names. Whether the token was used already is checked by the
// statements of the request (store/credentials.ts), and the login's own statement uses it up, so a
// token logs in once even when two requests carry it at once.
import type { KeyObject } from 'node:crypto';
import type { Principal } from './principal.ts';
import { tokenReaches } from './tokenScope.ts';
import { invalidArgument, permissionDenied, SignetError, unauthenticated } from '../errors.ts';
import { p256PointHex } from '../keys/p256.ts';
import { readVerificationToken, verifiedContact, type ReadVerificationClaims } from '../otp/verificationToken.ts';
import type { Queryable } from '../store/db.ts';
import { findSubOrganizationUsersByProvenContact, findUser, findUserByContact, type UserRecord } from '../store/users.ts';
import { ATTESTED_HEADER, ATTESTED_SCHEME, type AttestedStamp } from './parseStamp.ts';
import { verifyApiKeyStamp } from './verifyApiKeyStamp.ts';
import { UUID_PATTERN } from '../wire/uuid.ts';

/** A public key that verifies what its purpose signed (retired keys included): verification tokens' keys here. */
export interface VerifyingKey {
  kid: string;
  publicKey: KeyObject;
}

/**
 * 401 for a token that is not Signet's, has expired or is bound to another key (or none), a stamp
 * key that is not a point on the curve, a bad signature, or a contact no user of the organization has; 403 for a token of another organization.
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
    const message = `${ATTESTED_HEADER} publicKeyAttestation: ${reading.problem}`;
    throw /has expired/.test(reading.problem) ? unauthenticated(message, 'expired', 'VERIFICATION_TOKEN_EXPIRED') : unauthenticated(message, 'unknown_credential');
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
  if (!UUID_PATTERN.test(token.id)) throw unauthenticated(`${ATTESTED_HEADER} publicKeyAttestation: the verification token has no usable id`, 'unknown_credential');
  // parseStamp checked the key's form (hex of either SEC1 spelling), not that it is a point on the curve.
  const stampPoint = p256PointHex(stamp.publicKey);
  if (!stampPoint) {
    throw unauthenticated(
      `${ATTESTED_HEADER} publicKey is not a point on the P-256 curve; stamp with the key pair whose public key was given to verify_otp`,
      'malformed',
    );
  }
  const stampKey = stampPoint.compressed;
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
    if (error instanceof SignetError) throw new SignetError(error.reason, `${ATTESTED_HEADER}: ${error.message}`, { stampFailure: error.stampFailure });
    throw error;
  }

  const { organizationId: userOrganizationId, user, contact } = await attestedUser(db, token, organizationId);
  return {
    organizationId: userOrganizationId,
    // Sent to a parent, for the user of one of its sub-organizations: the request acts there.
    ...(userOrganizationId !== organizationId.toLowerCase() ? { actsIn: userOrganizationId } : {}),
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
    attestedContact: contact,
    credential: { kind: 'verificationToken', tokenId: token.id, expiresAt: token.expiresAt, now: options.now },
  };
}

/**
 * The user an attested stamp stands for, and its organization: the user whose email or phone number
 * the token names, in the requested organization, which is the one the token was issued in or one of
 * that organization's sub-organizations (a parent's token logs into its sub-organizations). Sent to a
 * parent with no such user, the user of the one sub-organization that has the contact **proven**
 * (a copy of it that no one proved, which anyone may type on a user of their own sub-organization, is
 * not looked at). The one place that says whom a token may log in.
 */
async function attestedUser(
  db: Queryable,
  token: ReadVerificationClaims,
  requested: string,
): Promise<{ organizationId: string; user: UserRecord; contact: { email: string } | { phoneNumber: string } }> {
  const issuedIn = token.organizationId.toLowerCase();
  const wanted = requested.toLowerCase();
  // Compared here first, so a malformed id cannot become a database error.
  if (!(await tokenReaches(db, issuedIn, wanted))) {
    const shown = requested.length > 64 ? `${requested.slice(0, 64)}…` : requested;
    throw permissionDenied(
      'WRONG_ORGANIZATION',
      `${ATTESTED_HEADER}: the verification token was issued in organization ${token.organizationId}, not ${shown} nor its parent; ` +
        'set organizationId to the organization where the code was verified, or to one of its sub-organizations',
      'wrong_organization',
    );
  }
  const contact = verifiedContact(token);
  const named = 'email' in contact ? `email address ${contact.email}` : `phone number ${contact.phoneNumber}`;
  const userOf = async (organizationId: string, userId: string | undefined) => (userId === undefined ? undefined : findUser(db, organizationId, userId));
  const own = await userOf(wanted, (await findUserByContact(db, wanted, contact))?.id);
  if (own) return { organizationId: wanted, user: own, contact };
  if (issuedIn === wanted) {
    const found = await findSubOrganizationUsersByProvenContact(db, wanted, contact, 2);
    if (found.length > 1) {
      // The other sub-organizations are not named: the holder of the token learns only that it must choose.
      throw invalidArgument(
        `${ATTESTED_HEADER}: several sub-organizations of ${token.organizationId} have a user who proved the ${named}; ` +
          'set organizationId to the one to log into',
      );
    }
    const [only] = found;
    const user = only && (await userOf(only.organizationId, only.userId));
    if (only && user) return { organizationId: only.organizationId, user, contact };
  }
  throw unauthenticated(
    `${ATTESTED_HEADER}: no user of organization ${requested} has the ${named} the verification token names` +
      `${issuedIn === wanted ? ', nor a user of its sub-organizations who proved it' : ''}; ` +
      `create the user first (create_users with ${'email' in contact ? 'userEmail' : 'userPhoneNumber'}, or create_sub_organization with the token), then log in`,
    'unknown_credential',
  );
}
