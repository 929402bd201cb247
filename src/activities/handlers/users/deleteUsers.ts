// The delete_users activity (ACTIVITY_TYPE_DELETE_USERS): removes users of the organization. A user
// is never deleted, since votes name their users: it is marked removed, and every API key, session
// key and passkey of its is revoked in the activity's statement, so each is refused at once by every
// process. A member of the root quorum is not removed: the quorum is changed first. A removed user no
// longer counts in any decision, so the activity changes the organization's authority.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { changeAuthority, check, lock, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList } from '../../wire/parameters.ts';

export const MAX_DELETED_USERS = 100;

const parameters = z.strictObject({
  userIds: idList('a user id', 'user ids')
    .min(1, 'must list at least one user id')
    .max(MAX_DELETED_USERS, `may hold at most ${MAX_DELETED_USERS} user ids`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a user twice')
    .describe(`Users of the organization to remove, 1 to ${MAX_DELETED_USERS}, none of them in the root quorum; an unknown or removed one is a 404 and nothing is removed`),
});

const resultSchema = z.strictObject({ userIds: z.array(z.uuid()).describe('The removed users, as listed') });

export const deleteUsers: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_users',
  activityType: 'ACTIVITY_TYPE_DELETE_USERS',
  resource: 'USER',
  action: 'DELETE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    '`{userIds}`, 1 to 100: removes the users and revokes their keys, sessions and passkeys at once; a root quorum member is a 400, an unknown user a 404; result `deleteUsersResult {userIds}`',
  description:
    "Removes users of the organization and revokes every API key, session and passkey of theirs at once (they are kept, removed, since votes name them). A member of the root quorum is a 400 (change the root quorum first); an unknown or removed user a 404; nothing is removed then.",
  intentKey: 'deleteUsersIntent',
  resultKey: 'deleteUsersResult',
  parameters,
  resultSchema,
  example: { userIds: ['4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d'] },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const userIds = intent.userIds.map((id) => id.toLowerCase());
    return {
      result: { userIds },
      effects: [
        ...userIds.flatMap((userId, i) => [
          check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userIds[${i}]: no user ${userId} in organization ${organizationId} (or it was removed)`)),
          check(
            'userOutsideRootQuorum',
            [organizationId, userId],
            invalidField(`parameters.userIds[${i}]`, 'is a member of the root quorum; change the root quorum first (update_root_quorum), then remove the user'),
          ),
        ]),
        // Writes holding one of the users (a key being registered for it) commit first: the statement's revocations see them.
        lock('users', organizationId, userIds),
        write('removeUsers', organizationId, userIds, now),
        // A removed user no longer counts as an approver, nor as a member of its tags.
        changeAuthority(organizationId),
      ],
    };
  },
};
