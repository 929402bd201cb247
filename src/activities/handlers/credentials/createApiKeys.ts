// The create_api_keys activity (ACTIVITY_TYPE_CREATE_API_KEYS_V2): API keys for a user of the
// organization, in the shape @turnkey/http's createApiKeys sends, written with the activity in one
// statement after the checks that the user is one of the organization's (not removed), none of the
// public keys is registered in the organization's tree already (one key, one principal), and the user stays within its number of keys.
import { z } from 'zod';
import { p256PointHex } from '../../../keys/p256.ts';
import type { ActivityHandler } from '../../handler.ts';
import { apiKeys, MAX_API_KEYS_PER_USER, register, registrationEffects } from './credentialKinds.ts';

/** Keys one request registers. */
export const MAX_CREATED_API_KEYS = 10;

const parameters = z
  .strictObject({
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user of the organization (not removed) the keys are for'),
    apiKeys: z
      .array(apiKeys.parameter, { error: 'must be an array of API keys' })
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
    const registered = await register(apiKeys, context, intent.apiKeys, intent.userId, (i) => `parameters.apiKeys[${i}]`);
    return {
      result: { apiKeyIds: registered.rows.map((key) => key.id) },
      effects: registrationEffects(apiKeys, context, intent.userId, registered, 'parameters.apiKeys'),
    };
  },
};
