// The delete_sub_organization activity (ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION): submitted in the
// sub-organization itself. Its row is marked deleted and every API key (session keys too) and passkey
// of it revoked by the activity's statement, so its credentials are refused from the next request on;
// its users and activities stay, for the parent to audit. Signet keeps no keys for users, so there is
// nothing to export first and deleteWithoutExport changes nothing.
import { z } from 'zod';
import { invalidArgument } from '../../../errors.ts';
import { check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { trueOrFalse } from '../../wire/parameters.ts';

const parameters = z.strictObject({
  deleteWithoutExport: trueOrFalse()
    .describe('Accepted and echoed: Signet keeps no wallets or private keys for users, so there is nothing to export before deleting')
    .optional(),
});

const resultSchema = z.strictObject({ subOrganizationUuid: z.uuid().describe('Identifier of the deleted sub-organization') });

export const deleteSubOrganization: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_sub_organization',
  activityType: 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION',
  resource: 'ORGANIZATION',
  action: 'DELETE',
  reasons: [],
  summary:
    '`{deleteWithoutExport?}`, submitted in the sub-organization: deletes it and revokes all its API keys and passkeys at once; result `deleteSubOrganizationResult {subOrganizationUuid}`',
  description:
    "Deletes the sub-organization the request is submitted in (`@turnkey/sdk-server`'s `deleteSubOrganization`, stamped by a credential of the sub-organization): every API key and passkey of it is revoked in the same statement, so its credentials are refused at once; its users and activities are kept. An organization that is not a sub-organization is a 400.",
  intentKey: 'deleteSubOrganizationIntent',
  resultKey: 'deleteSubOrganizationResult',
  parameters,
  resultSchema,
  example: { deleteWithoutExport: false },

  async execute(context) {
    const { organizationId, now } = context;
    return {
      result: { subOrganizationUuid: organizationId.toLowerCase() },
      effects: [
        check(
          'isLiveSubOrganization',
          [organizationId],
          invalidArgument(`organization ${organizationId} is not a sub-organization: only a sub-organization can be deleted, by a request submitted in it`),
        ),
        write('deleteSubOrganization', organizationId, now),
      ],
    };
  },
};
