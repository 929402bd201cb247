// The delete_authenticators activity (ACTIVITY_TYPE_DELETE_AUTHENTICATORS): revokes passkeys of a
// user of the organization. A passkey is never deleted, since votes name the credentials that
// stamped them: it is revoked, and every statement stamped with it from then on, in any process,
// refuses it.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { passkeys } from './credentialKinds.ts';
import { idList } from '../../wire/parameters.ts';
import { userIdParameter } from '../users/userChanges.ts';

export const MAX_DELETED_AUTHENTICATORS = 100;

const parameters = z.strictObject({
  userId: userIdParameter.describe('The user of the organization whose passkeys these are'),
  authenticatorIds: idList('an authenticator id', 'authenticator ids')
    .min(1, 'must list at least one authenticator id')
    .max(MAX_DELETED_AUTHENTICATORS, `may hold at most ${MAX_DELETED_AUTHENTICATORS} authenticator ids`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a passkey twice')
    .describe(`Passkeys of the user to revoke, 1 to ${MAX_DELETED_AUTHENTICATORS}, each not revoked yet; any other is a 404 and nothing is revoked`),
});

const resultSchema = z.strictObject({ authenticatorIds: z.array(z.uuid()).describe('The revoked passkeys, as listed') });

export const deleteAuthenticators: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_authenticators',
  activityType: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS',
  resource: 'CREDENTIAL',
  action: 'DELETE',
  reasons: ['AUTHENTICATOR_NOT_FOUND'],
  summary: '`{userId, authenticatorIds}`, 1 to 100: revokes passkeys of the user at once; result `deleteAuthenticatorsResult {authenticatorIds}`',
  description:
    "Revokes passkeys of a user of the organization at once (they are kept, revoked, since votes name them). A passkey that is not the user's, or is revoked already, is a 404 naming it, and nothing is revoked.",
  intentKey: 'deleteAuthenticatorsIntent',
  resultKey: 'deleteAuthenticatorsResult',
  parameters,
  resultSchema,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', authenticatorIds: ['9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'] },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { userId } = intent;
    const ids = intent.authenticatorIds.map((id) => id.toLowerCase());
    return {
      result: { authenticatorIds: ids },
      effects: passkeys.revoke(organizationId, userId, ids, now, (i) => `parameters.authenticatorIds[${i}]`),
    };
  },
};
