// The update_root_quorum activity (ACTIVITY_TYPE_UPDATE_ROOT_QUORUM): the organization's root quorum
// becomes the threshold and users given. The root quorum decides every activity it approves without
// consulting policies, so only the current root quorum may change it (rootQuorumOnly): no policy can
// allow it. The members are users of the organization not removed, named once, and 1 <= threshold
// <= their number; the quorum is replaced with the activity in one statement, after those checks.
import { z } from 'zod';
import { invalidField } from '../../../errors.ts';
import { changeAuthority, check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList } from '../../wire/parameters.ts';

/** Members a root quorum may have: a few people in practice; the bound keeps the request and its checks small. */
export const MAX_ROOT_QUORUM_USERS = 100;

/** What a root quorum is made of; the admin API's replacement (PUT …/root-quorum) takes it as its body too. */
export const rootQuorumParameters = z
  .strictObject({
    threshold: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_ROOT_QUORUM_USERS, `must be at most ${MAX_ROOT_QUORUM_USERS}`)
      .describe('How many of the users must approve for the root quorum to decide; 1 to the number of `userIds`'),
    userIds: idList('a user id', 'user ids')
      .min(1, 'must list at least one user')
      .max(MAX_ROOT_QUORUM_USERS, `may hold at most ${MAX_ROOT_QUORUM_USERS} user ids`)
      .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a user twice')
      .describe(`The users of the root quorum, 1 to ${MAX_ROOT_QUORUM_USERS}: users of the organization, not removed, each once`),
  })
  .refine((p) => !Array.isArray(p.userIds) || p.threshold <= p.userIds.length, {
    path: ['threshold'],
    message: 'must be at most the number of userIds',
  });

/** A root quorum as the queries and the admin API (…/root-quorum) answer it. */
export const rootQuorumSchema = z
  .strictObject({
    threshold: z.number().int().min(1).describe('How many of its users make the root quorum'),
    userIds: z.array(z.uuid()).describe('The users of the root quorum, oldest first; empty for an organization that had no user when quorums came in'),
  })
  .meta({ id: 'RootQuorum', description: "The organization's root quorum: its creator alone, threshold 1, unless the organization had none" });

const parameters = rootQuorumParameters;

const resultSchema = z.strictObject({}).describe('Empty: read the new quorum with get_organization_configs');

export const updateRootQuorum: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_root_quorum',
  activityType: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
  resource: 'ORGANIZATION',
  action: 'UPDATE',
  reasons: [],
  summary: '`{threshold, userIds}`: replaces the [root quorum](admin-api.md#root-quorum); decided by the root quorum alone; result `updateRootQuorumResult {}`',
  description:
    "Replaces the organization's root quorum with `threshold` and `userIds`. Decided by the current root quorum alone (no policy can allow it). " +
    'A threshold above the number of users, a user listed twice, or one that is not a user of the organization (or was removed) is a 400 naming the field.',
  intentKey: 'updateRootQuorumIntent',
  resultKey: 'updateRootQuorumResult',
  rootQuorumOnly: true,
  parameters,
  resultSchema,
  example: { threshold: 1, userIds: ['4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d'] },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const userIds = intent.userIds.map((id) => id.toLowerCase());
    return {
      result: {},
      effects: [
        changeAuthority(organizationId),
        ...userIds.map((userId, i) =>
          check('userActive', [organizationId, userId], invalidField(`parameters.userIds[${i}]`, `no user ${userId} in organization ${organizationId} (or it was removed); a root quorum is made of the organization's users`)),
        ),
        write('replaceRootQuorum', organizationId, { threshold: intent.threshold, userIds }, now),
      ],
    };
  },
};
