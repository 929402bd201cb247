// The parent's reach over its sub-organizations, through the real HTTP stack with the ecosystem's
// clients: a parent's credential reads a sub-organization and submits there the activities of an end
// user's login (decided by the parent's own quorum and policies), nothing else; a sub-organization's
// credentials act in it alone (whoami excepted, which tells the caller about itself); a verification
// token made in the parent logs into any sub-organization whose user has its contact.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { attestedStamper } from './support/attested.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;
const NOT_FOUND = 5;

type KeyPair = ReturnType<typeof generateP256KeyPair>;
type Client = ReturnType<InstanceType<typeof Turnkey>['apiClient']>;

for (const tdb of testDatabases) {
  describe(`a parent's reach over its sub-organizations (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let parent: Credentials;
    let sub: Credentials;
    let sibling: Credentials;
    let otpSignerKey: string;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      parent = await server.createOrganization('App');
      sub = await server.createOrganization('Alice');
      sibling = await server.createOrganization('Bob');
      await server.db.query('UPDATE organizations SET parent_id = $1 WHERE id = $2 OR id = $3', [parent.organizationId, sub.organizationId, sibling.organizationId]);
      otpSignerKey = ((await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as any).otpEncryptionBundleSignerPublicKey;
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    const clientOf = (credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey' | 'organizationId'>): Client =>
      new Turnkey({ apiBaseUrl: server.baseUrl, ...credentials, defaultOrganizationId: credentials.organizationId }).apiClient();


    /** init_otp and verify_otp V2 by `client` in `organizationId`: the token and the key it is bound to. */
    async function verified(client: Client, organizationId: string, email: string): Promise<{ verificationToken: string; clientKey: KeyPair }> {
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ organizationId, otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'App' });
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), otpEncryptionTargetBundle, clientKey.publicKey, otpSignerKey);
      const { verificationToken } = await client.verifyOtp({ organizationId, otpId, encryptedOtpBundle });
      return { verificationToken, clientKey };
    }

    /** otp_login by `client` into `organizationId` with the token, the session key being the token's key. */
    async function login(client: Client, organizationId: string, verificationToken: string, clientKey: KeyPair) {
      const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString('utf8')).id;
      const message = JSON.stringify({ login: { publicKey: clientKey.publicKey }, tokenId, type: 'USAGE_TYPE_LOGIN' });
      const signature = await new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }).sign(message, SignatureFormat.Raw);
      return client.otpLogin({
        organizationId,
        verificationToken,
        publicKey: clientKey.publicKey,
        clientSignature: { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature },
      });
    }

    async function endUser(organizationId: string): Promise<{ email: string; userId: string }> {
      const email = `user-${randomUUID().slice(0, 8)}@example.com`;
      const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName: email, email });
      return { email, userId };
    }

    test("the parent's credential reads a sub-organization: its users and its activities", async () => {
      const asParent = clientOf(parent);
      const { user } = await asParent.getUser({ organizationId: sub.organizationId, userId: sub.userId });
      assert.equal(user.userId, sub.userId);
      const { users } = await asParent.getUsers({ organizationId: sub.organizationId });
      assert.ok(users.some((u: any) => u.userId === sub.userId));
      await clientOf(sub).createUserTag({ userTagName: `tag-${randomUUID()}`, userIds: [] });
      const { activities } = await asParent.getActivities({ organizationId: sub.organizationId });
      assert.ok(activities.length >= 1);
      assert.ok(activities.every((a: any) => a.organizationId === sub.organizationId && a.canApprove === false && a.canReject === false));
    });

    test("the parent's credential may not write in a sub-organization, other than the login activities", async () => {
      const asParent = clientOf(parent);
      await refused(
        asParent.createUsers({
          organizationId: sub.organizationId,
          users: [{ userName: 'intruder', apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
        }),
        PERMISSION_DENIED,
        /ACTIVITY_TYPE_CREATE_USERS_V\d in organization .* needs a credential of that organization: a credential of its parent organization/,
      );
      await refused(asParent.createUserTag({ organizationId: sub.organizationId, userTagName: 'x', userIds: [] }), PERMISSION_DENIED, /parent organization/);
      const { users } = await clientOf(sub).getUsers({ organizationId: sub.organizationId });
      assert.ok(!users.some((u: any) => u.userName === 'intruder'));
    });

    test('an end user logs into its sub-organization with a code sent and verified by the parent, and acts there only', async () => {
      const asParent = clientOf(parent);
      const alice = await endUser(sub.organizationId);
      // The code is sent and checked in the parent, where the contact is no user at all.
      const { verificationToken, clientKey } = await verified(asParent, parent.organizationId, alice.email);
      // The code proves the address to the parent, which holds the token: no user's copy of it is proven yet.
      const verifiedAt = async () => (await server.db.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM users WHERE id = $1', [alice.userId]))[0]!.email_verified_at;
      assert.equal(await verifiedAt(), null);
      // No user of the parent has that email: the token logs in only where one has.
      await refused(login(asParent, parent.organizationId, verificationToken, clientKey), NOT_FOUND, /no user of this organization has the email address/);
      const { session } = await login(asParent, sub.organizationId, verificationToken, clientKey);
      const claims = JSON.parse(Buffer.from(session.split('.')[1]!, 'base64url').toString('utf8'));
      assert.equal(claims.organization_id, sub.organizationId);
      assert.equal(claims.user_id, alice.userId);
      // Logging Alice in with it proves her copy of the address.
      assert.ok(await verifiedAt(), 'the login proved the contact for the user it logged in');

      const asAlice = clientOf({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey, organizationId: sub.organizationId });
      assert.equal((await asAlice.getWhoami({ organizationId: sub.organizationId })).userId, alice.userId);
      assert.equal((await asAlice.getUser({ organizationId: sub.organizationId, userId: alice.userId })).user.userEmail, alice.email);
      // With its parent's id, whoami tells the caller about itself; nothing else reaches the parent or a sibling.
      assert.deepEqual(await asAlice.getWhoami({ organizationId: parent.organizationId }), {
        organizationId: sub.organizationId,
        organizationName: 'Alice',
        userId: alice.userId,
        username: alice.email,
      });
      await refused(asAlice.getUser({ organizationId: parent.organizationId, userId: parent.userId }), PERMISSION_DENIED, /does not belong to organization/);
      await refused(asAlice.getUsers({ organizationId: sibling.organizationId }), PERMISSION_DENIED, /does not belong to organization/);
      await refused(asAlice.getActivities({ organizationId: parent.organizationId }), PERMISSION_DENIED, /does not belong to organization/);
      await refused(
        asAlice.createUserTag({ organizationId: parent.organizationId, userTagName: 'x', userIds: [] }),
        PERMISSION_DENIED,
        /does not belong to organization/,
      );
      await refused(asAlice.initOtp({ organizationId: sibling.organizationId, otpType: 'OTP_TYPE_EMAIL', contact: alice.email, appName: "App" }), PERMISSION_DENIED, /does not belong/);
    });

    test("X-Stamp-Attested with a parent's token: in the sub-organization, or sent to the parent for the one sub-organization whose user proved the contact", async () => {
      const asParent = clientOf(parent);
      const stampLogin = (token: string, key: KeyPair, organizationId: string) =>
        new TurnkeyClient({ baseUrl: server.baseUrl }, attestedStamper(token, key) as any).stampLogin({
          type: 'ACTIVITY_TYPE_STAMP_LOGIN',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { publicKey: key.publicKey, expirationSeconds: '900', invalidateExisting: false },
        });
      const sessionOf = (answer: { activity: any }) =>
        JSON.parse(Buffer.from(answer.activity.result.stampLoginResult.session.split('.')[1], 'base64url').toString('utf8'));

      const alice = await endUser(sub.organizationId);
      // As in a sub-organization of create_sub_organization: the end user is its root.
      await server.joinRootQuorum(sub.organizationId, alice.userId);
      const first = await verified(asParent, parent.organizationId, alice.email);
      const inSub = await stampLogin(first.verificationToken, first.clientKey, sub.organizationId);
      assert.equal(inSub.activity.organizationId, sub.organizationId);
      assert.deepEqual([sessionOf(inSub).organization_id, sessionOf(inSub).user_id], [sub.organizationId, alice.userId]);

      // Sent to the parent, where no user has the email: the one sub-organization whose user has it.
      const second = await verified(asParent, parent.organizationId, alice.email);
      const viaParent = await stampLogin(second.verificationToken, second.clientKey, parent.organizationId);
      assert.equal(viaParent.activity.organizationId, sub.organizationId);
      assert.deepEqual([sessionOf(viaParent).organization_id, sessionOf(viaParent).user_id], [sub.organizationId, alice.userId]);
      const asAlice = clientOf({ apiPublicKey: second.clientKey.publicKey, apiPrivateKey: second.clientKey.privateKey, organizationId: sub.organizationId });
      assert.equal((await asAlice.getWhoami({ organizationId: sub.organizationId })).userId, alice.userId);

      // A copy of the email that no one proved, on a user of another sub-organization, is not looked at.
      const { userId: copyId } = await server.admin('POST', `/organizations/${sibling.organizationId}/users`, { userName: 'alice again', email: alice.email });
      const third = await verified(asParent, parent.organizationId, alice.email);
      const despiteCopy = await stampLogin(third.verificationToken, third.clientKey, parent.organizationId);
      assert.deepEqual([sessionOf(despiteCopy).organization_id, sessionOf(despiteCopy).user_id], [sub.organizationId, alice.userId]);
      // Proven there too (a login into that sub-organization by name): two sub-organizations, the client must say which,
      // and is not told the other organizations' ids.
      await server.joinRootQuorum(sibling.organizationId, copyId);
      const intoSibling = await verified(asParent, parent.organizationId, alice.email);
      assert.equal(sessionOf(await stampLogin(intoSibling.verificationToken, intoSibling.clientKey, sibling.organizationId)).user_id, copyId);
      const fourth = await verified(asParent, parent.organizationId, alice.email);
      const ambiguous = await stampLogin(fourth.verificationToken, fourth.clientKey, parent.organizationId).then(
        () => assert.fail('logged in although two sub-organizations have the address proven'),
        (error: any) => error,
      );
      assert.equal(ambiguous.code, INVALID_ARGUMENT, String(ambiguous));
      assert.match(ambiguous.message, /several sub-organizations of .* have a user who proved the email address .*; set organizationId to the one to log into/);
      assert.ok(!ambiguous.message.includes(sub.organizationId) && !ambiguous.message.includes(sibling.organizationId), ambiguous.message);
      // A sibling's token does not reach another sub-organization.
      const bob = await endUser(sibling.organizationId);
      const ownToken = await verified(asParent, sibling.organizationId, bob.email);
      await refused(stampLogin(ownToken.verificationToken, ownToken.clientKey, sub.organizationId), PERMISSION_DENIED, /was issued in organization .* not .* nor its parent/);
    });

    test("stamp_login sent to the parent by a sub-organization's credential logs the user into its own sub-organization", async () => {
      const stampLogin = (credentials: { apiPublicKey: string; apiPrivateKey: string }, organizationId: string, publicKey: string) =>
        new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper(credentials)).stampLogin({
          type: 'ACTIVITY_TYPE_STAMP_LOGIN',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { publicKey, expirationSeconds: '900', invalidateExisting: false },
        });
      const sessionKey = generateP256KeyPair();
      const { activity } = await stampLogin(sub, parent.organizationId, sessionKey.publicKey);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.organizationId, sub.organizationId);
      const claims = JSON.parse(Buffer.from(activity.result.stampLoginResult!.session.split('.')[1]!, 'base64url').toString('utf8'));
      assert.deepEqual([claims.organization_id, claims.user_id], [sub.organizationId, sub.userId]);
      const asSession = clientOf({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey, organizationId: sub.organizationId });
      assert.equal((await asSession.getWhoami({ organizationId: sub.organizationId })).organizationId, sub.organizationId);
      // Only its own parent: a sibling's id is refused, and so is any other activity with the parent's id.
      await refused(stampLogin(sub, sibling.organizationId, generateP256KeyPair().publicKey), PERMISSION_DENIED, /does not belong to organization/);
      await refused(clientOf(sub).createUserTag({ organizationId: parent.organizationId, userTagName: 'z', userIds: [] }), PERMISSION_DENIED, /does not belong to organization/);
    });

    test('a token made in a sub-organization logs in there only', async () => {
      const bob = await endUser(sibling.organizationId);
      await server.admin('POST', `/organizations/${sub.organizationId}/users`, { userName: 'bob in alice', email: bob.email });
      const { verificationToken, clientKey } = await verified(clientOf(parent), sibling.organizationId, bob.email);
      await refused(login(clientOf(parent), sub.organizationId, verificationToken, clientKey), INVALID_ARGUMENT, /was issued in organization/, 'parameters.verificationToken');
      const { session } = await login(clientOf(parent), sibling.organizationId, verificationToken, clientKey);
      assert.ok(session);
    });

    test("the login activities in a sub-organization are decided by the parent's quorum and policies", async () => {
      const { userId } = await server.admin('POST', `/organizations/${parent.organizationId}/users`, { userName: 'support desk' });
      const key = await server.admin('POST', `/organizations/${parent.organizationId}/api-keys`, { userId });
      const asDesk = clientOf({ ...key, organizationId: parent.organizationId });
      const alice = await endUser(sub.organizationId);
      await refused(
        asDesk.initOtp({ organizationId: sub.organizationId, otpType: 'OTP_TYPE_EMAIL', contact: alice.email, appName: 'App' }),
        PERMISSION_DENIED,
        /is not allowed for user/,
      );
      // A policy of the parent lets the desk send codes, in the parent and its sub-organizations alike.
      await clientOf(parent).createPolicy({
        policyName: 'desk sends codes',
        effect: 'EFFECT_ALLOW',
        consensus: `approvers.any(user, user.id == '${userId}')`,
        condition: "activity.type == 'ACTIVITY_TYPE_INIT_OTP_V3'",
        notes: '',
      });
      const { otpId } = await asDesk.initOtp({ organizationId: sub.organizationId, otpType: 'OTP_TYPE_EMAIL', contact: alice.email, appName: 'App' });
      assert.ok(otpId);
      await smtp.nextCodeTo(alice.email);
      // A policy of the sub-organization does not let the parent's users do more there.
      await clientOf(sub).createPolicy({ policyName: 'anyone', effect: 'EFFECT_ALLOW', consensus: '', condition: '', notes: '' });
      await refused(asDesk.createUserTag({ organizationId: sub.organizationId, userTagName: 'y', userIds: [] }), PERMISSION_DENIED, /parent organization/);
    });

    test('in a deleted sub-organization the parent submits nothing more, and still reads its activities', async () => {
      const gone = await server.createOrganization('Gone');
      await server.db.query('UPDATE organizations SET parent_id = $1 WHERE id = $2', [parent.organizationId, gone.organizationId]);
      await clientOf(gone).createUserTag({ userTagName: 'before', userIds: [] });
      await server.db.query('UPDATE organizations SET deleted_at = now() WHERE id = $1', [gone.organizationId]);
      await refused(
        clientOf(parent).initOtp({ organizationId: gone.organizationId, otpType: 'OTP_TYPE_EMAIL', contact: 'x@example.com', appName: 'App' }),
        NOT_FOUND,
        /was deleted/,
      );
      const { activities } = await clientOf(parent).getActivities({ organizationId: gone.organizationId });
      assert.ok(activities.some((a: any) => a.type === 'ACTIVITY_TYPE_CREATE_USER_TAG'));
      // A key of the deleted sub-organization that its deletion did not revoke (as one registered by a
      // write racing with it would be) stops too: every statement reads the deletion.
      await refused(clientOf(gone).getWhoami({ organizationId: gone.organizationId }), 16, /revoked/);
      await refused(clientOf(gone).createUserTag({ userTagName: 'after', userIds: [] }), 16, /revoked/);
    });
  });
}
