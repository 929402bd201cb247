// The update_wallet activity (ACTIVITY_TYPE_UPDATE_WALLET): renames a wallet of the organization. The
// new name is checked free (another wallet of the organization does not have it) under the
// organization's lock, so concurrent renames and creations see one another; without `walletName`
// nothing changes but the activity is recorded. Another organization's wallet is a 404.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { check, lock, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, trimmedName } from '../../wire/parameters.ts';
import { walletView } from './keyBindings.ts';
import { MAX_WALLET_NAME_LENGTH } from './newWallet.ts';

const parameters = z.strictObject(
  {
    walletId: z.uuid({ message: 'must be a wallet id (a UUID)' }).describe("The wallet to rename; another organization's is a 404"),
    walletName: trimmedName(MAX_WALLET_NAME_LENGTH)
      .describe(`The new name, unique in the organization, 1 to ${MAX_WALLET_NAME_LENGTH} characters once spaces around it are trimmed; absent: the name stays`)
      .optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({ walletId: z.uuid().describe('The wallet updated') });

export const updateWallet: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_wallet',
  activityType: 'ACTIVITY_TYPE_UPDATE_WALLET',
  resource: 'WALLET',
  action: 'UPDATE',
  reasons: ['WALLET_NOT_FOUND'],
  summary: '`{walletId, walletName?}`: renames a wallet; result `updateWalletResult {walletId}` ([Wallets](wallets.md#renaming-and-deleting-wallets))',
  description: "Renames a wallet of the organization. A name another of its wallets has is a 400 naming `parameters.walletName`; another organization's wallet is a 404.",
  intentKey: 'updateWalletIntent',
  resultKey: 'updateWalletResult',
  parameters,
  resultSchema,
  example: { walletId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90', walletName: 'Treasury (cold)' },

  // Policies read the wallet renamed (`wallet`).
  view(context, intent) {
    return walletView(context, intent.walletId);
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const walletId = intent.walletId.toLowerCase();
    const found = check('walletOfOrganization', [organizationId, walletId], notFound('WALLET_NOT_FOUND', `parameters.walletId: no wallet ${walletId} in organization ${organizationId}`));
    if (intent.walletName === undefined) return { result: { walletId }, effects: [found] };
    return {
      result: { walletId },
      effects: [
        // Names are checked one rename or creation after the other.
        lock('organization', organizationId),
        found,
        check(
          'walletNameFreeBut',
          [organizationId, intent.walletName, walletId],
          invalidField('parameters.walletName', `the organization already has a wallet named ${JSON.stringify(intent.walletName)}; wallet names are unique in an organization`),
        ),
        write('renameWallet', organizationId, walletId, intent.walletName, now),
      ],
    };
  },
};
