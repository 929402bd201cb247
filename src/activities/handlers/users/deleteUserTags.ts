// The delete_user_tags activity (ACTIVITY_TYPE_DELETE_USER_TAGS): removes tags of the organization,
// and so takes them from their users. The result names the users that had any of them, read before
// the write and checked again in its statement (a concurrent change of members refuses the request).
import { z } from 'zod';
import { concurrentChange, notFound } from '../../../errors.ts';
import { changeAuthority, check, lock, write } from '../../../store/effects.ts';
import { userTagMembers } from '../../../store/userTags.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList } from '../../wire/parameters.ts';

export const MAX_DELETED_USER_TAGS = 100;

const parameters = z.strictObject({
  userTagIds: idList('a user tag id', 'user tag ids')
    .min(1, 'must list at least one user tag id')
    .max(MAX_DELETED_USER_TAGS, `may hold at most ${MAX_DELETED_USER_TAGS} user tag ids`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a tag twice')
    .describe(`Tags of the organization to delete, 1 to ${MAX_DELETED_USER_TAGS}; another organization's is a 404`),
});

const resultSchema = z.strictObject({
  userTagIds: z.array(z.uuid()).describe('The deleted tags, as listed'),
  userIds: z.array(z.uuid()).describe('The users that had any of the deleted tags, once each, sorted'),
});

export const deleteUserTags: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_user_tags',
  activityType: 'ACTIVITY_TYPE_DELETE_USER_TAGS',
  resource: 'USER',
  action: 'DELETE',
  reasons: ['USER_TAG_NOT_FOUND'],
  summary: '`{userTagIds}`: deletes tags, taking them from their users; result `deleteUserTagsResult {userTagIds, userIds}` (the users that had them)',
  description:
    "Deletes tags of the organization, which takes them from their users; the result lists those users. A tag that is not the organization's is a 404 naming it.",
  intentKey: 'deleteUserTagsIntent',
  resultKey: 'deleteUserTagsResult',
  parameters,
  resultSchema,
  example: { userTagIds: ['7c3d2e1f-0a9b-4c8d-8e7f-6a5b4c3d2e1f'] },

  async execute(context, intent) {
    const { organizationId } = context;
    const userTagIds = intent.userTagIds.map((id) => id.toLowerCase());
    const userIds = await userTagMembers(context.db, organizationId, userTagIds);
    return {
      result: { userTagIds, userIds },
      effects: [
        // Tags are what consensus rules count.
        changeAuthority(organizationId),
        ...userTagIds.map((tagId, i) =>
          check('userTagOfOrganization', [organizationId, tagId], notFound('USER_TAG_NOT_FOUND', `parameters.userTagIds[${i}]: no user tag ${tagId} in organization ${organizationId}`)),
        ),
        check(
          'userTagMembersAre',
          [organizationId, userTagIds, userIds],
          concurrentChange('the users of these tags changed while they were being deleted; nothing was deleted, submit again'),
        ),
        // Members added meanwhile commit first, and this statement then sees them (the check above).
        lock('userTags', organizationId, userTagIds, 'update'),
        write('deleteUserTags', organizationId, userTagIds),
      ],
    };
  },
};
