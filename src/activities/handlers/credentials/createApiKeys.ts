// The create_api_keys activity (ACTIVITY_TYPE_CREATE_API_KEYS_V2): API keys for a user of the
// organization, in the shape @turnkey/http's createApiKeys sends, written with the activity in one
// statement after the checks that the user is one of the organization's (not removed), none of the
// public keys is registered in the organization's tree already (one key, one principal), and the user stays within its number of keys.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { p256PointHex } from '../../../keys/p256.ts';
import { check, lock, take, write } from '../../../store/effects.ts';
import { apiKeyParameter, newApiKey, publicKeysTaken } from './apiKeyParameters.ts';
import type { ActivityHandler } from '../../handler.ts';

/** Keys one request registers. */
export const MAX_CREATED_API_KEYS = 10;
/** Live API keys a user may have of each lifetime: that do not expire, and that do (session keys apart). */
export const MAX_API_KEYS_PER_USER = 10;

const parameters = z
  .strictObject({
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user of the organization (not removed) the keys are for'),
    apiKeys: z
      .array(apiKeyParameter, { error: 'must be an array of API keys' })
      .min(1, 'must list at least one API key')
      .max(MAX_CREATED_API_KEYS, `may hold at most ${MAX_CREATED_API_KEYS} API keys`)
      .describe(
        `The keys to register, 1 to ${MAX_CREATED_API_KEYS}, each public key once; the user may have at most ${MAX_API_KEYS_PER_USER} live keys that do not expire and ${MAX_API_KEYS_PER_USER} that do, these included`,
      ),
  })
  .superRefine((p, ctx) => {
    const firstAt = new Map<string, number>();
    p.apiKeys.forEach((key, i) => {
      const point = p256PointHex(key.publicKey);
      if (!point) return;
      const first = firstAt.get(point.compressed);
      if (first === undefined) firstAt.set(point.compressed, i);
      else ctx.addIssue({ code: 'custom', path: ['apiKeys', i, 'publicKey'], message: `is the same public key as parameters.apiKeys[${first}].publicKey; each may appear once` });
    });
  })
  .transform(({ userId, apiKeys }) => ({ userId: userId.toLowerCase(), apiKeys }));

const resultSchema = z.strictObject({ apiKeyIds: z.array(z.uuid()).describe('Identifiers of the new API keys, in the order given') });

export const createApiKeys: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'create_api_keys',
  activityType: 'ACTIVITY_TYPE_CREATE_API_KEYS_V2',
  resource: 'CREDENTIAL',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'PUBLIC_KEY_TAKEN'],
  summary:
    '`{userId, apiKeys: [{apiKeyName, publicKey, curveType, expirationSeconds?}]}`, 1 to 10 keys: P-256 API keys for a user of the organization (`API_KEY_CURVE_P256` only; a public key already registered in the organization, its parent or one of their sub-organizations is a 400 `PUBLIC_KEY_TAKEN`: [one public key, one principal](users.md#one-public-key-one-principal)); a user has at most 10 live keys that do not expire and 10 that do; result `createApiKeysResult {apiKeyIds}`',
  description: `Registers API keys (P-256) for a user of the organization, as \`@turnkey/http\`'s \`createApiKeys\` sends them; they stamp requests as soon as the activity completes. A public key already registered in the organization, its parent or one of their sub-organizations is a 400 \`PUBLIC_KEY_TAKEN\` naming the field; a key past the user's ${MAX_API_KEYS_PER_USER} live keys that do not expire or ${MAX_API_KEYS_PER_USER} that do is a 400 naming it too; a user that is not the organization's (or was removed) is a 404.`,
  intentKey: 'createApiKeysIntentV2',
  resultKey: 'createApiKeysResult',
  parameters,
  resultSchema,
  example: {
    userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d',
    apiKeys: [
      {
        apiKeyName: 'ci',
        publicKey: '026cac77062de3c321682a30e33ff9732f50b8c7bab6434b3d05a8567fc081ab7f',
        curveType: 'API_KEY_CURVE_P256',
        expirationSeconds: '2592000',
      },
    ],
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { userId } = intent;
    const keys = intent.apiKeys.map((key) => newApiKey(key, userId, now));
    const fields = new Map(keys.map((key, i) => [key.publicKey, [`parameters.apiKeys[${i}].publicKey`]]));
    const bound = (expiring: boolean) => {
      const adding = keys.filter((key) => (key.expiresAt !== null) === expiring).length;
      const field = `parameters.apiKeys[${keys.findIndex((key) => (key.expiresAt !== null) === expiring)}]`;
      const what = expiring ? 'that expire' : 'that do not expire';
      return adding === 0
        ? []
        : [
            check(
              'userApiKeysWithin',
              [userId, now, expiring, adding, MAX_API_KEYS_PER_USER],
              invalidField(field, `the user would have more than ${MAX_API_KEYS_PER_USER} live API keys ${what} (${adding} in this request); delete some first (delete_api_keys)`),
            ),
          ];
    };
    return {
      result: { apiKeyIds: keys.map((key) => key.id) },
      effects: [
        check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userId: no user ${userId} in organization ${organizationId} (or it was removed)`)),
        ...bound(false),
        ...bound(true),
        take('apiKeys', [organizationId, [...fields.keys()]], (detail) => publicKeysTaken(detail, fields, 'parameters.apiKeys')),
        write('insertApiKeys', organizationId, keys, now),
        // Concurrent creations for the user count each other's keys: one waits for the other to commit.
        lock('userApiKeys', organizationId, userId),
      ],
    };
  },
};
