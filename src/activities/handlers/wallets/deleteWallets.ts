// The delete_wallets activity (ACTIVITY_TYPE_DELETE_WALLETS): removes wallets of the organization with
// their accounts and sealed mnemonics, all or none. As the ecosystem does, a wallet that was never
// exported is deleted only when `deleteWithoutExport` is true (its mnemonic is then gone for good); an
// exported one is deleted either way. One that is not the organization's is a 404 naming it.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList, objectExpected, trueOrFalse } from '../../wire/parameters.ts';
import { MAX_WALLETS } from './createWallet.ts';

const parameters = z.strictObject(
  {
    walletIds: idList('a wallet id', 'wallet ids')
      .min(1, 'must list at least one wallet id')
      .max(MAX_WALLETS, `may hold at most ${MAX_WALLETS} wallet ids`)
      .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a wallet twice')
      .describe(`Wallets of the organization to delete with their accounts, 1 to ${MAX_WALLETS}; another organization's is a 404 and nothing is deleted`),
    deleteWithoutExport: trueOrFalse()
      .describe('true: delete wallets that were never exported too (their mnemonic is lost for good); false or absent: such a wallet is a 400 and nothing is deleted')
      .optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({ walletIds: z.array(z.uuid()).describe('The deleted wallets, as listed') });

export const deleteWallets: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_wallets',
  activityType: 'ACTIVITY_TYPE_DELETE_WALLETS',
  resource: 'WALLET',
  action: 'DELETE',
  reasons: ['WALLET_NOT_FOUND'],
  summary: '`{walletIds, deleteWithoutExport?}`, with their accounts, all or none; result `deleteWalletsResult {walletIds}` ([Wallets](wallets.md#renaming-and-deleting-wallets))',
  description:
    "Deletes wallets of the organization, their accounts and sealed mnemonics, all or none. One that is not the organization's is a 404 naming it; one never exported is a 400 unless `deleteWithoutExport` is true.",
  intentKey: 'deleteWalletsIntent',
  resultKey: 'deleteWalletsResult',
  parameters,
  resultSchema,
  example: { walletIds: ['5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90'], deleteWithoutExport: true },

  async execute(context, intent) {
    const { organizationId } = context;
    const ids = intent.walletIds.map((id) => id.toLowerCase());
    const field = (index: number) => `parameters.walletIds[${index}]`;
    return {
      result: { walletIds: ids },
      effects: [
        // A concurrent deletion of the same wallet commits first; this statement then finds it gone.
        ...ids.map((id, index) => check('walletOfOrganization', [organizationId, id], notFound('WALLET_NOT_FOUND', `${field(index)}: no wallet ${id} in organization ${organizationId}`))),
        ...(intent.deleteWithoutExport === true
          ? []
          : ids.map((id) =>
              check(
                'walletExported',
                [organizationId, id],
                invalidField(
                  'parameters.deleteWithoutExport',
                  `wallet ${id} has not been exported: deleting it loses its mnemonic for good; set deleteWithoutExport to true to delete it anyway`,
                ),
              ),
            )),
        write('deleteWallets', organizationId, ids),
      ],
    };
  },
};
