// The create_oauth_providers activity (ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2, and the first
// version): binds OpenID Connect identities to a user of the organization, each proven by an id token
// of a configured issuer (credentials/oauthProviders.ts); oauth_login then logs the user in with a
// token of that identity issued to the audience bound.
import { z } from 'zod';
import { notFound } from '../../../errors.ts';
import { check, lock } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { userIdParameter } from '../users/userChanges.ts';
import { bindingEffects, MAX_OAUTH_PROVIDERS_PER_USER, oauthProviderParameter, planOauthProviders, providersRoomFor } from './oauthProviders.ts';

const parameters = z.strictObject(
  {
    userId: userIdParameter.describe('The user of the organization (not removed) the identities are bound to'),
    oauthProviders: z
      .array(oauthProviderParameter, { error: 'must be an array of OAuth providers' })
      .min(1, 'must list at least one OAuth provider')
      .max(MAX_OAUTH_PROVIDERS_PER_USER, `may hold at most ${MAX_OAUTH_PROVIDERS_PER_USER} OAuth providers`)
      .describe(`The identities to bind, 1 to ${MAX_OAUTH_PROVIDERS_PER_USER}; a user has at most ${MAX_OAUTH_PROVIDERS_PER_USER}, these included`),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({ providerIds: z.array(z.uuid()).describe('Identifiers of the new OAuth providers, in the order given') });

const EXAMPLE = {
  userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d',
  oauthProviders: [{ providerName: 'Google', oidcToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20ifQ.c2lnbmF0dXJl' }],
};

export const createOauthProviders: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'create_oauth_providers',
  activityType: 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2',
  resource: 'CREDENTIAL',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'OIDC_TOKEN_REFUSED', 'OAUTH_PROVIDER_TAKEN', 'OIDC_ISSUER_UNAVAILABLE'],
  summary:
    '`{userId, oauthProviders: [{providerName, oidcToken}]}`, 1 to 10: binds the id tokens\' identities (iss, sub, aud) to the user; result `createOauthProvidersResult {providerIds}` ([OAuth](oauth.md))',
  description:
    "Binds OpenID Connect identities to a user of the organization (`@turnkey/http`'s `createOauthProviders`): each `oidcToken` must be an id token of an issuer of SIGNET_OIDC_ISSUERS, its signature and expiry verified; its `iss` and `sub` are bound to the user and its `aud` is the audience oauth_login's tokens must be issued to. An identity bound to a user of the organization already is a 400 naming the field (OAUTH_PROVIDER_TAKEN); a refused token a 400 naming its check (OIDC_TOKEN_REFUSED).",
  intentKey: 'createOauthProvidersIntentV2',
  resultKey: 'createOauthProvidersResult',
  parameters,
  resultSchema,
  example: EXAMPLE,

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { userId } = intent;
    const planned = await planOauthProviders(
      context.oidc,
      intent.oauthProviders.map((parameter, i) => ({ parameter, userId, field: `parameters.oauthProviders[${i}]` })),
    );
    return {
      result: { providerIds: planned.rows.map((row) => row.id) },
      effects: [
        check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userId: no user ${userId} in organization ${organizationId} (or it was removed)`)),
        providersRoomFor(userId, planned.rows.length, 'parameters.oauthProviders'),
        ...bindingEffects(organizationId, planned, now),
        // Concurrent bindings for the user count each other's: one waits for the other to commit.
        lock('users', organizationId, [userId]),
      ],
    };
  },
};

/** The first version: the same parameters (its providers carry no oidcClaims) and result. */
export const createOauthProvidersV1: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  ...createOauthProviders,
  activityType: 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS',
  description: 'The first version: as V2.',
  intentKey: 'createOauthProvidersIntent',
};
