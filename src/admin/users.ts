// Users for operators: create one with its contacts (checked by the rules of init_otp_auth's
// contact, so a verified OTP contact finds it), list, show and remove them. Removing a user revokes
// every credential it holds at once.
import { randomUUID } from 'node:crypto';
import { invalidArgument, invalidField, type SignetError } from '../errors.ts';
import { canonicalEmailAddress, emailAddressProblem, normalizePhoneNumber } from '../otp/contact.ts';
import type { Database, Queryable } from '../store/db.ts';
import type { Page, PageRequest } from '../store/pages.ts';
import {
  findUser,
  insertUser,
  listUsers as listStoredUsers,
  removeUser as removeStoredUser,
  RootQuorumMember,
  type UserRecord,
} from '../store/users.ts';
import type { AdminUser, RemovedUser } from './answers.ts';
import { requireOrganization, unknownUser } from './organizations.ts';

/** A user as the admin API shows it; a contact the user does not have is left out. */
function view(user: UserRecord): AdminUser {
  return {
    userId: user.id,
    userName: user.userName,
    ...(user.email !== null ? { email: user.email } : {}),
    ...(user.phoneNumber !== null ? { phoneNumber: user.phoneNumber } : {}),
    userTags: user.userTags,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}

/** The email in lowercase and the phone number in E.164, as they are stored and matched, or a 400 naming the field. */
export function userContacts(input: { email?: string; phoneNumber?: string }): { email?: string; phoneNumber?: string } {
  const contacts: { email?: string; phoneNumber?: string } = {};
  if (input.email !== undefined) {
    const problem = emailAddressProblem(input.email);
    if (problem) throw invalidField('email', `must be an email address: it ${problem}`);
    contacts.email = canonicalEmailAddress(input.email);
  }
  if (input.phoneNumber !== undefined) {
    const phone = normalizePhoneNumber(input.phoneNumber);
    if ('problem' in phone) throw invalidField('phoneNumber', `must be a phone number in international form: it ${phone.problem}`);
    contacts.phoneNumber = phone.e164;
  }
  return contacts;
}

/** The 400 for a contact another user of the organization (not removed) already has. */
function contactTaken(field: 'email' | 'phoneNumber', value: string): SignetError {
  const what = field === 'email' ? 'email address' : 'phone number';
  return invalidField(
    field,
    `${value} is already the ${what} of another user of this organization; a ${what} belongs to one user at most ` +
      '(remove that user first, or give another one)',
  );
}

/**
 * Creates the user. Its name defaults to its email, else its phone number, else "user". Inside a
 * transaction (organization create) pass it as `db`.
 */
export async function createUser(
  db: Queryable,
  organizationId: string,
  input: { userName?: string; email?: string; phoneNumber?: string },
): Promise<AdminUser> {
  const contacts = userContacts(input);
  await requireOrganization(db, organizationId);
  const userName = input.userName ?? contacts.email ?? contacts.phoneNumber ?? 'user';
  const inserted = await insertUser(db, { id: randomUUID(), organizationId, userName, ...contacts });
  if ('user' in inserted) return view(inserted.user);
  if (inserted.taken) throw contactTaken(inserted.taken, contacts[inserted.taken]!);
  // The holder was removed between the refusal and the look-up: the contact is free again.
  throw invalidField(contacts.email !== undefined ? 'email' : 'phoneNumber', 'was taken by a concurrent request; send the request again');
}

/** The organization's users not removed, newest first, in pages. */
export async function listUsers(db: Queryable, organizationId: string, page: PageRequest): Promise<Page<AdminUser>> {
  await requireOrganization(db, organizationId);
  const found = await listStoredUsers(db, organizationId, page);
  return { ...found, rows: found.rows.map(view) };
}

/** 404 for an unknown or removed user. */
export async function getUser(db: Queryable, organizationId: string, userId: string): Promise<AdminUser> {
  const user = await findUser(db, organizationId, userId);
  if (!user) throw unknownUser(organizationId, userId);
  return view(user);
}

/**
 * Removes the user and revokes all its API keys (session keys included) and authenticators at once.
 * A member of the root quorum is not removed (400): it is taken out of the quorum first, by the
 * quorum (update_root_quorum) or, when its root users lost their keys, by the operator (setRootQuorum),
 * so an organization is never locked out for good. 404 for an unknown or already removed user.
 */
export async function removeUser(
  db: Database,
  organizationId: string,
  userId: string,
): Promise<RemovedUser> {
  let removed;
  try {
    removed = await removeStoredUser(db, organizationId, userId);
  } catch (error) {
    if (!(error instanceof RootQuorumMember)) throw error;
    throw invalidArgument(
      `user ${userId} is a member of the root quorum of organization ${organizationId}; take it out of the quorum first ` +
        '(update_root_quorum or "signet quorum set"; without the root users\' keys, the operator\'s "signet org quorum"), then remove it',
    );
  }
  if (!removed) throw unknownUser(organizationId, userId);
  return {
    userId,
    removedAt: removed.removedAt.toISOString(),
    revokedApiKeys: removed.revokedApiKeys,
    revokedAuthenticators: removed.revokedAuthenticators,
  };
}
