// The credentials' handlers' rules, read from their effects as plain data (no store): the user they
// are for must be active, the bounds per user (API keys of each lifetime, passkeys), the public keys
// and credential ids taken unique with the refusal each take gives from its detail, the lock on the
// user's credentials that makes concurrent registrations count each other, and the revocations.
import assert from 'node:assert/strict';
import { createECDH, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { PUBLIC_KEY_TAKEN, RACED } from '../src/activities/handlers/credentials/apiKeyParameters.ts';
import { createApiKeys } from '../src/activities/handlers/credentials/createApiKeys.ts';
import { createAuthenticators } from '../src/activities/handlers/credentials/createAuthenticators.ts';
import { MAX_API_KEYS_PER_USER, MAX_AUTHENTICATORS_PER_USER } from '../src/activities/handlers/credentials/credentialKinds.ts';
import { deleteApiKeys } from '../src/activities/handlers/credentials/deleteApiKeys.ts';
import { deleteAuthenticators } from '../src/activities/handlers/credentials/deleteAuthenticators.ts';
import { recoverUser } from '../src/activities/handlers/auth/recoverUser.ts';
import type { ExecutionContext } from '../src/activities/handler.ts';
import type { Principal } from '../src/auth/principal.ts';
import { loadConfig } from '../src/config.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf, rulesContext } from './support/handlerRules.ts';
import { createSoftwareAuthenticator, v1Attestation } from './support/softwareAuthenticator.ts';

const ALICE = '0c9a3f5e-7b1d-4c2e-8f6a-5d4e3c2b1a09';
const KEY = '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const OTHER_KEY = 'ab8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';
const USER_NOT_FOUND = `parameters.userId: no user ${ALICE} in organization ${ORGANIZATION_ID} (or it was removed)`;

function publicKey(): { compressed: string; uncompressed: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { compressed: ecdh.getPublicKey('hex', 'compressed'), uncompressed: ecdh.getPublicKey('hex', 'uncompressed') };
}

const apiKey = (key: string, expirationSeconds?: string) => ({
  apiKeyName: 'ci',
  publicKey: key,
  curveType: 'API_KEY_CURVE_P256',
  ...(expirationSeconds === undefined ? {} : { expirationSeconds }),
});

function passkey(challenge = randomBytes(32).toString('base64url')) {
  const authenticator = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
  return { authenticator, parameter: { authenticatorName: 'phone', challenge, attestation: v1Attestation(authenticator.register(challenge)) } };
}

const webauthn = { config: loadConfig({ SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN }) };

describe('create_api_keys', () => {
  test('the user must be active; each lifetime given is bounded apart, named by its first key; the keys are taken unique, written, the user`s credentials locked', async () => {
    const [a, b, c] = [publicKey(), publicKey(), publicKey()];
    const plan = await planOf(createApiKeys, { userId: ALICE.toUpperCase(), apiKeys: [apiKey(a.uncompressed, '60'), apiKey(b.compressed), apiKey(c.compressed)] });
    assert.deepEqual(checksOf(plan), [
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: USER_NOT_FOUND },
      {
        name: 'userApiKeysWithin',
        args: [ALICE, NOW, false, 2, MAX_API_KEYS_PER_USER],
        message: `parameters.apiKeys[1]: the user would have more than ${MAX_API_KEYS_PER_USER} live API keys that do not expire (2 in this request); delete some first (delete_api_keys)`,
      },
      {
        name: 'userApiKeysWithin',
        args: [ALICE, NOW, true, 1, MAX_API_KEYS_PER_USER],
        message: `parameters.apiKeys[0]: the user would have more than ${MAX_API_KEYS_PER_USER} live API keys that expire (1 in this request); delete some first (delete_api_keys)`,
      },
    ]);
    assert.equal(effectsOf(plan, 'check')[0]!.error.status, 404);
    const [take] = effectsOf(plan, 'take');
    assert.deepEqual([take?.name, take?.args], ['apiKeys', [ORGANIZATION_ID, [a.compressed, b.compressed, c.compressed]]]);
    const [insert] = effectsOf(plan, 'write');
    const ids = (plan.result as { apiKeyIds: string[] }).apiKeyIds;
    assert.deepEqual(insert?.args, [
      ORGANIZATION_ID,
      [
        { id: ids[0], userId: ALICE, name: 'ci', publicKey: a.compressed, expiresAt: new Date(NOW.getTime() + 60_000) },
        { id: ids[1], userId: ALICE, name: 'ci', publicKey: b.compressed, expiresAt: null },
        { id: ids[2], userId: ALICE, name: 'ci', publicKey: c.compressed, expiresAt: null },
      ],
      NOW,
    ]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, ALICE]]]);
    assert.deepEqual(effectsOf(plan, 'changeAuthority'), []);
  });

  test('only the lifetimes given are bounded', async () => {
    const plan = await planOf(createApiKeys, { userId: ALICE, apiKeys: [apiKey(publicKey().compressed, '60')] });
    assert.deepEqual(checksOf(plan).map((c) => [c.name, c.args[2]]), [['userActive', undefined], ['userApiKeysWithin', true]]);
  });

  test('a public key the tree has is PUBLIC_KEY_TAKEN naming its field; an empty detail means a concurrent request took one', async () => {
    const [a, b] = [publicKey(), publicKey()];
    const plan = await planOf(createApiKeys, { userId: ALICE, apiKeys: [apiKey(a.compressed), apiKey(b.uncompressed)] });
    const [take] = effectsOf(plan, 'take');
    const refused = take!.error([b.compressed]);
    assert.equal(refused.reason, 'PUBLIC_KEY_TAKEN');
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.fieldViolations, [{ field: 'parameters.apiKeys[1].publicKey', description: PUBLIC_KEY_TAKEN }]);
    assert.deepEqual(take!.error([]).fieldViolations, [{ field: 'parameters.apiKeys', description: `a public key ${RACED}` }]);
  });
});

describe('create_authenticators', () => {
  test('the user must be active and stay within its passkeys; the credential ids are taken unique; the user`s credentials are locked', async () => {
    const [one, two] = [passkey(), passkey()];
    const plan = await planOf(createAuthenticators, { userId: ALICE, authenticators: [one.parameter, two.parameter] }, webauthn);
    assert.deepEqual(checksOf(plan), [
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: USER_NOT_FOUND },
      {
        name: 'userAuthenticatorsWithin',
        args: [ALICE, 2, MAX_AUTHENTICATORS_PER_USER],
        message: `parameters.authenticators: the user would have more than ${MAX_AUTHENTICATORS_PER_USER} passkeys (2 in this request); delete some first (delete_authenticators)`,
      },
    ]);
    const [take] = effectsOf(plan, 'take');
    assert.deepEqual([take?.name, take?.args], ['credentialIds', [[one.authenticator.credentialId, two.authenticator.credentialId]]]);
    assert.deepEqual(take!.error([two.authenticator.credentialId]).fieldViolations, [
      { field: 'parameters.authenticators[1].attestation', description: 'this credential is already registered' },
    ]);
    assert.deepEqual(take!.error([]).fieldViolations, [{ field: 'parameters.authenticators', description: `a passkey ${RACED}` }]);
    const [insert] = effectsOf(plan, 'write');
    assert.equal(insert?.name, 'insertAuthenticators');
    const ids = (plan.result as { authenticatorIds: string[] }).authenticatorIds;
    assert.deepEqual(
      (insert?.args[1] as Array<{ id: string; userId: string; name: string; credentialId: string }>).map(({ id, userId, name, credentialId }) => ({ id, userId, name, credentialId })),
      [
        { id: ids[0], userId: ALICE, name: 'phone', credentialId: one.authenticator.credentialId },
        { id: ids[1], userId: ALICE, name: 'phone', credentialId: two.authenticator.credentialId },
      ],
    );
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, ALICE]]]);
  });

  test('one credential registered twice in a request is refused before anything is planned', async () => {
    const one = passkey();
    await assert.rejects(planOf(createAuthenticators, { userId: ALICE, authenticators: [one.parameter, one.parameter] }, webauthn), {
      message: 'parameters.authenticators[1].attestation: registers the same credential as parameters.authenticators[0].attestation; each passkey may appear once',
    });
  });
});

describe('delete_api_keys and delete_authenticators', () => {
  test('each key must be the user`s and not revoked (a 404 naming it); all are revoked at once', async () => {
    const plan = await planOf(deleteApiKeys, { userId: ALICE.toUpperCase(), apiKeyIds: [KEY, OTHER_KEY.toUpperCase()] });
    assert.deepEqual(checksOf(plan), [
      { name: 'apiKeyOfUserNotRevoked', args: [ORGANIZATION_ID, ALICE, KEY], message: `parameters.apiKeyIds[0]: no API key ${KEY} of user ${ALICE} in organization ${ORGANIZATION_ID} that is not revoked` },
      {
        name: 'apiKeyOfUserNotRevoked',
        args: [ORGANIZATION_ID, ALICE, OTHER_KEY],
        message: `parameters.apiKeyIds[1]: no API key ${OTHER_KEY} of user ${ALICE} in organization ${ORGANIZATION_ID} that is not revoked`,
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'check').map((c) => c.error.reason), ['API_KEY_NOT_FOUND', 'API_KEY_NOT_FOUND']);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['revokeApiKeys', [{ organizationId: ORGANIZATION_ID, userId: ALICE, ids: [KEY, OTHER_KEY], now: NOW }]]]);
    assert.deepEqual(effectsOf(plan, 'lock'), []);
  });

  test('each passkey must be the user`s and not revoked; all are revoked at once', async () => {
    const plan = await planOf(deleteAuthenticators, { userId: ALICE, authenticatorIds: [KEY.toUpperCase()] });
    assert.deepEqual(checksOf(plan), [
      {
        name: 'authenticatorOfUserNotRevoked',
        args: [ORGANIZATION_ID, ALICE, KEY],
        message: `parameters.authenticatorIds[0]: no passkey ${KEY} of user ${ALICE} in organization ${ORGANIZATION_ID} that is not revoked`,
      },
    ]);
    assert.equal(effectsOf(plan, 'check')[0]!.error.reason, 'AUTHENTICATOR_NOT_FOUND');
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['revokeAuthenticators', [{ organizationId: ORGANIZATION_ID, userId: ALICE, ids: [KEY], now: NOW }]]]);
  });
});

describe('recover_user', () => {
  const RECOVERY_KEY = '3f2e1d0c-9b8a-4c7d-8e6f-5a4b3c2d1e0f';
  /** A principal of `userId` stamping with a key of `credentialType`. */
  function stampedBy(userId: string, credentialType: Principal['credentialType']): Partial<ExecutionContext> {
    const base = rulesContext(recoverUser).principal;
    return { ...webauthn, principal: { ...base, userId, credentialType, credential: { kind: 'apiKey', apiKeyId: RECOVERY_KEY, now: NOW } } };
  }

  test("the recovery key's own user gets the passkey, registered as create_authenticators registers it, and the key is revoked by the same statement", async () => {
    const { parameter } = passkey();
    const plan = await planOf(recoverUser, { userId: ALICE, authenticator: parameter }, stampedBy(ALICE, 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256'));
    assert.equal((plan.result as { authenticatorId: string[] }).authenticatorId.length, 1);
    assert.deepEqual(checksOf(plan)[0], { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: USER_NOT_FOUND });
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['insertAuthenticators', 'revokeApiKeys']);
    assert.deepEqual(writes[1]!.args, [{ organizationId: ORGANIZATION_ID, userId: ALICE, ids: [RECOVERY_KEY], now: NOW }]);
  });

  test("refused with a 403: stamped with any other credential, or for another user than the key's", async () => {
    const { parameter } = passkey();
    await assert.rejects(planOf(recoverUser, { userId: ALICE, authenticator: parameter }, stampedBy(ALICE, 'CREDENTIAL_TYPE_API_KEY_P256')), (error: any) => error.status === 403 && /stamped with the recovery key/.test(error.message));
    const other = '5d2c8e4a-1b3f-4a6c-9e7d-2f1a0b9c8d7e';
    await assert.rejects(planOf(recoverUser, { userId: ALICE, authenticator: parameter }, stampedBy(other, 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256')), (error: any) => error.status === 403 && /recovers that user only/.test(error.message));
  });
});
