// The OAuth handlers' rules, read from their effects as plain data (no store, no provider: a
// verifier that answers the identity a test gives, the real one being test/oauth.test.ts's): the
// user must be active and have room, each identity taken unique in the organization with the refusal
// naming its field, two tokens of one identity or a token of several audiences refused before
// anything is planned, and delete_oauth_providers' check that every provider is the user's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OidcTokenRefused } from '../src/auth/oidc/refusals.ts';
import type { OidcIdentity, OidcVerifier } from '../src/auth/oidc/verifyIdToken.ts';
import { createOauthProviders } from '../src/activities/handlers/credentials/createOauthProviders.ts';
import { deleteOauthProviders } from '../src/activities/handlers/credentials/deleteOauthProviders.ts';
import { MAX_OAUTH_PROVIDERS_PER_USER } from '../src/activities/handlers/credentials/oauthProviders.ts';
import type { SignetError } from '../src/errors.ts';
import { checksOf, effectsOf, ORGANIZATION_ID, planOf } from './support/handlerRules.ts';

const ALICE = '0c9a3f5e-7b1d-4c2e-8f6a-5d4e3c2b1a09';
const PROVIDER = '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const ISSUER = 'https://accounts.example';

/** A verifier whose tokens are the subjects they prove ("sub:aud" for another audience, "bad" refused). */
function verifier(): OidcVerifier {
  return {
    async verify(token: string): Promise<OidcIdentity> {
      if (token === 'bad') throw new OidcTokenRefused('signature', "its signature does not verify with the issuer's key");
      const [subject, ...audiences] = token.split(':');
      return { issuer: ISSUER, subject: subject!, audiences: audiences.length > 0 ? audiences : ['app'], expiresAt: new Date(0) };
    },
  } as unknown as OidcVerifier;
}

const plan = (oidcTokens: string[]) =>
  planOf(
    createOauthProviders,
    { userId: ALICE.toUpperCase(), oauthProviders: oidcTokens.map((oidcToken, i) => ({ providerName: `p${i}`, oidcToken })) },
    { oidc: verifier() },
  );

async function refusedWith(planning: Promise<unknown>, reason: string, field: string, message: RegExp): Promise<void> {
  await assert.rejects(planning, (error: SignetError) => {
    assert.equal(error.reason, reason);
    assert.deepEqual(error.fieldViolations.map((v) => v.field), [field]);
    assert.match(error.message, message);
    return true;
  });
}

describe('create_oauth_providers', () => {
  test('the user active with room; the identities taken unique in the organization, written; the user locked', async () => {
    const planned = await plan(['alice', 'alice-work']);
    assert.deepEqual(checksOf(planned), [
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: `parameters.userId: no user ${ALICE} in organization ${ORGANIZATION_ID} (or it was removed)` },
      {
        name: 'userOauthProvidersWithin',
        args: [ALICE, 2, MAX_OAUTH_PROVIDERS_PER_USER],
        message: `parameters.oauthProviders: a user has at most ${MAX_OAUTH_PROVIDERS_PER_USER} OAuth providers, and these 2 would make more; delete some first (delete_oauth_providers)`,
      },
    ]);
    const [taken] = effectsOf(planned, 'take');
    assert.equal(taken!.name, 'oauthSubjects');
    const [organizationId, rows] = taken!.args as unknown as [string, Array<Record<string, string>>];
    assert.equal(organizationId, ORGANIZATION_ID);
    assert.deepEqual(
      rows.map(({ id, ...row }) => row),
      [
        { userId: ALICE, providerName: 'p0', issuer: ISSUER, subject: 'alice', audience: 'app' },
        { userId: ALICE, providerName: 'p1', issuer: ISSUER, subject: 'alice-work', audience: 'app' },
      ],
    );
    assert.deepEqual((planned.result as { providerIds: string[] }).providerIds, rows.map((row) => row.id));
    // The store's detail (indexes of the identities bound already) names their fields.
    const refusal = taken!.error([1]);
    assert.equal(refusal.reason, 'OAUTH_PROVIDER_TAKEN');
    assert.deepEqual(refusal.fieldViolations.map((v) => v.field), ['parameters.oauthProviders[1].oidcToken']);
    assert.match(refusal.message, /subject alice-work\) is already bound to a user of this organization/);
    assert.deepEqual(effectsOf(planned, 'write').map((write) => write.name), ['insertOauthProviders']);
    assert.deepEqual(effectsOf(planned, 'lock').map((lock) => [lock.name, ...lock.args]), [['users', ORGANIZATION_ID, [ALICE]]]);
  });

  test('refused before anything is planned: a token refused, one identity twice, a token of several audiences, oidcClaims', async () => {
    await refusedWith(plan(['alice', 'bad']), 'OIDC_TOKEN_REFUSED', 'parameters.oauthProviders[1].oidcToken', /OIDC token refused \(signature\)/);
    await refusedWith(plan(['alice', 'alice']), 'OAUTH_PROVIDER_TAKEN', 'parameters.oauthProviders[1].oidcToken', /same identity .* as parameters\.oauthProviders\[0\]\.oidcToken/);
    await refusedWith(plan(['alice:app:api']), 'INVALID_REQUEST', 'parameters.oauthProviders[0].oidcToken', /issued to 2 audiences; bind a token issued to one/);
    const withClaims = createOauthProviders.parameters.safeParse({ userId: ALICE, oauthProviders: [{ providerName: 'p', oidcClaims: { iss: ISSUER, sub: 'alice', aud: 'app' } }] });
    assert.equal(withClaims.success, false);
    assert.deepEqual(withClaims.error!.issues.map((issue) => [issue.path.join('.'), issue.message]), [
      ['oauthProviders.0.oidcClaims', 'is not taken: Signet binds only an identity an id token proves; give oidcToken instead'],
    ]);
  });
});

describe('delete_oauth_providers', () => {
  test('every provider must be the user`s, then deleted', async () => {
    const planned = await planOf(deleteOauthProviders, { userId: ALICE, providerIds: [PROVIDER.toUpperCase()] });
    assert.deepEqual(checksOf(planned), [
      {
        name: 'oauthProvidersOfUser',
        args: [ORGANIZATION_ID, ALICE, [PROVIDER]],
        message: `parameters.providerIds: not every one is an OAuth provider of user ${ALICE} in organization ${ORGANIZATION_ID}; nothing was deleted`,
      },
    ]);
    assert.deepEqual(effectsOf(planned, 'write').map((write) => [write.name, ...write.args]), [['deleteOauthProviders', ORGANIZATION_ID, ALICE, [PROVIDER]]]);
    assert.deepEqual(planned.result, { providerIds: [PROVIDER] });
  });
});
