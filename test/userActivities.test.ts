// User and passkey management by activity through @turnkey/http's TurnkeyClient and @turnkey/sdk-server's
// apiClient(), stamped by the organization's root key: update_user (name, contacts, tags; "" removes a
// contact), update_user_email / update_user_phone_number (a verification token of verify_otp makes the
// new contact verified, once), update_user_name, delete_users (a quorum member refused, the removed
// user's key refused at once), create_authenticators (a real registration that then stamps) and
// delete_authenticators (the passkey refused at once); every read back through get_user, and a user
// outside the root quorum without a policy refused each write.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { createSoftwareAuthenticator, v1Attestation, webauthnStamperFor } from './support/softwareAuthenticator.ts';
import { until } from './support/until.ts';

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;
const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';
/** The default SMS shows the code in two groups; it is encrypted as it reads. */
const SMS_CODE = /^([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5}) is your /;

type KeyPair = { apiPublicKey: string; apiPrivateKey: string };

for (const tdb of testDatabases) {
  describe(`user and passkey activities (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    let root: TurnkeyClient;
    let signerKey: string;
    let made = 0;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, {
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_EMAIL_FROM: 'otp@signet.test',
        SIGNET_WEBAUTHN_RP_ID: RP_ID,
        SIGNET_WEBAUTHN_ORIGINS: ORIGIN,
      });
      org = await server.createOrganization('People');
      root = server.client(org);
      const keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as { otpEncryptionBundleSignerPublicKey: string };
      signerKey = keys.otpEncryptionBundleSignerPublicKey;
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    const stamp = () => ({ timestampMs: String(Date.now()), organizationId: org.organizationId });

    /** The server-side SDK as an app's backend holds it: the organization's root key. */
    const sdk = () =>
      new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey, defaultOrganizationId: org.organizationId }).apiClient();

    /** A user with an API key of its own (create_users), and its key pair. */
    async function newUser(extra: { userEmail?: string; userPhoneNumber?: string } = {}): Promise<{ userId: string; key: KeyPair }> {
      const key = generateApiKeyPair();
      const { userIds } = await sdk().createUsers({
        users: [
          {
            userName: `Person ${++made}`,
            ...extra,
            apiKeys: [{ apiKeyName: 'laptop', publicKey: key.apiPublicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
            userTags: [],
          },
        ],
      });
      return { userId: userIds[0]!, key };
    }

    const getUser = async (userId: string) => (await root.getUser({ organizationId: org.organizationId, userId })).user;
    const verifiedAt = async (userId: string) =>
      (await server.db.query<{ email: Date | null; phone: Date | null }>('SELECT email_verified_at AS email, phone_number_verified_at AS phone FROM users WHERE id = $1', [userId]))[0]!;
    const email = () => `person-${randomUUID().slice(0, 8)}@example.com`;

    /** init_otp and verify_otp V2 for `contact` through sdk-server, the code read from the mail sent: the verification token. */
    async function verificationTokenFor(contact: string): Promise<string> {
      const client = sdk();
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact, appName: 'People' });
      const code = await smtp.nextCodeTo(contact);
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, generateP256KeyPair().publicKey, signerKey);
      return (await client.verifyOtp({ otpId, encryptedOtpBundle })).verificationToken;
    }

    test('update_user changes name, contacts and tags, read back through get_user; "" removes a contact; a taken email is a 400', async () => {
      const { userId } = await newUser({ userEmail: email() });
      const tag = await root.createUserTag({ type: 'ACTIVITY_TYPE_CREATE_USER_TAG', ...stamp(), parameters: { userTagName: `t-${randomUUID().slice(0, 8)}`, userIds: [] } });
      const tagId = tag.activity.result.createUserTagResult!.userTagId;
      const address = email();
      const answer = await root.updateUser({
        type: 'ACTIVITY_TYPE_UPDATE_USER',
        ...stamp(),
        parameters: { userId, userName: 'Renamed', userEmail: address.toUpperCase(), userPhoneNumber: '+1 415 555 2671', userTagIds: [tagId] },
      });
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(answer.activity.result.updateUserResult, { userId });
      assert.equal(answer.activity.intent.updateUserIntent!.userEmail, address, 'the intent holds the email as stored');
      let user = await getUser(userId);
      assert.equal(user.userName, 'Renamed');
      assert.equal(user.userEmail, address);
      assert.equal(user.userPhoneNumber, '+14155552671');
      assert.deepEqual(user.userTags, [tagId]);

      // "" removes the contacts; [] takes the tags away; a name left out stays.
      await root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userEmail: '', userPhoneNumber: '', userTagIds: [] } });
      user = await getUser(userId);
      assert.equal(user.userName, 'Renamed');
      assert.equal(user.userEmail ?? '', '');
      assert.equal(user.userPhoneNumber ?? '', '');
      assert.deepEqual(user.userTags, []);

      // Another user's email, in any case: refused, naming the field; the user's own is no conflict.
      const taken = email();
      await newUser({ userEmail: taken });
      await refused(
        root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userEmail: taken.toUpperCase() } }),
        INVALID_ARGUMENT,
        /already the email address of another user/,
        'parameters.userEmail',
      );
      await root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userEmail: address } });
      await root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userEmail: address } });
      assert.equal((await getUser(userId)).userEmail, address);
      // Unknown user and tag, nothing to change, a bad phone number.
      await refused(root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId: randomUUID(), userName: 'x' } }), NOT_FOUND, /parameters\.userId: no user/);
      await refused(root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userTagIds: [randomUUID()] } }), NOT_FOUND, /parameters\.userTagIds\[0\]/);
      await refused(root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId } }), INVALID_ARGUMENT, /changes nothing/);
      await refused(
        root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userPhoneNumber: '4155552671' } }),
        INVALID_ARGUMENT,
        /international form/,
        'parameters.userPhoneNumber',
      );
    });

    test('update_user_name and update_user_phone_number, read back through get_user; "" removes the number', async () => {
      const { userId } = await newUser();
      const named = await root.updateUserName({ type: 'ACTIVITY_TYPE_UPDATE_USER_NAME', ...stamp(), parameters: { userId, userName: 'Carol' } });
      assert.deepEqual(named.activity.result.updateUserNameResult, { userId });
      assert.equal((await getUser(userId)).userName, 'Carol');
      await refused(root.updateUserName({ type: 'ACTIVITY_TYPE_UPDATE_USER_NAME', ...stamp(), parameters: { userId, userName: '  ' } }), INVALID_ARGUMENT, /empty/, 'parameters.userName');

      const phoned = await root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: '+44 20 7946 0958' } });
      assert.deepEqual(phoned.activity.result.updateUserPhoneNumberResult, { userId });
      assert.equal((await getUser(userId)).userPhoneNumber, '+442079460958');
      assert.equal((await verifiedAt(userId)).phone, null, 'a number without a token is not verified');
      await root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: '' } });
      assert.equal((await getUser(userId)).userPhoneNumber ?? '', '');
    });

    test('update_user_email with a verification token: the address counts as verified from then; a token for another address, or used before, is a 400', async () => {
      const { userId } = await newUser({ userEmail: email() });
      const address = email();
      const token = await verificationTokenFor(address);
      // A token for another address: refused, nothing changed, the token still unused.
      const other = await verificationTokenFor(email());
      await refused(
        root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: address, verificationToken: other } }),
        INVALID_ARGUMENT,
        /another email address/,
        'parameters.verificationToken',
      );
      await refused(
        root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: address, verificationToken: 'not.a.token' } }),
        INVALID_ARGUMENT,
        /verification token/,
        'parameters.verificationToken',
      );
      assert.notEqual((await getUser(userId)).userEmail, address);

      const before = Date.now();
      const answer = await root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: address.toUpperCase(), verificationToken: token } });
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(answer.activity.result.updateUserEmailResult, { userId });
      assert.equal(answer.activity.intent.updateUserEmailIntent!.verificationToken, '[redacted]', 'the token is not kept');
      assert.equal((await getUser(userId)).userEmail, address);
      const moment = (await verifiedAt(userId)).email;
      assert.ok(moment && moment.getTime() >= before - 5_000 && moment.getTime() <= Date.now() + 5_000, `verified now: ${moment}`);

      // Used once: another user may not take the same proof.
      const second = await newUser();
      await refused(
        root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId: second.userId, userEmail: address, verificationToken: token } }),
        INVALID_ARGUMENT,
        /./,
      );
      await root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: '' } });
      await refused(
        root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: address, verificationToken: token } }),
        INVALID_ARGUMENT,
        /already used/,
        'parameters.verificationToken',
      );
      // Without a token the new address is not verified.
      await root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: address } });
      assert.equal((await verifiedAt(userId)).email, null);
    });

    test("a token verified in the organization's parent proves the contact in the sub-organization; one of an unrelated organization does not", async () => {
      const child = await server.createOrganization('Child');
      const unrelated = await server.createOrganization('Unrelated');
      await server.db.query('UPDATE organizations SET parent_id = $1 WHERE id = $2', [org.organizationId, child.organizationId]);
      const childRoot = server.client(child);
      const childStamp = () => ({ timestampMs: String(Date.now()), organizationId: child.organizationId });
      const address = email();
      const fromParent = await verificationTokenFor(address);
      // A token of another organization, which is not this one's parent.
      const elsewhere = new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: unrelated.apiPublicKey, apiPrivateKey: unrelated.apiPrivateKey, defaultOrganizationId: unrelated.organizationId }).apiClient();
      const { otpId, otpEncryptionTargetBundle } = await elsewhere.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: address, appName: 'Unrelated' });
      const code = await smtp.nextCodeTo(address);
      const { verificationToken: fromUnrelated } = await elsewhere.verifyOtp({
        otpId,
        encryptedOtpBundle: await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, generateP256KeyPair().publicKey, signerKey),
      });
      await refused(
        childRoot.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...childStamp(), parameters: { userId: child.userId, userEmail: address, verificationToken: fromUnrelated } }),
        INVALID_ARGUMENT,
        /neither this organization nor its parent/,
        'parameters.verificationToken',
      );
      await childRoot.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...childStamp(), parameters: { userId: child.userId, userEmail: address, verificationToken: fromParent } });
      assert.equal((await childRoot.getUser({ organizationId: child.organizationId, userId: child.userId })).user.userEmail, address);
      assert.notEqual((await verifiedAt(child.userId)).email, null);
      // The parent's token does not prove the contact in the parent's own parentless siblings: the unrelated organization's refuses the child's token in turn.
      await refused(
        server.client(unrelated).updateUserEmail({
          type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
          timestampMs: String(Date.now()),
          organizationId: unrelated.organizationId,
          parameters: { userId: unrelated.userId, userEmail: address, verificationToken: fromParent },
        }),
        INVALID_ARGUMENT,
        /neither this organization nor its parent/,
        'parameters.verificationToken',
      );
    });

    test("changing tags, the email or the name (what policies read of a user) raises the authority version; changing only the phone number does not", async () => {
      const { userId } = await newUser();
      const version = async () => BigInt((await server.db.query<{ v: string }>('SELECT authority_version::text AS v FROM organizations WHERE id = $1', [org.organizationId]))[0]!.v);
      const before = await version();
      await root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: '+14155556666' } });
      assert.equal(await version(), before);
      await root.updateUserName({ type: 'ACTIVITY_TYPE_UPDATE_USER_NAME', ...stamp(), parameters: { userId, userName: 'Another name' } });
      assert.equal(await version(), before + 1n);
      await root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: email() } });
      assert.equal(await version(), before + 2n);
      await root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userTagIds: [] } });
      assert.equal(await version(), before + 3n);
    });

    test('one user changed by many requests at once: each completes, the last written stays', { skip: tdb.name === 'postgres' ? false : 'the embedded store has one connection: requests never overlap in it' }, async () => {
      const { userId } = await newUser();
      const names = Array.from({ length: 8 }, (_, i) => `Name ${i}`);
      const outcomes = await Promise.allSettled([
        ...names.map((userName) => root.updateUserName({ type: 'ACTIVITY_TYPE_UPDATE_USER_NAME', ...stamp(), parameters: { userId, userName } })),
        root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: '+14155557777' } }),
      ]);
      assert.deepEqual(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason)), []);
      const user = await getUser(userId);
      assert.ok(names.includes(user.userName));
      assert.equal(user.userPhoneNumber, '+14155557777');
    });

    test('two users changed to one email at once: one gets it, the other a 400 naming the field', { skip: tdb.name === 'postgres' ? false : 'the embedded store has one connection: requests never overlap in it' }, async () => {
      const users = await Promise.all(Array.from({ length: 6 }, () => newUser()));
      const address = email();
      const outcomes = await Promise.allSettled(
        users.map(({ userId }) => root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId, userEmail: address } })),
      );
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      for (const o of outcomes) {
        if (o.status === 'rejected') assert.match(String((o.reason as Error).message), /already the email address of another user|concurrent request/);
      }
      const [row] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE email = $1', [address]);
      assert.equal(row!.n, 1);
    });

    test('update_user_phone_number with a verification token of an SMS code: the number counts as verified; an email token does not prove it', async () => {
      const { userId } = await newUser();
      const phone = `+1415555${String(3000 + made).slice(-4)}`;
      const client = sdk();
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: 'OTP_TYPE_SMS', contact: phone, appName: 'People' });
      const smsLog = path.join(server.dataDir, 'sms.log');
      const code: string = await until(`an SMS to ${phone}`, () => {
        const lines = fs.existsSync(smsLog) ? fs.readFileSync(smsLog, 'utf8').trim().split('\n') : [];
        return lines.map((line) => JSON.parse(line)).filter((sms) => sms.to === phone).map((sms) => SMS_CODE.exec(sms.text)?.[1]).pop();
      });
      const { verificationToken } = await client.verifyOtp({
        otpId,
        encryptedOtpBundle: await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, generateP256KeyPair().publicKey, signerKey),
      });
      const emailToken = await verificationTokenFor(email());
      await refused(
        root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: phone, verificationToken: emailToken } }),
        INVALID_ARGUMENT,
        /OTP_TYPE_EMAIL code, not OTP_TYPE_SMS/,
        'parameters.verificationToken',
      );
      // Written as people type it: the same number in E.164.
      const typed = `+1 (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
      const answer = await root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: typed, verificationToken } });
      assert.deepEqual(answer.activity.result.updateUserPhoneNumberResult, { userId });
      assert.equal((await getUser(userId)).userPhoneNumber, phone);
      assert.notEqual((await verifiedAt(userId)).phone, null);
      // Removing the number with a token makes no sense: refused, naming the token.
      await refused(
        root.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId, userPhoneNumber: '', verificationToken } }),
        INVALID_ARGUMENT,
        /leave the token out/,
        'parameters.verificationToken',
      );
      // A change of another field keeps the number verified; a change of the number clears it.
      await root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userName: 'Still verified', userPhoneNumber: phone } });
      assert.notEqual((await verifiedAt(userId)).phone, null);
      await root.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId, userPhoneNumber: '+14155559999' } });
      assert.equal((await verifiedAt(userId)).phone, null);
    });

    test('delete_users: a member of the root quorum is a 400; another user is removed, its API key refused at once', async () => {
      await refused(
        root.deleteUsers({ type: 'ACTIVITY_TYPE_DELETE_USERS', ...stamp(), parameters: { userIds: [org.userId] } }),
        INVALID_ARGUMENT,
        /change the root quorum first/,
        'parameters.userIds[0]',
      );
      const { userId, key } = await newUser({ userEmail: email() });
      assert.equal((await server.client(key).getWhoami({ organizationId: org.organizationId })).userId, userId);
      await refused(root.deleteUsers({ type: 'ACTIVITY_TYPE_DELETE_USERS', ...stamp(), parameters: { userIds: [userId, randomUUID()] } }), NOT_FOUND, /parameters\.userIds\[1\]/);
      assert.equal((await getUser(userId)).userId, userId, 'nothing removed');

      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      await root.createAuthenticators({
        type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
        ...stamp(),
        parameters: { userId, authenticators: [{ authenticatorName: 'phone', challenge, attestation: v1Attestation(passkey.register(challenge)) as any }] },
      });
      const byPasskey = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(passkey) as any);
      assert.equal((await byPasskey.getWhoami({ organizationId: org.organizationId })).userId, userId);

      const answer = await root.deleteUsers({ type: 'ACTIVITY_TYPE_DELETE_USERS', ...stamp(), parameters: { userIds: [userId] } });
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(answer.activity.result.deleteUsersResult, { userIds: [userId] });
      await refused(server.client(key).getWhoami({ organizationId: org.organizationId }), UNAUTHENTICATED, /revoked/);
      await refused(byPasskey.getWhoami({ organizationId: org.organizationId }), UNAUTHENTICATED, /revoked/);
      await refused(getUser(userId), NOT_FOUND, /./);
      await refused(root.deleteUsers({ type: 'ACTIVITY_TYPE_DELETE_USERS', ...stamp(), parameters: { userIds: [userId] } }), NOT_FOUND, /parameters\.userIds\[0\]/);
    });

    test('create_authenticators registers a real passkey that then stamps; delete_authenticators revokes it at once', async () => {
      const { userId } = await newUser();
      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      const registration = { authenticatorName: 'phone', challenge, attestation: v1Attestation(passkey.register(challenge)) };
      const answer = await root.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: [registration as any] } });
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const [authenticatorId] = answer.activity.result.createAuthenticatorsResult!.authenticatorIds as [string];
      const user = await getUser(userId);
      assert.deepEqual(user.authenticators.map((a) => a.authenticatorId), [authenticatorId]);
      assert.equal(user.authenticators[0]!.credentialId, passkey.credentialId);

      const byPasskey = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(passkey) as any);
      assert.equal((await byPasskey.getWhoami({ organizationId: org.organizationId })).userId, userId);

      // Registered already: a 400 naming it. A challenge that is not the one signed: a 400.
      await refused(
        root.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: [registration as any] } }),
        INVALID_ARGUMENT,
        /already registered/,
        'parameters.authenticators[0].attestation',
      );
      const other = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const wrong = { authenticatorName: 'x', challenge: randomBytes(32).toString('base64url'), attestation: v1Attestation(other.register(challenge)) };
      await refused(
        root.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: [wrong as any] } }),
        INVALID_ARGUMENT,
        /./,
      );
      // At most 10 passkeys per user: 9 more fit, the 11th does not.
      const nine = Array.from({ length: 9 }, (_, i) => {
        const c = randomBytes(32).toString('base64url');
        return { authenticatorName: `k${i}`, challenge: c, attestation: v1Attestation(createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN }).register(c)) };
      });
      await root.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: nine as any } });
      const c = randomBytes(32).toString('base64url');
      const eleventh = { authenticatorName: 'k10', challenge: c, attestation: v1Attestation(createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN }).register(c)) };
      await refused(
        root.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: [eleventh as any] } }),
        INVALID_ARGUMENT,
        /more than 10 passkeys/,
        'parameters.authenticators',
      );

      await refused(
        root.deleteAuthenticators({ type: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', ...stamp(), parameters: { userId, authenticatorIds: [randomUUID()] } }),
        NOT_FOUND,
        /parameters\.authenticatorIds\[0\]/,
      );
      const deleted = await root.deleteAuthenticators({ type: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', ...stamp(), parameters: { userId, authenticatorIds: [authenticatorId] } });
      assert.deepEqual(deleted.activity.result.deleteAuthenticatorsResult, { authenticatorIds: [authenticatorId] });
      await refused(byPasskey.getWhoami({ organizationId: org.organizationId }), UNAUTHENTICATED, /revoked/);
      assert.ok(!(await getUser(userId)).authenticators.some((a) => a.authenticatorId === authenticatorId));
      // A passkey of a root quorum user may revoke itself: the activity completes, its next request is refused.
      const selfUser = await newUser();
      await server.joinRootQuorum(org.organizationId, selfUser.userId);
      const own = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const ownChallenge = randomBytes(32).toString('base64url');
      const [ownId] = (
        await root.createAuthenticators({
          type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
          ...stamp(),
          parameters: { userId: selfUser.userId, authenticators: [{ authenticatorName: 'own', challenge: ownChallenge, attestation: v1Attestation(own.register(ownChallenge)) as any }] },
        })
      ).activity.result.createAuthenticatorsResult!.authenticatorIds as [string];
      const byOwn = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(own) as any);
      const revokedItself = await byOwn.deleteAuthenticators({ type: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', ...stamp(), parameters: { userId: selfUser.userId, authenticatorIds: [ownId] } });
      assert.equal(revokedItself.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await refused(byOwn.getWhoami({ organizationId: org.organizationId }), UNAUTHENTICATED, /revoked/);
      await server.db.query('DELETE FROM root_quorum_members WHERE user_id = $1', [selfUser.userId]);
      await server.db.query('UPDATE organizations SET authority_version = authority_version + 1 WHERE id = $1', [org.organizationId]);

      // A freed place: the 11th fits now.
      await root.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: [eleventh as any] } });
    });

    test('a user outside the root quorum without a policy is refused each write (403)', async () => {
      const { userId, key } = await newUser();
      const target = await newUser();
      const client = server.client(key);
      const challenge = randomBytes(32).toString('base64url');
      const registration = { authenticatorName: 'phone', challenge, attestation: v1Attestation(createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN }).register(challenge)) };
      const writes: Array<() => Promise<unknown>> = [
        () => client.updateUser({ type: 'ACTIVITY_TYPE_UPDATE_USER', ...stamp(), parameters: { userId: target.userId, userName: 'x' } }),
        () => client.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId: target.userId, userEmail: email() } }),
        () => client.updateUserPhoneNumber({ type: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', ...stamp(), parameters: { userId: target.userId, userPhoneNumber: '+14155552672' } }),
        () => client.updateUserName({ type: 'ACTIVITY_TYPE_UPDATE_USER_NAME', ...stamp(), parameters: { userId, userName: 'me' } }),
        () => client.deleteUsers({ type: 'ACTIVITY_TYPE_DELETE_USERS', ...stamp(), parameters: { userIds: [target.userId] } }),
        () => client.createAuthenticators({ type: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2', ...stamp(), parameters: { userId, authenticators: [registration as any] } }),
        () => client.deleteAuthenticators({ type: 'ACTIVITY_TYPE_DELETE_AUTHENTICATORS', ...stamp(), parameters: { userId, authenticatorIds: [randomUUID()] } }),
      ];
      for (const write of writes) await refused(write(), PERMISSION_DENIED, /is not allowed for user/);
      const user = await getUser(target.userId);
      assert.match(user.userName, /^Person /);
      assert.equal(user.userEmail ?? '', '');
    });

    test("a policy naming a user's email follows the change of the email at once, though the user's key was used before it", async () => {
      const address = email();
      const boss = await newUser({ userEmail: address });
      const asBoss = server.client({ apiPublicKey: boss.key.apiPublicKey, apiPrivateKey: boss.key.apiPrivateKey });
      const tagBody = () => ({ type: 'ACTIVITY_TYPE_CREATE_USER_TAG', ...stamp(), parameters: { userTagName: `t-${randomUUID().slice(0, 8)}`, userIds: [] } });
      await root.createPolicy({
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        ...stamp(),
        parameters: {
          policyName: `the boss tags ${address}`,
          effect: 'EFFECT_ALLOW',
          consensus: `approvers.any(user, user.email == '${address}')`,
          condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
          notes: '',
        },
      });
      assert.equal((await asBoss.createUserTag(tagBody() as any)).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await root.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...stamp(), parameters: { userId: boss.userId, userEmail: email() } });
      await refused(asBoss.createUserTag(tagBody() as any), 7, /is not allowed for user/);
    });

    test('with two approvals needed, a change of email without a token waits for them; one carrying a token is refused (the token is not kept)', async () => {
      const two = await server.createOrganization('Two approvers');
      const second = await server.admin('POST', `/organizations/${two.organizationId}/users`, { userName: 'second' });
      await server.admin('PUT', `/organizations/${two.organizationId}/root-quorum`, { threshold: 2, userIds: [two.userId, second.userId] });
      const client = server.client(two);
      const at = () => ({ timestampMs: String(Date.now()), organizationId: two.organizationId });
      const waiting = await client.updateUserEmail({ type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', ...at(), parameters: { userId: two.userId, userEmail: email() } });
      assert.equal(waiting.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      await refused(
        client.updateUserEmail({
          type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
          ...at(),
          parameters: { userId: two.userId, userEmail: email(), verificationToken: await verificationTokenFor(email()) },
        }),
        7,
        /needs more approvals, and it cannot wait for them/,
      );
    });
  });
}
