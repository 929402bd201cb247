// What every activity that binds OpenID Connect identities to users shares (create_oauth_providers,
// create_users, create_sub_organization's root users): the provider parameter as the ecosystem sends
// it ({providerName, oidcToken}), its id token verified against SIGNET_OIDC_ISSUERS (signature,
// issuer, expiry; the nonce is not read: binding starts no session), the binding's rows and the take
// that keeps one (issuer, subject) to one user of an organization; and the refusal of a token, worded
// once for these activities, oauth_login and list_suborgs.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { OidcIssuerUnavailable, OidcTokenRefused } from '../../../auth/oidc/refusals.ts';
import { MAX_TOKEN_LENGTH, type Expected, type OidcIdentity, type OidcVerifier } from '../../../auth/oidc/verifyIdToken.ts';
import { invalidField, SignetError, unavailable } from '../../../errors.ts';
import { check, take, write, type Effect } from '../../../store/effects.ts';
import type { NewOauthProvider } from '../../../store/oauthProviders.ts';
import { name, objectExpected, text } from '../../wire/parameters.ts';

/** A user has at most this many OAuth providers (one request binds at most as many). */
export const MAX_OAUTH_PROVIDERS_PER_USER = 10;

/** An id token as a parameter: bounded, read only by the verifier. */
export const oidcTokenParameter = text(MAX_TOKEN_LENGTH, (v) => (v === '' ? 'must not be empty: give the id token your OpenID Connect provider issued' : undefined));

export const oauthProviderParameter = z
  .strictObject(
    {
      providerName: name.describe('A name for the binding, e.g. "Google"; shown in the user\'s oauthProviders'),
      oidcToken: oidcTokenParameter
        .describe(
          "An id token of a configured issuer (SIGNET_OIDC_ISSUERS), its signature, issuer and expiry verified: its (iss, sub) is bound to the user, and its aud (one audience: your app's client id) is what oauth_login's tokens must be issued to",
        )
        .optional(),
      oidcClaims: z
        .unknown()
        .describe('Not taken: Signet binds only an identity an id token proves; give oidcToken')
        .optional(),
    },
    { error: objectExpected('must be an object {providerName, oidcToken}') },
  )
  .superRefine((p, ctx) => {
    if (p.oidcClaims !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['oidcClaims'], message: 'is not taken: Signet binds only an identity an id token proves; give oidcToken instead' });
    } else if (p.oidcToken === undefined) {
      ctx.addIssue({ code: 'custom', path: ['oidcToken'], message: 'is required: the id token whose (iss, sub) is bound to the user' });
    }
  })
  .describe('An OpenID Connect identity to bind to the user: {providerName, oidcToken}');

export type OauthProviderParameter = z.output<typeof oauthProviderParameter>;

/** The refusal of an id token at `field`: 400 OIDC_TOKEN_REFUSED naming the check; 503 when the issuer's keys cannot be had. */
export function oidcRefusal(error: unknown, field: string): unknown {
  if (error instanceof OidcTokenRefused) return invalidField(field, error.message, 'OIDC_TOKEN_REFUSED');
  if (error instanceof OidcIssuerUnavailable) return unavailable(`${field}: ${error.message}; retry later`, 'OIDC_ISSUER_UNAVAILABLE');
  return error;
}

/** What the id token at `field` proves, or its refusal (oidcRefusal). */
export async function verifiedIdentity(oidc: OidcVerifier, token: string, field: string, expected: Expected): Promise<OidcIdentity> {
  try {
    return await oidc.verify(token, expected);
  } catch (error) {
    throw oidcRefusal(error, field);
  }
}

/** One provider to bind: its parameter, the user it is for and its field in the request. */
export interface ProviderRequest {
  parameter: OauthProviderParameter;
  userId: string;
  field: string;
}

/** The rows of the bindings, each token verified; a 400 naming the field when two tokens of the request prove one identity. */
export async function planOauthProviders(oidc: OidcVerifier, requests: readonly ProviderRequest[]): Promise<{ rows: NewOauthProvider[]; fields: string[] }> {
  const rows: NewOauthProvider[] = [];
  const fields: string[] = [];
  const seen = new Map<string, string>();
  for (const { parameter, userId, field } of requests) {
    const tokenField = `${field}.oidcToken`;
    const identity = await verifiedIdentity(oidc, parameter.oidcToken!, tokenField, { publicKey: undefined });
    if (identity.audiences.length !== 1) {
      throw invalidField(tokenField, `is issued to ${identity.audiences.length} audiences; bind a token issued to one, your app's client id, which oauth_login's tokens must then be issued to`);
    }
    const key = JSON.stringify([identity.issuer, identity.subject]);
    const first = seen.get(key);
    if (first !== undefined) throw invalidField(tokenField, `proves the same identity (issuer and subject) as ${first}; an identity is bound once`, 'OAUTH_PROVIDER_TAKEN');
    seen.set(key, tokenField);
    rows.push({ id: randomUUID(), userId, providerName: parameter.providerName, issuer: identity.issuer, subject: identity.subject, audience: identity.audiences[0]! });
    fields.push(tokenField);
  }
  return { rows, fields };
}

/** The refusal when some identities are bound already in the organization (the detail of the store's oauthSubjectsFree: their indexes). */
function subjectsTaken(detail: unknown, planned: { rows: NewOauthProvider[]; fields: string[] }): SignetError {
  const indexes = Array.isArray(detail) ? (detail as number[]) : [];
  const violations = indexes.map((i) => ({
    field: planned.fields[i] ?? 'parameters',
    description: `its identity (issuer ${planned.rows[i]?.issuer}, subject ${planned.rows[i]?.subject}) is already bound to a user of this organization; one identity belongs to one user (delete_oauth_providers unbinds it)`,
  }));
  if (violations.length === 0) violations.push({ field: 'parameters', description: 'an identity was bound by a concurrent request; submit again' });
  return new SignetError('OAUTH_PROVIDER_TAKEN', violations.map((v) => `${v.field}: ${v.description}`).join('; '), { fieldViolations: violations });
}

/**
 * The effects that bind the planned providers in `organizationId`: the take that keeps each identity
 * to one user there (a concurrent binding is stopped by the unique index), and their rows.
 */
export function bindingEffects(organizationId: string, planned: { rows: NewOauthProvider[]; fields: string[] }, now: Date): Effect[] {
  if (planned.rows.length === 0) return [];
  return [
    take('oauthSubjects', [organizationId, planned.rows], (detail) => subjectsTaken(detail, planned)),
    write('insertOauthProviders', organizationId, planned.rows, now),
  ];
}

/** The check that a user has room for `adding` more providers. */
export function providersRoomFor(userId: string, adding: number, field: string): Effect {
  return check(
    'userOauthProvidersWithin',
    [userId, adding, MAX_OAUTH_PROVIDERS_PER_USER],
    invalidField(field, `a user has at most ${MAX_OAUTH_PROVIDERS_PER_USER} OAuth providers, and these ${adding} would make more; delete some first (delete_oauth_providers)`),
  );
}
