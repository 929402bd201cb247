// An app's end users in their own sub-organizations, driven by the ecosystem's unmodified server
// library as an app's backend uses it: @turnkey/sdk-server's server helpers (sendOtp, verifyOtp,
// otpLogin, getVerifiedSuborgs, getSuborgs, createSuborg), which read the app's credentials from the
// environment, and its apiClient(): sign-up into a new sub-organization, the login by code, the
// session key acting there and only there, the parent's reach, and otp_auth's credential bundle.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { decryptCredentialBundle, encryptOtpCodeToBundle, generateP256KeyPair, getPublicKey, verifySessionJwtSignature } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey, type server as serverActions } from '@turnkey/sdk-server';
import { attestedStamper } from './support/attested.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;

type Client = ReturnType<InstanceType<typeof Turnkey>['apiClient']>;

/**
 * The library's server helpers, as a Next.js app imports them: they make their client when the module
 * loads, from NEXT_PUBLIC_BASE_URL, NEXT_PUBLIC_ORGANIZATION_ID and the app's API key in the
 * environment. A module of its own for each server (the query names it), so each reads its own.
 */
async function serverHelpers(server: TestServer, app: Credentials, name: string) {
  Object.assign(process.env, {
    NEXT_PUBLIC_BASE_URL: server.baseUrl,
    NEXT_PUBLIC_ORGANIZATION_ID: app.organizationId,
    TURNKEY_API_PUBLIC_KEY: app.apiPublicKey,
    TURNKEY_API_PRIVATE_KEY: app.apiPrivateKey,
  });
  const entry = createRequire(import.meta.url).resolve('@turnkey/sdk-server');
  const actions = new URL('actions.mjs', pathToFileURL(entry));
  return (await import(`${actions.href}?server=${name}`)) as typeof serverActions;
}

for (const tdb of testDatabases) {
  describe(`an app's users in their own sub-organizations, with @turnkey/sdk-server (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let app: Credentials;
    let helpers: Awaited<ReturnType<typeof serverHelpers>>;
    let otpSignerKey: string;
    let sessionSignerKey: string;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      app = await server.createOrganization('Example Wallet');
      helpers = await serverHelpers(server, app, tdb.name);
      const keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as Record<string, string>;
      otpSignerKey = keys.otpEncryptionBundleSignerPublicKey!;
      sessionSignerKey = keys.sessionSignerPublicKey!;
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    const clientOf = (credentials: { apiPublicKey: string; apiPrivateKey: string }, organizationId: string): Client =>
      new Turnkey({ apiBaseUrl: server.baseUrl, ...credentials, defaultOrganizationId: organizationId }).apiClient();
    const backend = () => clientOf(app, app.organizationId);


    /** sendOtp → the emailed code encrypted by the client → verifyOtp, all in the app's organization. */
    async function verifiedByHelpers(email: string) {
      const sent = await helpers.sendOtp({ contact: email, otpType: 'OTP_TYPE_EMAIL', appName: 'Example Wallet' } as any);
      assert.ok(sent?.otpId, 'sendOtp answered an otpId');
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), sent.otpEncryptionTargetBundle, clientKey.publicKey, otpSignerKey);
      const verified = await helpers.verifyOtp({ otpId: sent.otpId, encryptedOtpBundle } as any);
      assert.ok(verified?.verificationToken, 'verifyOtp answered a token');
      return { verificationToken: verified.verificationToken, clientKey };
    }

    function clientSignature(verificationToken: string, clientKey: ReturnType<typeof generateP256KeyPair>) {
      const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString('utf8')).id;
      const message = JSON.stringify({ login: { publicKey: clientKey.publicKey }, tokenId, type: 'USAGE_TYPE_LOGIN' });
      return new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey })
        .sign(message, SignatureFormat.Raw)
        .then((signature) => ({ publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256' as const, message, signature }));
    }

    /** A new end user signed up as the docs show it: its sub-organization, its one root user with the email. */
    async function signUp(email: string): Promise<string> {
      const { subOrganizationId, rootUserIds } = await backend().createSubOrganization({
        subOrganizationName: `user ${email}`,
        rootUsers: [{ userName: email, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
        rootQuorumThreshold: 1,
      });
      assert.equal(rootUserIds?.length, 1);
      return subOrganizationId;
    }

    test('sign-up, otpLogin into the sub-organization, getVerifiedSuborgs after it, and the session acting there only', async () => {
      const email = `alice-${randomUUID().slice(0, 8)}@example.com`;
      const subOrganizationId = await signUp(email);
      const sibling = await signUp(`bob-${randomUUID().slice(0, 8)}@example.com`);
      // Not verified yet: listed by getSuborgs, not by getVerifiedSuborgs.
      assert.deepEqual((await helpers.getSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds, [subOrganizationId]);
      assert.deepEqual((await helpers.getVerifiedSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds, []);

      // The code, checked in the app's organization, proves the address to the app (the token), not to any user.
      const { verificationToken, clientKey } = await verifiedByHelpers(email);
      assert.deepEqual((await helpers.getVerifiedSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds, []);

      const login = await helpers.otpLogin({
        suborgID: subOrganizationId,
        verificationToken,
        publicKey: clientKey.publicKey,
        clientSignature: await clientSignature(verificationToken, clientKey),
      } as any);
      assert.ok(login?.session, 'otpLogin answered a session');
      assert.equal(await verifySessionJwtSignature(login.session, sessionSignerKey), true);
      // The login proved the address for the user it logged in.
      assert.deepEqual((await helpers.getVerifiedSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds, [subOrganizationId]);

      const asAlice = clientOf({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }, subOrganizationId);
      const me = await asAlice.getWhoami({});
      assert.equal(me.organizationId, subOrganizationId);
      assert.equal((await asAlice.getUser({ userId: me.userId })).user.userEmail, email);
      // It writes there as its root: an API key for the user's own device.
      const device = generateP256KeyPair();
      const { apiKeyIds } = await asAlice.createApiKeys({
        userId: me.userId,
        apiKeys: [{ apiKeyName: 'phone', publicKey: device.publicKey, curveType: 'API_KEY_CURVE_P256' }],
      });
      assert.equal(apiKeyIds.length, 1);
      // Nothing in the parent or a sibling: reads and writes refused, nothing told about them.
      for (const elsewhere of [app.organizationId, sibling]) {
        await refused(asAlice.getUsers({ organizationId: elsewhere }), PERMISSION_DENIED, /does not belong to organization/);
        await refused(asAlice.getActivities({ organizationId: elsewhere }), PERMISSION_DENIED, /does not belong to organization/);
        await refused(asAlice.createUserTag({ organizationId: elsewhere, userTagName: 'mine', userIds: [] }), PERMISSION_DENIED, /does not belong to organization/);
      }
    });

    /** A person who signs up as the docs say: the app verifies a code, then gives its token (and the client's signature) to create_sub_organization. */
    async function signUpProven(email: string) {
      const { verificationToken, clientKey } = await verifiedByHelpers(email);
      const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString('utf8')).id;
      const message = JSON.stringify({ signup: { email }, tokenId, type: 'USAGE_TYPE_SIGNUP' });
      const signature = await new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }).sign(message, SignatureFormat.Raw);
      const { subOrganizationId, rootUserIds } = await backend().createSubOrganization({
        subOrganizationName: `user ${email}`,
        rootUsers: [{ userName: email, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
        rootQuorumThreshold: 1,
        verificationToken,
        clientSignature: { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature },
      } as any);
      return { subOrganizationId, userId: rootUserIds![0]! };
    }

    /** An end user of the app with an API key of its own: the root of its sub-organization, which it writes in as it likes. */
    async function endUserWithKey(label: string) {
      const key = generateP256KeyPair();
      const email = `${label}-${randomUUID().slice(0, 8)}@example.com`;
      const { subOrganizationId, rootUserIds } = await backend().createSubOrganization({
        subOrganizationName: label,
        rootUsers: [{ userName: label, userEmail: email, apiKeys: [{ apiKeyName: 'own', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [] }],
        rootQuorumThreshold: 1,
      });
      return { subOrganizationId, userId: rootUserIds![0]!, client: clientOf({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, subOrganizationId) };
    }

    /** stamp_login with X-Stamp-Attested as @turnkey/core's loginWithOtp sends it, to the app's organization: the session's claims. */
    async function attestedLoginToApp(verificationToken: string, clientKey: ReturnType<typeof generateP256KeyPair>) {
      const { activity } = (await new TurnkeyClient({ baseUrl: server.baseUrl }, attestedStamper(verificationToken, clientKey) as any).stampLogin({
        type: 'ACTIVITY_TYPE_STAMP_LOGIN',
        timestampMs: String(Date.now()),
        organizationId: app.organizationId,
        parameters: { publicKey: clientKey.publicKey, expirationSeconds: '900', invalidateExisting: false },
      })) as any;
      return JSON.parse(Buffer.from(activity.result.stampLoginResult.session.split('.')[1], 'base64url').toString('utf8')) as { organization_id: string; user_id: string };
    }

    /**
     * Two end users put `victim`'s address on users of their own sub-organizations, with no token: one
     * on its own root user (update_user_email), one on a new user (create_users). list_suborgs finds both.
     */
    async function copiesOf(victim: string) {
      const mallory = await endUserWithKey('mallory');
      await mallory.client.updateUserEmail({ userId: mallory.userId, userEmail: victim });
      const trudy = await endUserWithKey('trudy');
      await trudy.client.createUsers({ users: [{ userName: 'copy', userEmail: victim, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
      const both = [mallory.subOrganizationId, trudy.subOrganizationId];
      assert.deepEqual(new Set((await helpers.getSuborgs({ filterType: 'EMAIL', filterValue: victim } as any)).organizationIds), new Set(both));
      return both;
    }
    const verifiedSuborgs = async (email: string) => (await helpers.getVerifiedSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds;

    test("an end user's unproven copy of an address is not verified when the address's owner verifies a code", async () => {
      const victim = `victim-${randomUUID().slice(0, 8)}@example.com`;
      await copiesOf(victim);
      await verifiedByHelpers(victim);
      assert.deepEqual(await verifiedSuborgs(victim), []);
    });

    test("the owner, not signed up yet, logging in to the app's organization (X-Stamp-Attested) is not logged into an end user's copy: no such user", async () => {
      const victim = `victim-${randomUUID().slice(0, 8)}@example.com`;
      // One copy: the only sub-organization with a user who has the address.
      const mallory = await endUserWithKey('mallory');
      await mallory.client.updateUserEmail({ userId: mallory.userId, userEmail: victim });
      const copies = [mallory.subOrganizationId];
      const { verificationToken, clientKey } = await verifiedByHelpers(victim);
      await refused(attestedLoginToApp(verificationToken, clientKey), UNAUTHENTICATED, /no user of organization .* has the email address .*, nor a user of its sub-organizations who proved it/);
      const sessions = await server.db.query("SELECT 1 FROM api_keys WHERE kind = 'session' AND organization_id = ANY($1::uuid[])", [copies]);
      assert.equal(sessions.length, 0);
      assert.deepEqual(await verifiedSuborgs(victim), []);
    });

    test("a signed-up owner's login is not blocked by unproven copies; a copy proven with a token counts, and the refusal names no organization", async () => {
      const victim = `victim-${randomUUID().slice(0, 8)}@example.com`;
      const copies = await copiesOf(victim);
      // The owner signs up: the token proves the address for its root user, not for the copies.
      const owner = await signUpProven(victim);
      assert.deepEqual(await verifiedSuborgs(victim), [owner.subOrganizationId]);
      const login = await verifiedByHelpers(victim);
      const session = await attestedLoginToApp(login.verificationToken, login.clientKey);
      assert.deepEqual([session.organization_id, session.user_id], [owner.subOrganizationId, owner.userId]);
      assert.deepEqual(await verifiedSuborgs(victim), [owner.subOrganizationId]);

      // A copy its holder proves with a token (a second account of the owner's) counts: two
      // sub-organizations have it proven, so the login must name one, and is not told their ids.
      const work = await endUserWithKey('work');
      const proof = await verifiedByHelpers(victim);
      await work.client.updateUserEmail({ userId: work.userId, userEmail: victim, verificationToken: proof.verificationToken });
      assert.deepEqual(new Set(await verifiedSuborgs(victim)), new Set([owner.subOrganizationId, work.subOrganizationId]));
      const again = await verifiedByHelpers(victim);
      const ambiguous = await attestedLoginToApp(again.verificationToken, again.clientKey).then(() => assert.fail('logged in with two proven copies'), (error: any) => error);
      assert.equal(ambiguous.code, INVALID_ARGUMENT, String(ambiguous));
      assert.match(ambiguous.message, /several sub-organizations of .* have a user who proved the email address/);
      for (const id of [owner.subOrganizationId, work.subOrganizationId, ...copies]) assert.ok(!ambiguous.message.includes(id), ambiguous.message);
    });

    test('the parent reads a sub-organization but cannot write in it', async () => {
      const email = `carol-${randomUUID().slice(0, 8)}@example.com`;
      const subOrganizationId = await signUp(email);
      const { users } = await backend().getUsers({ organizationId: subOrganizationId });
      assert.deepEqual(users.map((u: any) => u.userEmail), [email]);
      const { activities } = await backend().getActivities({ organizationId: subOrganizationId });
      assert.ok(Array.isArray(activities));
      await refused(
        backend().createApiKeys({
          organizationId: subOrganizationId,
          userId: users[0]!.userId,
          apiKeys: [{ apiKeyName: 'backdoor', publicKey: generateP256KeyPair().publicKey, curveType: 'API_KEY_CURVE_P256' }],
        }),
        PERMISSION_DENIED,
        /needs a credential of that organization/,
      );
      assert.deepEqual((await backend().getApiKeys({ organizationId: subOrganizationId, userId: users[0]!.userId })).apiKeys, []);
    });

    test('otpAuth in the sub-organization, decryptCredentialBundle, and the decrypted key stamps a request', async () => {
      const email = `dave-${randomUUID().slice(0, 8)}@example.com`;
      const subOrganizationId = await signUp(email);
      const { otpId } = await backend().initOtpAuth({ organizationId: subOrganizationId, otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Example Wallet' });
      const target = generateP256KeyPair();
      const answer = await backend().otpAuth({ organizationId: subOrganizationId, otpId, otpCode: await smtp.nextCodeTo(email), targetPublicKey: target.publicKey });
      const apiPrivateKey = decryptCredentialBundle(answer.credentialBundle!, target.privateKey);
      const apiPublicKey = Buffer.from(getPublicKey(apiPrivateKey, true)).toString('hex');
      const asDave = clientOf({ apiPublicKey, apiPrivateKey }, subOrganizationId);
      const me = await asDave.getWhoami({});
      assert.equal(me.userId, answer.userId);
      assert.equal(me.organizationId, subOrganizationId);
      // The code verified the contact: the sub-organization is found by it now.
      assert.deepEqual((await helpers.getVerifiedSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds, [subOrganizationId]);
    });

    test("the library's createSuborg helper, which always asks for a wallet (an Ethereum and a Solana account), creates the sub-organization and its wallet", async () => {
      const email = `erin-${randomUUID().slice(0, 8)}@example.com`;
      // The helper swallows errors (it logs them and answers undefined): nothing may be logged.
      const logged: unknown[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => logged.push(args[0]);
      let created;
      try {
        created = await helpers.createSuborg({ email } as any);
      } finally {
        console.error = original;
      }
      assert.deepEqual(logged, []);
      assert.match(created!.subOrganizationId, /^[0-9a-f-]{36}$/);
      assert.deepEqual((await helpers.getSuborgs({ filterType: 'EMAIL', filterValue: email } as any)).organizationIds, [created!.subOrganizationId]);
      const [wallet] = await server.db.query<{ name: string; accounts: string }>(
        'SELECT w.name, (SELECT count(*) FROM wallet_accounts a WHERE a.wallet_id = w.id)::text AS accounts FROM wallets w WHERE w.organization_id = $1',
        [created!.subOrganizationId],
      );
      assert.deepEqual(wallet, { name: 'Wallet 1', accounts: '2' });
    });
  });
}
