// The delete_sub_organization activity (ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION): submitted in the
// sub-organization itself. Its row is marked deleted and every API key (session keys too) and passkey
// of it revoked by the activity's statement, so its credentials are refused from the next request on;
// its wallets (with their accounts) and private keys are deleted with it, and its users and activities
// stay, for the parent to audit. As the ecosystem does, a sub-organization holding a wallet or private
// key that was never exported is deleted only when deleteWithoutExport is true.
import { z } from 'zod';
import { invalidArgument, invalidField } from '../../../errors.ts';
import { check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { trueOrFalse } from '../../wire/parameters.ts';

const parameters = z.strictObject({
  deleteWithoutExport: trueOrFalse()
    .describe('true: delete the sub-organization even when it holds wallets or private keys never exported (they are deleted with it, lost for good); false or absent: such a sub-organization is a 400')
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
    '`{deleteWithoutExport?}`, submitted in the sub-organization: deletes it, its wallets and private keys, and revokes all its API keys and passkeys at once; result `deleteSubOrganizationResult {subOrganizationUuid}`',
  description:
    "Deletes the sub-organization the request is submitted in (`@turnkey/sdk-server`'s `deleteSubOrganization`, stamped by a credential of the sub-organization): every API key and passkey of it is revoked in the same statement, so its credentials are refused at once; its wallets and private keys are deleted; its users and activities are kept. An organization that is not a sub-organization is a 400, as is one holding a wallet or private key never exported unless `deleteWithoutExport` is true.",
  intentKey: 'deleteSubOrganizationIntent',
  resultKey: 'deleteSubOrganizationResult',
  parameters,
  resultSchema,
  example: { deleteWithoutExport: false },

  async execute(context, intent) {
    const { organizationId, now } = context;
    return {
      result: { subOrganizationUuid: organizationId.toLowerCase() },
      effects: [
        check(
          'isLiveSubOrganization',
          [organizationId],
          invalidArgument(`organization ${organizationId} is not a sub-organization: only a sub-organization can be deleted, by a request submitted in it`),
        ),
        ...(intent.deleteWithoutExport === true
          ? []
          : [
              check(
                'organizationKeysExported',
                [organizationId],
                invalidField(
                  'parameters.deleteWithoutExport',
                  'the sub-organization holds wallets or private keys that have not been exported: deleting it deletes them for good; set deleteWithoutExport to true to delete it anyway',
                ),
              ),
            ]),
        write('deleteSubOrganization', organizationId, now),
      ],
    };
  },
};
