// The create_user_tag activity (ACTIVITY_TYPE_CREATE_USER_TAG): a named tag of the organization's
// users, given to the users listed (possibly none). Consensus rules name a tag by its id. The tag and
// its members are written with the activity in one statement, after the checks that the name is free,
// the organization has room and each user is one of its users not removed.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidArgument, invalidField, notFound } from '../../../errors.ts';
import { changeAuthority, check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList, trimmedName } from '../../wire/parameters.ts';

/** Tags an organization may have: consensus rules name a few; the bound keeps every list of them small. */
export const MAX_USER_TAGS = 1000;
/** Users one request may tag, as many as create_users creates at once. */
export const MAX_TAGGED_USERS = 100;
const MAX_TAG_NAME_LENGTH = 256;

const parameters = z.strictObject({
  userTagName: trimmedName(MAX_TAG_NAME_LENGTH).describe(`Name of the tag, 1 to ${MAX_TAG_NAME_LENGTH} characters once spaces around it are trimmed; unique in the organization`),
  userIds: idList('a user id', 'user ids')
    .max(MAX_TAGGED_USERS, `may hold at most ${MAX_TAGGED_USERS} user ids`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a user twice')
    .describe(`Users of the organization (not removed) to give the tag, at most ${MAX_TAGGED_USERS}; may be empty`),
});

const resultSchema = z.strictObject({
  userTagId: z.uuid().describe('Identifier of the new tag, by which consensus rules and create_users name it'),
  userIds: z.array(z.uuid()).describe('The users given the tag, as listed'),
});

export const createUserTag: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'create_user_tag',
  activityType: 'ACTIVITY_TYPE_CREATE_USER_TAG',
  resource: 'USER',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    "`{userTagName, userIds}`: a tag of the organization's users, given to those listed; result `createUserTagResult {userTagId, userIds}` ([tags](users.md#user-tags))",
  description:
    "Creates a tag of the organization's users and gives it to the users listed; the answer carries its id (`createUserTagResult.userTagId`). A name the organization already has is a 400, a user that is not one of the organization's (or was removed) a 404 naming it.",
  intentKey: 'createUserTagIntent',
  resultKey: 'createUserTagResult',
  parameters,
  resultSchema,
  example: { userTagName: 'approvers', userIds: ['4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d'] },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const userTagId = randomUUID();
    const userIds = intent.userIds.map((id) => id.toLowerCase());
    return {
      result: { userTagId, userIds },
      effects: [
        // Tags are what consensus rules count.
        changeAuthority(organizationId),
        check(
          'userTagNameFree',
          [organizationId, intent.userTagName],
          invalidField('parameters.userTagName', `the organization already has a tag named ${JSON.stringify(intent.userTagName)}; tag names are unique in an organization`),
        ),
        check('userTagsBelow', [organizationId, MAX_USER_TAGS], invalidArgument(`the organization has ${MAX_USER_TAGS} user tags, the most it may have; delete one first`)),
        ...userIds.map((userId, i) =>
          check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userIds[${i}]: no user ${userId} in organization ${organizationId} (or it was removed)`)),
        ),
        write('insertUserTag', { id: userTagId, organizationId, name: intent.userTagName, now }),
        ...(userIds.length > 0 ? [write('insertUserTagMembers', userIds.map((userId) => ({ tagId: userTagId, userId })))] : []),
      ],
    };
  },
};
