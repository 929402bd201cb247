// The delete_private_keys activity (ACTIVITY_TYPE_DELETE_PRIVATE_KEYS): removes private keys of the
// organization, their sealed material with them, all or none. As the ecosystem does, a key that was
// never exported is deleted only when `deleteWithoutExport` is true (its material is then gone for
// good); an exported one is deleted either way. One that is not the organization's is a 404 naming it.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList, objectExpected, trueOrFalse } from '../../wire/parameters.ts';
import { MAX_PRIVATE_KEYS } from './newPrivateKeys.ts';

const parameters = z.strictObject(
  {
    privateKeyIds: idList('a private key id', 'private key ids')
      .min(1, 'must list at least one private key id')
      .max(MAX_PRIVATE_KEYS, `may hold at most ${MAX_PRIVATE_KEYS} private key ids`)
      .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a private key twice')
      .describe(`Private keys of the organization to delete, 1 to ${MAX_PRIVATE_KEYS}; another organization's is a 404 and nothing is deleted`),
    deleteWithoutExport: trueOrFalse()
      .describe('true: delete keys that were never exported too (their material is lost for good); false or absent: such a key is a 400 and nothing is deleted')
      .optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({ privateKeyIds: z.array(z.uuid()).describe('The deleted private keys, as listed') });

export const deletePrivateKeys: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_private_keys',
  activityType: 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS',
  resource: 'PRIVATE_KEY',
  action: 'DELETE',
  reasons: ['PRIVATE_KEY_NOT_FOUND'],
  summary: '`{privateKeyIds, deleteWithoutExport?}`, all or none; result `deletePrivateKeysResult {privateKeyIds}` ([Wallets](wallets.md#private-keys))',
  description:
    "Deletes private keys of the organization and their sealed material, all or none. One that is not the organization's is a 404 naming it; one never exported is a 400 unless `deleteWithoutExport` is true.",
  intentKey: 'deletePrivateKeysIntent',
  resultKey: 'deletePrivateKeysResult',
  parameters,
  resultSchema,
  example: { privateKeyIds: ['3c9d1e7a-6b2f-4d8e-a1c5-9f0b2e4d6a8c'], deleteWithoutExport: true },

  async execute(context, intent) {
    const { organizationId } = context;
    const ids = intent.privateKeyIds.map((id) => id.toLowerCase());
    const field = (index: number) => `parameters.privateKeyIds[${index}]`;
    return {
      result: { privateKeyIds: ids },
      effects: [
        // A concurrent deletion of the same key commits first; this statement then finds it gone.
        ...ids.map((id, index) =>
          check('privateKeyOfOrganization', [organizationId, id], notFound('PRIVATE_KEY_NOT_FOUND', `${field(index)}: no private key ${id} in organization ${organizationId}`)),
        ),
        ...(intent.deleteWithoutExport === true
          ? []
          : ids.map((id) =>
              check(
                'privateKeyExported',
                [organizationId, id],
                invalidField(
                  'parameters.deleteWithoutExport',
                  `private key ${id} has not been exported: deleting it loses its material for good; set deleteWithoutExport to true to delete it anyway`,
                ),
              ),
            )),
        write('deletePrivateKeys', organizationId, ids),
      ],
    };
  },
};
