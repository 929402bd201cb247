// What the activities that change a user share (update_user, update_user_email,
// update_user_phone_number, update_user_name): the user's id, its contacts in the stored form
// create_users gives them, a verification token proving a new contact, and the plan of the change:
// the user checked, new contacts free in the organization, the user's row (and tags) written with the
// activity in its one statement.
import { z } from 'zod';
import { invalidField, notFound, type SignetError } from '../../../errors.ts';
import { canonicalEmailAddress, normalizePhoneNumber } from '../../../otp/contact.ts';
import { MAX_VERIFICATION_TOKEN_LENGTH, readVerificationToken, VERIFICATION_TOKEN_KEY } from '../../../otp/verificationToken.ts';
import { changeAuthority, check, lock, take, write, type Effect } from '../../../store/effects.ts';
import type { UserChange } from '../../../store/users.ts';
import { RACED } from '../credentials/apiKeyParameters.ts';
import { tokenReaches } from '../../../auth/tokenScope.ts';
import type { ActivityPlan, ExecutionContext } from '../../handler.ts';

export const userIdParameter = z
  .uuid({ message: 'must be a user id (a UUID)' })
  .transform((id) => id.toLowerCase())
  .describe('The user of the organization (not removed) to change');

/**
 * Parameters as stored (ActivityHandler.redact): a verification token is a bearer secret, replaced by
 * "[redacted]" in the intent and the stored body. An activity carrying one cannot wait for approvals.
 */
export function redactVerificationToken(parameters: Record<string, unknown>): Record<string, unknown> {
  return typeof parameters.verificationToken === 'string' ? { ...parameters, verificationToken: '[redacted]' } : parameters;
}

export const verificationTokenParameter = z
  .string({ error: 'must be a string: the verificationToken that verify_otp returned for the new contact' })
  .min(1, 'must not be empty; give the verificationToken that verify_otp returned, or leave it out')
  .max(MAX_VERIFICATION_TOKEN_LENGTH, `is longer than ${MAX_VERIFICATION_TOKEN_LENGTH} characters`)
  .describe(
    "The verificationToken that verify_otp returned for the new contact (Signet's, unexpired, of this organization or its parent, unused): the contact then counts as verified. Each token is used once; not kept: the stored intent holds \"[redacted]\"",
  );

/** A user's email as stored: in lowercase; "" (remove it) as null. */
export function storedEmail(value: string): string | null {
  return value === '' ? null : canonicalEmailAddress(value);
}

/** A user's phone number as stored: E.164; "" (remove it) as null. Takes a value the userPhoneNumber schema accepted. */
export function storedPhoneNumber(value: string): string | null {
  return value === '' ? null : (normalizePhoneNumber(value) as { e164: string }).e164;
}

const TOKEN_FIELD = 'parameters.verificationToken';

/**
 * Reads the verification token given with a new contact (an email in lowercase or a phone number in
 * E.164; null when the contact is removed): of this organization or its parent (tokenReaches), and
 * returns what the activity's statement takes: the token's one use (refused when it was used before).
 * Throws a 400 naming the token when it cannot prove the contact.
 */
export async function contactProof(context: ExecutionContext, token: string, contact: { email: string | null } | { phoneNumber: string | null }): Promise<Effect> {
  const { organizationId, now } = context;
  const byEmail = 'email' in contact;
  const value = byEmail ? contact.email : contact.phoneNumber;
  const field = byEmail ? 'parameters.userEmail' : 'parameters.userPhoneNumber';
  if (value === null) throw invalidField(TOKEN_FIELD, `proves a contact, but ${field} is empty (the contact is removed); leave the token out`);
  const reading = readVerificationToken(token, await context.keys.verifiers(VERIFICATION_TOKEN_KEY), now);
  if ('problem' in reading) throw invalidField(TOKEN_FIELD, reading.problem);
  const claims = reading.claims;
  const expectedType = byEmail ? 'OTP_TYPE_EMAIL' : 'OTP_TYPE_SMS';
  if (claims.verificationType !== expectedType) {
    throw invalidField(TOKEN_FIELD, `was issued for a ${claims.verificationType} code, not ${expectedType}: verify the new ${byEmail ? 'email address' : 'phone number'} with init_otp and verify_otp`);
  }
  const named = byEmail ? canonicalEmailAddress(claims.contact) : (() => {
    const phone = normalizePhoneNumber(claims.contact);
    return 'e164' in phone ? phone.e164 : undefined;
  })();
  if (named !== value) {
    throw invalidField(TOKEN_FIELD, `was issued for another ${byEmail ? 'email address' : 'phone number'} than ${field}; verify ${value} with init_otp and verify_otp and give its token`);
  }
  if (!(await tokenReaches(context.db, claims.organizationId, organizationId))) {
    throw invalidField(TOKEN_FIELD, `was issued in organization ${claims.organizationId}, which is neither this organization nor its parent; verify the contact here`);
  }
  // Used by the activity's own statement: two changes with one token, even at once, make one.
  return take('verificationToken', [{ id: claims.id, organizationId, expiresAt: claims.expiresAt }, 'contact', context.activityId, now], () =>
    invalidField(TOKEN_FIELD, 'was already used; verify the contact again (init_otp, verify_otp) for a new token'),
  );
}

/** A change of a user by an activity: its fields (store's UserChange), its tags when they are replaced, and the proof of a new contact. */
export interface PlannedUserChange extends UserChange {
  /** The user's tags become exactly these (ids in lowercase, each once); undefined keeps them. */
  tagIds?: string[] | undefined;
  /** The take of the verification token proving the new contact (contactProof). */
  proof?: Effect | undefined;
}

/** The plan of changing the user `userId` (lowercase) of the organization: the result names the user. */
export function planUserChange(context: ExecutionContext, userId: string, change: PlannedUserChange): ActivityPlan<{ userId: string }> {
  const { organizationId, now } = context;
  const { tagIds, proof, ...fields } = change;
  const contact = {
    ...(typeof fields.email === 'string' ? { email: fields.email } : {}),
    ...(typeof fields.phoneNumber === 'string' ? { phoneNumber: fields.phoneNumber } : {}),
  };
  const changesTags = tagIds !== undefined && tagIds.length > 0;
  return {
    result: { userId },
    effects: [
      check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userId: no user ${userId} in organization ${organizationId} (or it was removed)`)),
      ...(tagIds ?? []).map((tagId, i) =>
        check('userTagOfOrganization', [organizationId, tagId], notFound('USER_TAG_NOT_FOUND', `parameters.userTagIds[${i}]: no user tag ${tagId} in organization ${organizationId}`)),
      ),
      ...(contact.email !== undefined || contact.phoneNumber !== undefined ? [take('userContacts', [organizationId, userId, contact], (detail) => contactTaken(detail, contact))] : []),
      // The token is used last: a change refused by another check leaves it usable.
      ...(proof ? [proof] : []),
      write('updateUser', organizationId, userId, fields, now),
      ...(tagIds !== undefined ? [write('keepUserTagMembers', userId, tagIds)] : []),
      ...(changesTags ? [write('insertUserTagMembers', tagIds.map((tagId) => ({ tagId, userId })))] : []),
      // Changes of one user run one after the other, each statement seeing what the one before wrote.
      lock('users', organizationId, [userId]),
      // A deletion of a tag running meanwhile waits for the new members (and removes them with the tag),
      // or commits first and this statement sees the tag gone (its check).
      ...(changesTags ? [lock('userTags', organizationId, tagIds, 'share')] : []),
      // A user's tags, email and name are what policies read of it (approvers' `tags`, `email`, `name`).
      ...(tagIds !== undefined || fields.email !== undefined || fields.userName !== undefined ? [changeAuthority(organizationId)] : []),
    ],
  };
}

/** The refusal when another user of the organization has the new contact (userContactsFree's detail). */
function contactTaken(detail: unknown, contact: { email?: string; phoneNumber?: string }): SignetError {
  const taken = (Array.isArray(detail) ? detail : []) as Array<{ field: 'email' | 'phoneNumber' }>;
  const first = taken[0]?.field;
  if (first === undefined) {
    const field = contact.email !== undefined ? 'parameters.userEmail' : 'parameters.userPhoneNumber';
    return invalidField(field, `the contact ${RACED}`);
  }
  const what = first === 'email' ? 'email address' : 'phone number';
  return invalidField(
    first === 'email' ? 'parameters.userEmail' : 'parameters.userPhoneNumber',
    `${contact[first]} is already the ${what} of another user of this organization; a ${what} belongs to one user at most`,
  );
}
