// The create_users activity (ACTIVITY_TYPE_CREATE_USERS_V4): users of the organization with their
// contacts, API keys, passkeys and tags, in the shape @turnkey/http's createUsers sends; all of them
// written with the activity in its one statement, after the checks that their contacts, keys and
// credentials are not taken and their tags are the organization's.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField, notFound, type FieldViolation } from '../../../errors.ts';
import { canonicalEmailAddress, emailAddressProblem, MAX_EMAIL_LENGTH, MAX_PHONE_INPUT_LENGTH, normalizePhoneNumber } from '../../../otp/contact.ts';
import { p256PointHex } from '../../../keys/p256.ts';
import type { NewApiKey } from '../../../store/apiKeys.ts';
import type { NewAuthenticator } from '../../../store/authenticators.ts';
import { changeAuthority, check, lock, take, write } from '../../../store/effects.ts';
import type { NewUser } from '../../../store/users.ts';
import { RACED, refusedFields, type ApiKeyParameter } from '../credentials/apiKeyParameters.ts';
import { apiKeys, MAX_CREDENTIALS, noRegistrations, passkeys, passkeysTaken, register, type AuthenticatorParameter } from '../credentials/credentialKinds.ts';
import { list, name, text } from '../../wire/parameters.ts';
import { bindingEffects, MAX_OAUTH_PROVIDERS_PER_USER, oauthProviderParameter, planOauthProviders, type OauthProviderParameter } from '../credentials/oauthProviders.ts';
import type { NewOauthProvider } from '../../../store/oauthProviders.ts';
import type { ActivityHandler, ExecutionContext } from '../../handler.ts';

// Bounds: one activity creates at most MAX_USERS users, each with at most MAX_CREDENTIALS keys and
// as many passkeys (credentialKinds.ts; each passkey's attestation is verified before anything is written).
export const MAX_USERS = 100;
/** An organization has at most this many users not removed (create_users refuses more). */
export const MAX_ORGANIZATION_USERS = 100;
/** Tags per user, and distinct tags in one request (each is checked in the activity's statement). */
export const MAX_USER_TAGS_PER_USER = 20;
export const MAX_REQUEST_USER_TAGS = 100;

// "" is taken as no contact: some clients send every field, empty when unknown.
export const userEmail = text(MAX_EMAIL_LENGTH, (v) => {
  const problem = v === '' ? undefined : emailAddressProblem(v);
  return problem && `must be an email address: it ${problem}`;
});
export const userPhoneNumber = text(MAX_PHONE_INPUT_LENGTH, (v) => {
  const phone = v === '' ? undefined : normalizePhoneNumber(v);
  return phone && 'problem' in phone ? `must be a phone number in international form (E.164): it ${phone.problem}` : undefined;
});

/** The fields of a new user that create_users and create_sub_organization's root users share. */
export const newUserFields = {
  userName: name.describe('Name of the user; not blank'),
  userEmail: userEmail
    .describe("Email address of the user, by which an OTP login finds it: stored in lowercase, as init_otp's contact is (every spelling of an address is one contact), and unique among the organization's users not removed; an empty string is none")
    .optional(),
  userPhoneNumber: userPhoneNumber
    .describe("Phone number of the user in international form, stored in E.164 (+14155552671); unique among the organization's users not removed; an empty string is none")
    .optional(),
  authenticators: list(passkeys.parameter, MAX_CREDENTIALS, 'authenticators'),
  oauthProviders: list(oauthProviderParameter, MAX_OAUTH_PROVIDERS_PER_USER, 'OAuth providers').describe(
    `OpenID Connect identities bound to the user, at most ${MAX_OAUTH_PROVIDERS_PER_USER}: {providerName, oidcToken}, each token of an issuer of SIGNET_OIDC_ISSUERS, verified (create_oauth_providers); missing means []`,
  ),
};

/** The user as stored and matched: the email in lowercase, the phone number in E.164 ("" is none). */
export function withCanonicalContacts<U extends { userEmail?: string | undefined; userPhoneNumber?: string | undefined }>({ userEmail, userPhoneNumber, ...rest }: U) {
  return {
    ...rest,
    ...(userEmail ? { userEmail: canonicalEmailAddress(userEmail) } : {}),
    ...(userPhoneNumber ? { userPhoneNumber: (normalizePhoneNumber(userPhoneNumber) as { e164: string }).e164 } : {}),
  };
}

const user = z
  .strictObject({
    ...newUserFields,
    apiKeys: list(apiKeys.parameter, MAX_CREDENTIALS, 'API keys'),
    userTags: list(
      z.uuid({ message: 'must be a user tag id (a UUID), as create_user_tag returned it' }).transform((id) => id.toLowerCase()),
      MAX_USER_TAGS_PER_USER,
      'user tag ids',
    ).describe(`Ids of tags of the organization to give the user (create_user_tag), at most ${MAX_USER_TAGS_PER_USER}; missing means []`),
  })
  .describe('A user to create: it needs at least one of apiKeys, authenticators, oauthProviders, userEmail or userPhoneNumber')
  // In the intent the contacts are as they are stored and matched.
  .transform(withCanonicalContacts);

/** A new user as the schemas give it: contacts canonical, keys and passkeys as sent. */
export interface NewUserParameters {
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys: ApiKeyParameter[];
  authenticators: AuthenticatorParameter[];
  oauthProviders: OauthProviderParameter[];
}

/**
 * Issues (at `users`) for what the users of one request may not share or lack: a contact or public
 * key given twice (once normalised), a user with no way to sign in. Paths name the field as the client wrote it.
 */
export function usersIssues(users: readonly NewUserParameters[], ctx: z.RefinementCtx, at = 'users'): void {
  // Each value's first field, named as the client wrote it (parameters.users[0].userEmail).
  const firstAt = new Map<string, string>();
  const once = (value: string, what: string, i: number, ...field: Array<string | number>) => {
    const first = firstAt.get(value);
    const name = `parameters.${at}[${i}]${field.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('')}`;
    if (first === undefined) firstAt.set(value, name);
    else ctx.addIssue({ code: 'custom', path: [at, i, ...field], message: `is the same ${what} as ${first}; each may appear once` });
  };
  users.forEach((u, i) => {
    if (u.userEmail) once(`email:${u.userEmail}`, 'email address', i, 'userEmail');
    if (u.userPhoneNumber) once(`phone:${u.userPhoneNumber}`, 'phone number', i, 'userPhoneNumber');
    u.apiKeys.forEach((k, j) => {
      const point = p256PointHex(k.publicKey);
      if (point) once(`key:${point.compressed}`, 'public key', i, 'apiKeys', j, 'publicKey');
    });
    if (!u.userEmail && !u.userPhoneNumber && u.apiKeys.length === 0 && u.authenticators.length === 0 && u.oauthProviders.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: [at, i],
        message: 'a user needs a way to sign in: give at least one of apiKeys, authenticators, oauthProviders, userEmail or userPhoneNumber',
      });
    }
  });
}

/**
 * `parameters` of create_users. Contacts and keys appear once in the request, once normalised: an
 * email in any letter case, a phone number in any typing, a public key in either form.
 */
export const createUsersParameters = z
  .strictObject({
    users: z
      .array(user, { error: 'must be an array of users' })
      .min(1, 'must list at least one user')
      .max(MAX_USERS, `may hold at most ${MAX_USERS} users`)
      .describe(`The users to create, 1 to ${MAX_USERS}; contacts, public keys and passkeys may each appear once in the request`),
  })
  .superRefine((p, ctx) => {
    usersIssues(p.users, ctx);
    const tags = new Set<string>();
    p.users.forEach((u, i) => {
      u.userTags.forEach((tagId, j) => {
        if (u.userTags.indexOf(tagId) !== j) {
          ctx.addIssue({ code: 'custom', path: ['users', i, 'userTags', j], message: 'lists this tag twice; each may appear once per user' });
        } else if (tags.has(tagId)) {
          return;
        } else if (tags.size >= MAX_REQUEST_USER_TAGS) {
          ctx.addIssue({ code: 'custom', path: ['users', i, 'userTags', j], message: `one request may name at most ${MAX_REQUEST_USER_TAGS} distinct user tags` });
        } else {
          tags.add(tagId);
        }
      });
    });
  });

export type CreateUsersIntent = z.output<typeof createUsersParameters>;

/** Where each stored value came from in the request, to name the field when the store refuses it. */
export interface Origins {
  contacts: Array<{ email?: string | undefined; phoneNumber?: string | undefined }>;
  publicKeys: Map<string, string[]>;
  credentialIds: Map<string, string[]>;
}

const resultSchema = z.strictObject({ userIds: z.array(z.uuid()).describe('Identifiers of the created users, in the order given') });

export const createUsers: ActivityHandler<typeof createUsersParameters, z.infer<typeof resultSchema>> = {
  path: 'create_users',
  activityType: 'ACTIVITY_TYPE_CREATE_USERS_V4',
  resource: 'USER',
  action: 'CREATE',
  reasons: ['USER_TAG_NOT_FOUND', 'PUBLIC_KEY_TAKEN', 'OIDC_TOKEN_REFUSED', 'OAUTH_PROVIDER_TAKEN', 'OIDC_ISSUER_UNAVAILABLE'],
  summary:
    'Creates users of the organization with their email, phone number, API keys, passkeys, OAuth providers and tags; result `createUsersResult.userIds` ([Users](users.md#users))',
  description:
    "Creates users of the organization with their email, phone number, API keys, passkeys, OAuth providers (id tokens of SIGNET_OIDC_ISSUERS, verified) and user tags (as `@turnkey/http`'s `createUsers` sends them), all written with the activity in one statement; refused with a 400 naming the field when a contact, key, passkey or identity is taken or given twice, or a token is refused, a 404 naming it when a tag is not the organization's.",
  intentKey: 'createUsersIntentV4',
  resultKey: 'createUsersResult',
  parameters: createUsersParameters,
  resultSchema,
  example: {
    users: [
      {
        userName: 'Alice',
        userEmail: 'alice@example.com',
        apiKeys: [
          {
            apiKeyName: 'laptop',
            publicKey: '026cac77062de3c321682a30e33ff9732f50b8c7bab6434b3d05a8567fc081ab7f',
            curveType: 'API_KEY_CURVE_P256',
            expirationSeconds: '31536000',
          },
        ],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      },
    ],
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { users, keys, authenticators, oauthProviders, origins } = await planNewUsers(context, intent.users);

    // Each tag once, with the first field that names it, for the refusal when it is not the organization's.
    const tagFields = new Map<string, string>();
    const members: Array<{ tagId: string; userId: string }> = [];
    for (const [i, params] of intent.users.entries()) {
      const userId = users[i]!.id;
      for (const [j, tagId] of params.userTags.entries()) {
        if (!tagFields.has(tagId)) tagFields.set(tagId, `parameters.users[${i}].userTags[${j}]`);
        members.push({ tagId, userId });
      }
    }

    const tagIds = [...tagFields.keys()];
    return {
      result: { userIds: users.map((u) => u.id) },
      effects: [
        check(
          'usersWithin',
          [organizationId, users.length, MAX_ORGANIZATION_USERS],
          invalidField(
            'parameters.users',
            `an organization has at most ${MAX_ORGANIZATION_USERS} users (not removed), and these ${users.length} would make more; remove users first (delete_users)`,
          ),
        ),
        ...tagIds.map((tagId) =>
          check('userTagOfOrganization', [organizationId, tagId], notFound('USER_TAG_NOT_FOUND', `${tagFields.get(tagId)}: no user tag ${tagId} in organization ${organizationId}`)),
        ),
        ...(origins.contacts.some((c) => c.email !== undefined || c.phoneNumber !== undefined)
          ? [take('usersContacts', [organizationId, origins.contacts], (detail) => contactsTaken(detail, origins))]
          : []),
        ...(keys.length > 0 ? [apiKeys.take(organizationId, origins.publicKeys, 'parameters.users')] : []),
        ...(authenticators.length > 0 ? [passkeys.take(organizationId, origins.credentialIds, 'parameters.users')] : []),
        write('insertUsers', organizationId, users, now),
        ...(keys.length > 0 ? [apiKeys.write(organizationId, keys, now)] : []),
        ...(authenticators.length > 0 ? [passkeys.write(organizationId, authenticators, now)] : []),
        ...(members.length > 0 ? [write('insertUserTagMembers', members)] : []),
        ...bindingEffects(organizationId, oauthProviders, now),
        // A deletion of a tag running meanwhile either waits for these members (and then removes them
        // with the tag) or commits first, and this statement then sees the tag gone (its check).
        // Concurrent creations count the organization's users one after the other.
        lock('organizationUsers', organizationId),
        ...(tagIds.length > 0 ? [lock('userTags', organizationId, tagIds, 'share')] : []),
        // Tags given to users change what consensus rules count.
        ...(members.length > 0 ? [changeAuthority(organizationId)] : []),
      ],
    };
  },
};

/**
 * The rows of new users (`at`: their field in parameters): each with a new id, its API keys, its
 * passkeys and its OAuth providers, each passkey's attestation and each provider's id token verified
 * (a 400 naming it otherwise, or when two register one credential or bind one identity).
 */
export async function planNewUsers(
  context: Pick<ExecutionContext, 'now' | 'config' | 'oidc'>,
  params: readonly NewUserParameters[],
  at = 'users',
): Promise<{ users: NewUser[]; keys: NewApiKey[]; authenticators: NewAuthenticator[]; oauthProviders: { rows: NewOauthProvider[]; fields: string[] }; origins: Origins }> {
  const users: NewUser[] = [];
  const contacts: Origins['contacts'] = [];
  const keys = noRegistrations<NewApiKey>();
  const authenticators = noRegistrations<NewAuthenticator>();
  for (const [i, user] of params.entries()) {
    const userId = randomUUID();
    users.push({ id: userId, userName: user.userName, email: user.userEmail, phoneNumber: user.userPhoneNumber });
    contacts.push({ email: user.userEmail, phoneNumber: user.userPhoneNumber });
    await register(apiKeys, context, user.apiKeys, userId, (j) => `parameters.${at}[${i}].apiKeys[${j}]`, keys);
    await register(passkeys, context, user.authenticators, userId, (j) => `parameters.${at}[${i}].authenticators[${j}]`, authenticators);
  }
  const oauthProviders = await planOauthProviders(
    context.oidc,
    params.flatMap((user, i) => user.oauthProviders.map((parameter, j) => ({ parameter, userId: users[i]!.id, field: `parameters.${at}[${i}].oauthProviders[${j}]` }))),
  );
  return {
    users,
    keys: keys.rows,
    authenticators: authenticators.rows,
    oauthProviders,
    origins: { contacts, publicKeys: keys.fields, credentialIds: authenticators.fields },
  };
}

function refused(violations: FieldViolation[], fallback: string) {
  return refusedFields(violations, 'parameters.users', fallback);
}

function contactsTaken(detail: unknown, origins: Origins) {
  const taken = (Array.isArray(detail) ? detail : []) as Array<{ index: number; field: 'email' | 'phoneNumber' }>;
  return refused(
    taken.map(({ index, field }) => {
      const value = origins.contacts[index]?.[field] ?? '';
      const what = field === 'email' ? 'email address' : 'phone number';
      return {
        field: `parameters.users[${index}].${field === 'email' ? 'userEmail' : 'userPhoneNumber'}`,
        description: `${value} is already the ${what} of another user of this organization; a ${what} belongs to one user at most`,
      };
    }),
    `a contact ${RACED}`,
  );
}

/** The refusal when some passkeys are registered already (the detail of store's credentialIdsFree), naming their fields. */
export function credentialsTaken(detail: unknown, origins: Origins) {
  return passkeysTaken(detail, origins.credentialIds, 'parameters.users');
}
