// The oauth_login activity (ACTIVITY_TYPE_OAUTH_LOGIN): turns an OpenID Connect id token into a
// session. The token must be of a configured issuer, its signature and expiry good, and its nonce the
// SHA-256 (hex) of `publicKey` (the client asked its provider for a token bound to the session key);
// the user of the organization bound to its (issuer, subject) (create_oauth_providers) gets
// `publicKey` as a session key, when the token is issued to the audience bound. The session is
// otp_login's (sessionPlans.ts).
import { z } from 'zod';
import { OidcTokenRefused } from '../../../auth/oidc/refusals.ts';
import { notFound } from '../../../errors.ts';
import { check } from '../../../store/effects.ts';
import { findOauthBinding } from '../../../store/oauthProviders.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { oidcRefusal, oidcTokenParameter, verifiedIdentity } from '../credentials/oauthProviders.ts';
import { checkSessionIntent, planSession, sessionParameterFields, sessionResultSchema, type SessionResult } from './sessionPlans.ts';

const TOKEN_FIELD = 'parameters.oidcToken';

export const oauthLoginParameters = z.strictObject(
  {
    oidcToken: oidcTokenParameter.describe(
      'An id token of an issuer of SIGNET_OIDC_ISSUERS for an identity bound to a user of the organization (create_oauth_providers), issued to the audience bound, unexpired, its nonce the SHA-256 (lowercase hex) of publicKey',
    ),
    publicKey: sessionParameterFields.publicKey,
    expirationSeconds: sessionParameterFields.expirationSeconds,
    invalidateExisting: sessionParameterFields.invalidateExisting,
    sessionProfileId: sessionParameterFields.sessionProfileId,
  },
  { error: objectExpected() },
);
type OauthLoginIntent = z.output<typeof oauthLoginParameters>;

export const oauthLogin: ActivityHandler<typeof oauthLoginParameters, SessionResult> = {
  path: 'oauth_login',
  activityType: 'ACTIVITY_TYPE_OAUTH_LOGIN',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'PUBLIC_KEY_TAKEN', 'OIDC_TOKEN_REFUSED', 'OIDC_ISSUER_UNAVAILABLE'],
  summary:
    "`{oidcToken, publicKey, expirationSeconds?, invalidateExisting?}`: an id token of an identity bound to a user (nonce = SHA-256 of publicKey) turned into a session; result `oauthLoginResult.session` ([OAuth](oauth.md))",
  parentMaySubmit: true,
  // The session is the submitter's client's: an activity that waited would be executed by its last approver.
  neverWaits: true,
  description:
    "Turns an OpenID Connect id token into a session (`@turnkey/http`'s `oauthLogin`): the token of an issuer of SIGNET_OIDC_ISSUERS, its signature and expiry verified, its nonce the SHA-256 (hex) of `publicKey`, issued to the audience bound; the user of the organization bound to its issuer and subject (create_oauth_providers) gets `publicKey` as a session key, which stamps requests until the session ends. A refused token is a 400 naming its check (OIDC_TOKEN_REFUSED); an identity bound to no user a 404.",
  intentKey: 'oauthLoginIntent',
  resultKey: 'oauthLoginResult',
  parameters: oauthLoginParameters,
  resultSchema: sessionResultSchema,
  // A real point (the curve's generator), so the example passes the schema it illustrates.
  example: {
    oidcToken: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20ifQ.c2lnbmF0dXJl',
    publicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    expirationSeconds: '900',
    invalidateExisting: false,
  },
  execute: planOauthLogin,
};

async function planOauthLogin(context: ExecutionContext, intent: OauthLoginIntent): Promise<ActivityPlan<SessionResult>> {
  const { organizationId } = context;
  checkSessionIntent(intent);
  // Bound to the session key first; the audience is checked once the binding names it.
  const identity = await verifiedIdentity(context.oidc, intent.oidcToken, TOKEN_FIELD, { publicKey: intent.publicKey });
  const binding = await findOauthBinding(context.db, organizationId, identity);
  const named = `issuer ${identity.issuer}, subject ${identity.subject}`;
  if (!binding) {
    throw notFound(
      'USER_NOT_FOUND',
      `${TOKEN_FIELD}: no user of this organization is bound to its identity (${named}); bind it first (create_oauth_providers, or oauthProviders of create_users or create_sub_organization), then log in`,
    );
  }
  if (!identity.audiences.includes(binding.audience)) {
    const issuedTo = identity.audiences.map((audience) => JSON.stringify(audience.slice(0, 200))).join(', ');
    throw oidcRefusal(new OidcTokenRefused('audience', `it is issued to ${issuedTo}, not to ${JSON.stringify(binding.audience)}, the audience bound to its identity`), TOKEN_FIELD);
  }
  const session = await planSession(context, binding.userId, intent);
  return {
    result: session.result,
    effects: [
      check('userActive', [organizationId, binding.userId], notFound('USER_NOT_FOUND', `the user bound to ${named} was removed; it can no longer log in`)),
      // Unbound meanwhile (delete_oauth_providers): the token logs in no more.
      check('oauthProviderStillBound', [organizationId, binding.userId, binding.providerId], notFound('USER_NOT_FOUND', `${TOKEN_FIELD}: its identity (${named}) was unbound from the user meanwhile; bind it again to log in`)),
      ...session.effects,
    ],
  };
}
