// The create_authenticators activity (ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2): passkeys for a user of
// the organization, each attestation verified (as create_users verifies them) before anything is
// written; registered with the activity in its statement after the checks that the user is the
// organization's, no credential is registered already, and the user stays within its passkeys.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { verifiedRegistration } from './passkeyRegistration.ts';
import type { NewAuthenticator } from '../../../store/authenticators.ts';
import { check, lock, take, write } from '../../../store/effects.ts';
import { refusedFields, RACED } from './apiKeyParameters.ts';
import { authenticator, MAX_CREDENTIALS } from '../users/createUsers.ts';
import type { ActivityHandler } from '../../handler.ts';
import { userIdParameter } from '../users/userChanges.ts';

/** Passkeys a user may have that are not revoked (create_users registers as many at most). */
export const MAX_AUTHENTICATORS_PER_USER = MAX_CREDENTIALS;

const parameters = z.strictObject({
  userId: userIdParameter.describe('The user of the organization (not removed) the passkeys are for'),
  authenticators: z
    .array(authenticator, { error: 'must be an array of authenticators' })
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
    const { organizationId, now, config } = context;
    const { userId } = intent;
    const authenticators: NewAuthenticator[] = [];
    const fields = new Map<string, string>();
    for (const [i, passkey] of intent.authenticators.entries()) {
      const field = `parameters.authenticators[${i}].attestation`;
      const verified = await verifiedRegistration(passkey.attestation, {
        expectedChallenge: passkey.challenge,
        origins: config.webauthnOrigins,
        rpId: config.webauthnRpId,
        field,
      });
      const first = fields.get(verified.credentialId);
      if (first !== undefined) throw invalidField(field, `registers the same credential as ${first}; each passkey may appear once`);
      fields.set(verified.credentialId, field);
      authenticators.push({ id: randomUUID(), userId, name: passkey.authenticatorName, ...verified });
    }
    return {
      result: { authenticatorIds: authenticators.map((a) => a.id) },
      effects: [
        check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userId: no user ${userId} in organization ${organizationId} (or it was removed)`)),
        check(
          'userAuthenticatorsWithin',
          [userId, authenticators.length, MAX_AUTHENTICATORS_PER_USER],
          invalidField(
            'parameters.authenticators',
            `the user would have more than ${MAX_AUTHENTICATORS_PER_USER} passkeys (${authenticators.length} in this request); delete some first (delete_authenticators)`,
          ),
        ),
        take('credentialIds', [[...fields.keys()]], (detail) => {
          const taken = (Array.isArray(detail) ? detail : []) as string[];
          return refusedFields(
            taken.flatMap((id) => (fields.has(id) ? [{ field: fields.get(id)!, description: 'this credential is already registered' }] : [])),
            'parameters.authenticators',
            `a passkey ${RACED}`,
          );
        }),
        write('insertAuthenticators', organizationId, authenticators, now),
        // Concurrent registrations for the user count each other's passkeys: one waits for the other to commit.
        lock('userApiKeys', organizationId, userId),
      ],
    };
  },
};
