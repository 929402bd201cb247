// The create_authenticators activity (ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2): passkeys for a user of
// the organization, each attestation verified (as create_users verifies them) before anything is
// written; registered with the activity in its statement after the checks that the user is the
// organization's, no credential is registered already, and the user stays within its passkeys.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { userIdParameter } from '../users/userChanges.ts';
import { MAX_AUTHENTICATORS_PER_USER, passkeys, register, registrationEffects } from './credentialKinds.ts';

const parameters = z.strictObject({
  userId: userIdParameter.describe('The user of the organization (not removed) the passkeys are for'),
  authenticators: z
    .array(passkeys.parameter, { error: 'must be an array of authenticators' })
    .min(1, 'must list at least one authenticator')
    .max(MAX_AUTHENTICATORS_PER_USER, `may hold at most ${MAX_AUTHENTICATORS_PER_USER} authenticators`)
    .describe(`The passkeys to register, 1 to ${MAX_AUTHENTICATORS_PER_USER}, each credential once; the user may have at most ${MAX_AUTHENTICATORS_PER_USER} passkeys not revoked, these included`),
});

const resultSchema = z.strictObject({ authenticatorIds: z.array(z.uuid()).describe('Identifiers of the new passkeys, in the order given') });

export const createAuthenticators: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'create_authenticators',
  activityType: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
  resource: 'CREDENTIAL',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    '`{userId, authenticators: [{authenticatorName, challenge, attestation}]}`, 1 to 10: passkeys for a user, each attestation verified; at most 10 a user; result `createAuthenticatorsResult {authenticatorIds}`',
  description: `Registers passkeys for a user of the organization (\`@turnkey/http\`'s \`createAuthenticators\`, each attestation as \`createUserPasskey\` returns it, verified against SIGNET_WEBAUTHN_RP_ID and SIGNET_WEBAUTHN_ORIGINS); they stamp requests as soon as the activity completes. A credential already registered, an attestation that does not verify, or a passkey past the user's ${MAX_AUTHENTICATORS_PER_USER} is a 400 naming the field; an unknown or removed user a 404.`,
  intentKey: 'createAuthenticatorsIntentV2',
  resultKey: 'createAuthenticatorsResult',
  parameters,
  resultSchema,
  example: {
    userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d',
    authenticators: [
      {
        authenticatorName: 'phone',
        challenge: 'q5yKUJXzEMdWmXlhSwoCPg',
        attestation: {
          credentialId: 'AQIDBAUGBwgJCgsMDQ4PEA',
          clientDataJson: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0',
          attestationObject: 'o2NmbXRkbm9uZQ',
          transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
        },
      },
    ],
  },

  async execute(context, intent) {
    const registered = await register(passkeys, context, intent.authenticators, intent.userId, (i) => `parameters.authenticators[${i}]`);
    return {
      result: { authenticatorIds: registered.rows.map((a) => a.id) },
      effects: registrationEffects(passkeys, context, intent.userId, registered, 'parameters.authenticators'),
    };
  },
};
