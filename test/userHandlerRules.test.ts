// The users' handlers' rules, read from their effects as plain data (no store): the bound on an
// organization's users, the contacts, public keys and passkeys taken unique (and the refusal each
// take gives from its detail), the tags checked and locked, who may not be removed (a root-quorum
// member), the token a proven contact uses, and which changes are changes of the organization's authority.
import assert from 'node:assert/strict';
import { createECDH, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ExecutionContext } from '../src/activities/handler.ts';
import type { ServiceKeys } from '../src/activities/lifecycle/serviceKeys.ts';
import { PUBLIC_KEY_TAKEN, RACED } from '../src/activities/handlers/credentials/apiKeyParameters.ts';
import { createUsers, MAX_ORGANIZATION_USERS } from '../src/activities/handlers/users/createUsers.ts';
import { createUserTag, MAX_USER_TAGS } from '../src/activities/handlers/users/createUserTag.ts';
import { deleteUsers } from '../src/activities/handlers/users/deleteUsers.ts';
import { deleteUserTags } from '../src/activities/handlers/users/deleteUserTags.ts';
import { updateUser } from '../src/activities/handlers/users/updateUser.ts';
import { updateUserEmail } from '../src/activities/handlers/users/updateUserEmail.ts';
import { updateUserName } from '../src/activities/handlers/users/updateUserName.ts';
import { updateUserPhoneNumber } from '../src/activities/handlers/users/updateUserPhoneNumber.ts';
import { loadConfig } from '../src/config.ts';
import { signVerificationToken } from '../src/otp/verificationToken.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf } from './support/handlerRules.ts';
import { createSoftwareAuthenticator, v1Attestation } from './support/softwareAuthenticator.ts';

const ALICE = '0c9a3f5e-7b1d-4c2e-8f6a-5d4e3c2b1a09';
const BOB = '1d9a3f5e-7b1d-4c2e-8f6a-5d4e3c2b1a09';
const TAG = 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
const OTHER_TAG = 'd1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f';
const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';

function publicKey(): { compressed: string; uncompressed: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { compressed: ecdh.getPublicKey('hex', 'compressed'), uncompressed: ecdh.getPublicKey('hex', 'uncompressed') };
}

const apiKey = (key: string, expirationSeconds?: string) => ({
  apiKeyName: 'laptop',
  publicKey: key,
  curveType: 'API_KEY_CURVE_P256',
  ...(expirationSeconds === undefined ? {} : { expirationSeconds }),
});

const newUser = (fields: Record<string, unknown>) => ({ userName: 'user', apiKeys: [], authenticators: [], oauthProviders: [], userTags: [], ...fields });

const takeOf = (plan: Awaited<ReturnType<typeof planOf>>, name: string) => effectsOf(plan, 'take').find((t) => t.name === name)!;

describe('create_users', () => {
  test('the organization stays within its users; contacts and public keys are taken unique; the users are written and the organization`s users locked', async () => {
    const key = publicKey();
    const plan = await planOf(createUsers, {
      users: [newUser({ userName: 'Alice', userEmail: 'Alice@Example.com', apiKeys: [apiKey(key.uncompressed)] }), newUser({ userName: 'Bob', userPhoneNumber: '+1 415 555 2671' })],
    });
    const userIds = (plan.result as { userIds: string[] }).userIds;
    assert.deepEqual(checksOf(plan), [
      {
        name: 'usersWithin',
        args: [ORGANIZATION_ID, 2, MAX_ORGANIZATION_USERS],
        message: `parameters.users: an organization has at most ${MAX_ORGANIZATION_USERS} users (not removed), and these 2 would make more; remove users first (delete_users)`,
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'take').map((t) => [t.name, t.args]), [
      ['usersContacts', [ORGANIZATION_ID, [{ email: 'alice@example.com', phoneNumber: undefined }, { email: undefined, phoneNumber: '+14155552671' }]]],
      // A key is taken in its compressed form, whichever form the request gave.
      ['apiKeys', [ORGANIZATION_ID, [key.compressed]]],
    ]);
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['insertUsers', 'insertApiKeys']);
    assert.deepEqual(writes[0]!.args, [
      ORGANIZATION_ID,
      [
        { id: userIds[0], userName: 'Alice', email: 'alice@example.com', phoneNumber: undefined },
        { id: userIds[1], userName: 'Bob', email: undefined, phoneNumber: '+14155552671' },
      ],
      NOW,
    ]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['organizationUsers', [ORGANIZATION_ID]]]);
    // Users without tags change nothing policies count.
    assert.deepEqual(effectsOf(plan, 'changeAuthority'), []);
  });

  test('a taken contact or public key is refused naming the field it came from; an empty detail means a concurrent request took it', async () => {
    const key = publicKey();
    const plan = await planOf(createUsers, {
      users: [newUser({ userName: 'Alice', apiKeys: [apiKey(key.compressed)] }), newUser({ userName: 'Bob', userEmail: 'bob@example.com' })],
    });
    const contacts = takeOf(plan, 'usersContacts').error([{ index: 1, field: 'email' }]);
    assert.equal(contacts.status, 400);
    assert.deepEqual(contacts.fieldViolations, [
      { field: 'parameters.users[1].userEmail', description: 'bob@example.com is already the email address of another user of this organization; a email address belongs to one user at most' },
    ]);
    const keys = takeOf(plan, 'apiKeys').error([key.compressed]);
    assert.equal(keys.reason, 'PUBLIC_KEY_TAKEN');
    assert.deepEqual(keys.fieldViolations, [{ field: 'parameters.users[0].apiKeys[0].publicKey', description: PUBLIC_KEY_TAKEN }]);
    const raced = takeOf(plan, 'apiKeys').error([]);
    assert.deepEqual(raced.fieldViolations, [{ field: 'parameters.users', description: `a public key ${RACED}` }]);
    assert.deepEqual(takeOf(plan, 'usersContacts').error(undefined).fieldViolations, [{ field: 'parameters.users', description: `a contact ${RACED}` }]);
  });

  test('passkeys are verified, then their credential ids taken unique; a taken one is refused naming its attestation', async () => {
    const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const challenge = randomBytes(32).toString('base64url');
    const plan = await planOf(
      createUsers,
      { users: [newUser({ authenticators: [{ authenticatorName: 'phone', challenge, attestation: v1Attestation(passkey.register(challenge)) }] })] },
      { config: loadConfig({ SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN }) },
    );
    const credentialIds = takeOf(plan, 'credentialIds');
    assert.deepEqual(credentialIds.args, [[passkey.credentialId]]);
    assert.deepEqual(credentialIds.error([passkey.credentialId]).fieldViolations, [
      { field: 'parameters.users[0].authenticators[0].attestation', description: 'this credential is already registered' },
    ]);
    assert.deepEqual(effectsOf(plan, 'take').map((t) => t.name), ['credentialIds']);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => w.name), ['insertUsers', 'insertAuthenticators']);
  });

  test('each tag is checked the organization`s once, named by its first field, share-locked; tagged users change the authority', async () => {
    const plan = await planOf(createUsers, {
      users: [newUser({ userEmail: 'a@example.com', userTags: [TAG] }), newUser({ userEmail: 'b@example.com', userTags: [OTHER_TAG.toUpperCase(), TAG] })],
    });
    const userIds = (plan.result as { userIds: string[] }).userIds;
    assert.deepEqual(checksOf(plan).slice(1), [
      { name: 'userTagOfOrganization', args: [ORGANIZATION_ID, TAG], message: `parameters.users[0].userTags[0]: no user tag ${TAG} in organization ${ORGANIZATION_ID}` },
      { name: 'userTagOfOrganization', args: [ORGANIZATION_ID, OTHER_TAG], message: `parameters.users[1].userTags[0]: no user tag ${OTHER_TAG} in organization ${ORGANIZATION_ID}` },
    ]);
    assert.equal(effectsOf(plan, 'check')[1]!.error.status, 404);
    assert.deepEqual(effectsOf(plan, 'write').at(-1), {
      kind: 'write',
      name: 'insertUserTagMembers',
      args: [
        [
          { tagId: TAG, userId: userIds[0] },
          { tagId: OTHER_TAG, userId: userIds[1] },
          { tagId: TAG, userId: userIds[1] },
        ],
      ],
    });
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [
      ['organizationUsers', [ORGANIZATION_ID]],
      ['userTags', [ORGANIZATION_ID, [TAG, OTHER_TAG], 'share']],
    ]);
    assert.deepEqual(effectsOf(plan, 'changeAuthority'), [{ kind: 'changeAuthority', organizationId: ORGANIZATION_ID }]);
  });
});

describe('create_user_tag and delete_user_tags', () => {
  test('a tag needs a free name, room under the bound and active users; it changes the authority', async () => {
    const plan = await planOf(createUserTag, { userTagName: ' approvers ', userIds: [ALICE.toUpperCase()] });
    const userTagId = (plan.result as { userTagId: string }).userTagId;
    assert.deepEqual(checksOf(plan), [
      { name: 'userTagNameFree', args: [ORGANIZATION_ID, 'approvers'], message: 'parameters.userTagName: the organization already has a tag named "approvers"; tag names are unique in an organization' },
      { name: 'userTagsBelow', args: [ORGANIZATION_ID, MAX_USER_TAGS], message: `the organization has ${MAX_USER_TAGS} user tags, the most it may have; delete one first` },
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: `parameters.userIds[0]: no user ${ALICE} in organization ${ORGANIZATION_ID} (or it was removed)` },
    ]);
    assert.equal(effectsOf(plan, 'check')[2]!.error.reason, 'USER_NOT_FOUND');
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [
      ['insertUserTag', [{ id: userTagId, organizationId: ORGANIZATION_ID, name: 'approvers', now: NOW }]],
      ['insertUserTagMembers', [[{ tagId: userTagId, userId: ALICE }]]],
    ]);
    assert.equal(effectsOf(plan, 'changeAuthority').length, 1);
    const empty = await planOf(createUserTag, { userTagName: 'nobody', userIds: [] });
    assert.deepEqual(effectsOf(empty, 'write').map((w) => w.name), ['insertUserTag']);
  });

  test('a deletion checks each tag, then that the members read before are still the members; the tags are locked for update', async () => {
    // The members are read before planning: a store that answers that one read.
    const db = { query: async () => [{ members: [ALICE, BOB] }] } as unknown as ExecutionContext['db'];
    const plan = await planOf(deleteUserTags, { userTagIds: [TAG.toUpperCase(), OTHER_TAG] }, { db });
    assert.deepEqual(plan.result, { userTagIds: [TAG, OTHER_TAG], userIds: [ALICE, BOB] });
    assert.deepEqual(checksOf(plan), [
      { name: 'userTagOfOrganization', args: [ORGANIZATION_ID, TAG], message: `parameters.userTagIds[0]: no user tag ${TAG} in organization ${ORGANIZATION_ID}` },
      { name: 'userTagOfOrganization', args: [ORGANIZATION_ID, OTHER_TAG], message: `parameters.userTagIds[1]: no user tag ${OTHER_TAG} in organization ${ORGANIZATION_ID}` },
      {
        name: 'userTagMembersAre',
        args: [ORGANIZATION_ID, [TAG, OTHER_TAG], [ALICE, BOB]],
        message: 'the users of these tags changed while they were being deleted; nothing was deleted, submit again',
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userTags', [ORGANIZATION_ID, [TAG, OTHER_TAG], 'update']]]);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['deleteUserTags', [ORGANIZATION_ID, [TAG, OTHER_TAG]]]]);
    assert.equal(effectsOf(plan, 'changeAuthority').length, 1);
  });
});

describe('delete_users', () => {
  test('each user must be active and outside the root quorum, checked in that order per user; the users are locked, removed, and the authority changes', async () => {
    const plan = await planOf(deleteUsers, { userIds: [ALICE, BOB.toUpperCase()] });
    const root = 'is a member of the root quorum; change the root quorum first (update_root_quorum), then remove the user';
    assert.deepEqual(checksOf(plan), [
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: `parameters.userIds[0]: no user ${ALICE} in organization ${ORGANIZATION_ID} (or it was removed)` },
      { name: 'userOutsideRootQuorum', args: [ORGANIZATION_ID, ALICE], message: `parameters.userIds[0]: ${root}` },
      { name: 'userActive', args: [ORGANIZATION_ID, BOB], message: `parameters.userIds[1]: no user ${BOB} in organization ${ORGANIZATION_ID} (or it was removed)` },
      { name: 'userOutsideRootQuorum', args: [ORGANIZATION_ID, BOB], message: `parameters.userIds[1]: ${root}` },
    ]);
    assert.deepEqual(effectsOf(plan, 'check').map((c) => c.error.status), [404, 400, 404, 400]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['users', [ORGANIZATION_ID, [ALICE, BOB]]]]);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['removeUsers', [ORGANIZATION_ID, [ALICE, BOB], NOW]]]);
    assert.equal(effectsOf(plan, 'changeAuthority').length, 1);
  });
});

describe('update_user and its narrower forms', () => {
  test('the user must be active and each tag the organization`s; a new contact is taken unique; tags are replaced and share-locked', async () => {
    const plan = await planOf(updateUser, { userId: ALICE.toUpperCase(), userEmail: 'Alice@Example.com', userTagIds: [TAG] });
    assert.deepEqual(checksOf(plan), [
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: `parameters.userId: no user ${ALICE} in organization ${ORGANIZATION_ID} (or it was removed)` },
      { name: 'userTagOfOrganization', args: [ORGANIZATION_ID, TAG], message: `parameters.userTagIds[0]: no user tag ${TAG} in organization ${ORGANIZATION_ID}` },
    ]);
    const contact = takeOf(plan, 'userContacts');
    assert.deepEqual(contact.args, [ORGANIZATION_ID, ALICE, { email: 'alice@example.com' }]);
    const taken = contact.error([{ field: 'email' }]);
    assert.deepEqual([taken.status, taken.message], [
      400,
      'parameters.userEmail: alice@example.com is already the email address of another user of this organization; a email address belongs to one user at most',
    ]);
    assert.equal(contact.error([]).message, `parameters.userEmail: the contact ${RACED}`);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [
      ['updateUser', [ORGANIZATION_ID, ALICE, { userName: undefined, email: 'alice@example.com', phoneNumber: undefined }, NOW]],
      ['keepUserTagMembers', [ALICE, [TAG]]],
      ['insertUserTagMembers', [[{ tagId: TAG, userId: ALICE }]]],
    ]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [
      ['users', [ORGANIZATION_ID, [ALICE]]],
      ['userTags', [ORGANIZATION_ID, [TAG], 'share']],
    ]);
    assert.equal(effectsOf(plan, 'changeAuthority').length, 1);
  });

  test('[] takes every tag away without locking any; a removed contact takes nothing', async () => {
    const plan = await planOf(updateUser, { userId: ALICE, userEmail: '', userTagIds: [] });
    assert.deepEqual(effectsOf(plan, 'take'), []);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [
      ['updateUser', [ORGANIZATION_ID, ALICE, { userName: undefined, email: null, phoneNumber: undefined }, NOW]],
      ['keepUserTagMembers', [ALICE, []]],
    ]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => l.name), ['users']);
  });

  test('what policies read of a user (name, email, tags) changes the authority; a phone number does not', async () => {
    const renamed = await planOf(updateUserName, { userId: ALICE, userName: 'Alice Liddell' });
    assert.equal(effectsOf(renamed, 'changeAuthority').length, 1);
    const phone = await planOf(updateUserPhoneNumber, { userId: ALICE, userPhoneNumber: '+1 415 555 2671' });
    assert.equal(effectsOf(phone, 'changeAuthority').length, 0);
    assert.deepEqual(takeOf(phone, 'userContacts').args, [ORGANIZATION_ID, ALICE, { phoneNumber: '+14155552671' }]);
    assert.equal(takeOf(phone, 'userContacts').error([{ field: 'phoneNumber' }]).fieldViolations[0]!.field, 'parameters.userPhoneNumber');
  });

  test('a verification token proving the new email is used once, after the contact is taken; the email counts as verified', async () => {
    const { privateKey, publicKey: key } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const keys = { verifiers: async () => [{ kid: 'k1', publicKey: key }] } as unknown as ServiceKeys;
    const token = await signVerificationToken(
      { kid: 'k1', privateKey },
      { otpId: randomUUID(), contact: 'alice@example.com', otpType: 'OTP_TYPE_EMAIL', organizationId: ORGANIZATION_ID, issuedAt: NOW, expirationSeconds: 600 },
    );
    const activityId = randomUUID();
    const plan = await planOf(updateUserEmail, { userId: ALICE, userEmail: 'ALICE@example.com', verificationToken: token }, { keys, activityId });
    assert.deepEqual(effectsOf(plan, 'take').map((t) => t.name), ['userContacts', 'verificationToken']);
    const use = takeOf(plan, 'verificationToken');
    const [claims, usage, usedBy, at] = use.args as unknown as [{ organizationId: string; expiresAt: Date }, string, string, Date];
    assert.deepEqual([claims.organizationId, claims.expiresAt, usage, usedBy, at], [ORGANIZATION_ID, new Date(NOW.getTime() + 600_000), 'contact', activityId, NOW]);
    assert.equal(use.error(NOW).message, 'parameters.verificationToken: was already used; verify the contact again (init_otp, verify_otp) for a new token');
    assert.deepEqual(effectsOf(plan, 'write')[0]!.args[2], { email: 'alice@example.com', emailVerified: true });
    // Without a token the address is not verified, and nothing else is taken.
    const unproven = await planOf(updateUserEmail, { userId: ALICE, userEmail: 'alice@example.com' });
    assert.deepEqual(effectsOf(unproven, 'take').map((t) => t.name), ['userContacts']);
    assert.deepEqual(effectsOf(unproven, 'write')[0]!.args[2], { email: 'alice@example.com', emailVerified: false });
  });
});
