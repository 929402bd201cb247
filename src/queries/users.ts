// whoami, get_user and list_users (@turnkey/http's getWhoami, getUser and getUsers): who stamped the
// request, and the organization's users (not removed) with their tags and the credentials they may
// still use, in the ecosystem's v1User shape (render.ts's userJson).
import { z } from 'zod';
import { userSchema } from '../activities/wire/activitySchema.ts';
import { userFieldsOf, userJson } from '../activities/wire/render.ts';
import { notFound } from '../errors.ts';
import { findUserFor, findWhoamiFor, listUsersFor, type UserWithCredentials } from '../store/users.ts';
import { granted, type QueryHandler } from './query.ts';

/** list_users answers this many users at most: the oldest, not removed (the ecosystem's request has no pages). */
export const LIST_USERS_LIMIT = 1000;
/** A user object lists this many API keys, and this many authenticators, at most (get_api_keys and get_authenticators list them all). */
export const USER_CREDENTIALS_LIMIT = 10;

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');
const example = { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' };

const render = (user: UserWithCredentials) => userJson(userFieldsOf(user), user);

export const whoami: QueryHandler = {
  path: 'whoami',
  description:
    "Who stamped the request (`@turnkey/http`'s `getWhoami`): the user of the stamping API key, session key or passkey, and its organization. " +
    "A sub-organization's credential may send its parent's id: the answer names the sub-organization.",
  example,
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({
    organizationId: z.uuid().describe('Unique identifier of the organization'),
    organizationName: z.string().describe('Name of the organization'),
    userId: z.uuid().describe('Unique identifier of the user whose credential stamped the request'),
    username: z.string().describe('Name of that user'),
  }),
  fromSubOrganization: true,
  async run(context) {
    // Always about the stamp's own user and organization: a parent's credential in a sub-organization,
    // and a sub-organization's credential with its parent's id, learn who they are.
    const { userId, organizationId } = context.principal;
    const { whoami: found } = granted(context, await findWhoamiFor(context.db, context.principal.credential, organizationId, userId));
    // A removed user's credentials are revoked with it, so the statement refused the credential first.
    if (!found) throw notFound('USER_NOT_FOUND', `no user ${userId} in organization ${organizationId}`);
    return { organizationId, organizationName: found.organizationName, userId, username: found.userName };
  },
};

export const getUser: QueryHandler = {
  path: 'get_user',
  description:
    `One user of the organization (\`@turnkey/http\`'s \`getUser\`), with its tag ids and the credentials it may still use: ` +
    `the first ${USER_CREDENTIALS_LIMIT} API keys and session keys neither revoked nor expired, the first ${USER_CREDENTIALS_LIMIT} passkeys not revoked and the first ${USER_CREDENTIALS_LIMIT} OAuth providers (oldest first; get_api_keys and get_authenticators list them all). ` +
    'A removed user, or another organization\'s, is a 404.',
  example: { ...example, userId: '4b1e6d3c-8a2f-4c5e-9d7b-1a2b3c4d5e6f' },
  request: z.strictObject({
    organizationId,
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe("The user to read; a removed user, or another organization's, is a 404"),
  }),
  answer: z.strictObject({ user: userSchema }),
  async run(context, query: { organizationId: string; userId: string }) {
    const { user } = granted(
      context,
      await findUserFor(context.db, context.principal.credential, { ...query, now: context.now, credentialsLimit: USER_CREDENTIALS_LIMIT }),
    );
    if (!user) throw notFound('USER_NOT_FOUND', `no user ${query.userId} in organization ${query.organizationId}`);
    return `{"user":${render(user)}}`;
  },
};

export const listUsers: QueryHandler = {
  path: 'list_users',
  description:
    `The organization's users not removed (\`@turnkey/http\`'s \`getUsers\`), oldest first: the first ${LIST_USERS_LIMIT} at most, ` +
    `as the ecosystem's request has no pages. Each as get_user answers it.`,
  example,
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({
    users: z.array(userSchema).max(LIST_USERS_LIMIT).describe(`The organization's users not removed, oldest first: the first ${LIST_USERS_LIMIT} at most`),
  }),
  async run(context, query: { organizationId: string }) {
    const { users } = granted(
      context,
      await listUsersFor(context.db, context.principal.credential, {
        organizationId: query.organizationId,
        now: context.now,
        limit: LIST_USERS_LIMIT,
        credentialsLimit: USER_CREDENTIALS_LIMIT,
      }),
    );
    return `{"users":[${users!.map(render).join(',')}]}`;
  },
};
