// The recover_user activity (ACTIVITY_TYPE_RECOVER_USER): a passkey added to a user, stamped with
// the recovery key an init_user_email_recovery emailed (the one route that key may stamp:
// acceptsRecoveryKey), its attestation verified as create_authenticators verifies it. The key is
// the user's own and used up by the activity's statement, so it recovers once.
import { z } from 'zod';
import { requestNotAuthorized } from '../../../errors.ts';
import { write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { passkeys, register, registrationEffects } from '../credentials/credentialKinds.ts';
import { userIdParameter } from '../users/userChanges.ts';

const parameters = z.strictObject(
  {
    authenticator: passkeys.parameter.describe('The passkey to add: {authenticatorName, challenge, attestation}, as createUserPasskey returns it'),
    userId: userIdParameter.describe('The user being recovered: the one whose recovery key stamps the request'),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({ authenticatorId: z.array(z.uuid()).describe('The new passkey (one identifier)') });
type RecoverUserResult = z.infer<typeof resultSchema>;

export const recoverUser: ActivityHandler<typeof parameters, RecoverUserResult> = {
  path: 'recover_user',
  activityType: 'ACTIVITY_TYPE_RECOVER_USER',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    '`{authenticator: {authenticatorName, challenge, attestation}, userId}`, stamped with the recovery key of `init_user_email_recovery`: adds the passkey to the user and uses the key up; result `recoverUserResult {authenticatorId}` ([Recovery](users.md#recovery-by-email))',
  description:
    "Adds a passkey to a user, stamped with the recovery key that `init_user_email_recovery` emailed to it (opened by `decryptCredentialBundle`): the attestation is verified as `create_authenticators` verifies it, and the recovery key is revoked by the same statement, so it recovers once. Stamped with any other credential it is a 403; a recovery key stamps nothing else.",
  intentKey: 'recoverUserIntent',
  resultKey: 'recoverUserResult',
  parameters,
  resultSchema,
  example: {
    userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d',
    authenticator: {
      authenticatorName: 'new phone',
      challenge: 'q5yKUJXzEMdWmXlhSwoCPg',
      attestation: {
        credentialId: 'AQIDBAUGBwgJCgsMDQ4PEA',
        clientDataJson: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0',
        attestationObject: 'o2NmbXRkbm9uZQ',
        transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
      },
    },
  },
  acceptsRecoveryKey: true,
  // The recovery is its key's holder's: an approver could not use the key it was stamped with.
  neverWaits: true,

  async execute(context, intent) {
    const { principal, organizationId, now } = context;
    const credential = principal.credential;
    if (principal.credentialType !== 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256' || credential.kind !== 'apiKey') {
      throw requestNotAuthorized('recover_user is stamped with the recovery key of init_user_email_recovery (opened from the email with decryptCredentialBundle); add a passkey with any other credential by create_authenticators');
    }
    if (principal.userId !== intent.userId || principal.organizationId !== organizationId.toLowerCase()) {
      throw requestNotAuthorized(`the recovery key is user ${principal.userId}'s: it recovers that user only; set userId to it`);
    }
    const registered = await register(passkeys, context, [intent.authenticator], intent.userId, () => 'parameters.authenticator');
    return {
      result: { authenticatorId: registered.rows.map((row) => row.id) },
      effects: [
        ...registrationEffects(passkeys, context, intent.userId, registered, 'parameters.authenticator'),
        // The key recovers once: revoked by the statement that adds the passkey.
        write('revokeApiKeys', { organizationId, userId: intent.userId, ids: [credential.apiKeyId], now }),
      ],
    };
  },
};
