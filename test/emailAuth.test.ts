// email_auth as the ecosystem's clients drive it: the app's backend (sdk-server) asks for an email to
// the user, the email arrives (a real SMTP sink) with the credential bundle and the magic link, and
// @turnkey/crypto's decryptCredentialBundle opens it with the target's private key to a key that
// stamps as the user; a parent submits it into its sub-organization; the rate window of OTP emails
// counts it; the bundle is nowhere in the store.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { createSoftwareAuthenticator, v1Attestation, webauthnStamperFor } from './support/softwareAuthenticator.ts';
import { TurnkeyClient } from '@turnkey/http';

const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';

/** The bundle as the built-in emails show it: base58 on a line of its own after the words. */
const BUNDLE = /for the page where you asked (?:for it|to recover your account):\s+([1-9A-HJ-NP-Za-km-z]{40,})\s/;

for (const tdb of testDatabases) {
  describe(`email_auth and email recovery (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      smtp = await startSmtpSink();
      // Two emails per address every window, so the third is refused at once.
      server = await startTestServer(tdb, {
        SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'auth@signet.test', SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT: '2/600',
        SIGNET_WEBAUTHN_RP_ID: RP_ID,
        SIGNET_WEBAUTHN_ORIGINS: ORIGIN,
      });
      org = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    function sdk(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'> = org, organizationId = org.organizationId) {
      return new Turnkey({
        apiBaseUrl: server.baseUrl,
        apiPublicKey: credentials.apiPublicKey,
        apiPrivateKey: credentials.apiPrivateKey,
        defaultOrganizationId: organizationId,
      }).apiClient();
    }

    async function newUser(client = sdk()): Promise<{ email: string; userId: string }> {
      const email = `person-${randomUUID().slice(0, 8)}@example.com`;
      const { userIds } = await client.createUsers({
        users: [{ userName: email, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      return { email, userId: userIds[0]! };
    }

    /** The bundle of the next email to `address`, and the email. */
    async function bundleTo(address: string) {
      const mail = await smtp.waitForMailTo(address);
      const bundle = BUNDLE.exec(mail.text ?? '')?.[1];
      if (!bundle) throw new Error(`no credential bundle in the email: ${mail.text}`);
      return { mail, bundle };
    }

    function opened(bundle: string, target: ReturnType<typeof generateP256KeyPair>) {
      const apiPrivateKey = decryptCredentialBundle(bundle, target.privateKey);
      return { apiPublicKey: Buffer.from(getPublicKey(apiPrivateKey, true)).toString('hex'), apiPrivateKey };
    }

    test('the emailed bundle opens to a key that stamps as the user; the magic link carries it; the store holds none of it', async () => {
      const { email, userId } = await newUser();
      const target = generateP256KeyPair();
      const answer = await sdk().emailAuth({
        email: email.toUpperCase(),
        targetPublicKey: target.publicKeyUncompressed,
        emailCustomization: { appName: 'Acme Wallet', magicLinkTemplate: 'https://wallet.example/auth?bundle=%s' },
      });
      assert.equal(answer.activity.type, 'ACTIVITY_TYPE_EMAIL_AUTH_V3');
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual({ userId: answer.userId, apiKeyId: typeof answer.apiKeyId }, { userId, apiKeyId: 'string' });

      const { mail, bundle } = await bundleTo(email);
      assert.equal(mail.subject, 'Sign in to Acme Wallet');
      assert.ok(mail.text!.includes(`Sign in to Acme Wallet with this link: https://wallet.example/auth?bundle=${bundle}`), mail.text);
      // The HTML escapes the link's = as Handlebars does; the bundle itself is there as it is.
      assert.ok(String(mail.html).includes(`auth?bundle&#x3D;${bundle}`));
      assert.throws(() => decryptCredentialBundle(bundle, generateP256KeyPair().privateKey));

      const key = opened(bundle, target);
      const asUser = sdk(key);
      assert.equal((await asUser.getWhoami({ organizationId: org.organizationId })).userId, userId);
      const { apiKey } = await asUser.getApiKey({ organizationId: org.organizationId, apiKeyId: answer.apiKeyId });
      assert.deepEqual(apiKey.credential, { publicKey: key.apiPublicKey, type: 'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256' });
      assert.equal(apiKey.expirationSeconds, '900');
      assert.match(apiKey.apiKeyName, /^Email Auth - \d{4}-/);

      const [activity] = await server.db.query<{ text: string }>('SELECT row_to_json(a)::text AS text FROM activities a WHERE id = $1', [answer.activity.id]);
      assert.equal(activity!.text.includes(bundle), false);
      const outbox = await server.db.query<{ text: string }>("SELECT row_to_json(o)::text AS text FROM outbox o WHERE payload->>'to' = $1", [email]);
      assert.equal(outbox.length, 1);
      assert.equal(outbox[0]!.text.includes(bundle), false);
    });

    test("invalidateExisting ends the user's other email_auth keys; after its lifetime the key is a 401", async () => {
      const { email } = await newUser();
      const first = generateP256KeyPair();
      await sdk().emailAuth({ email, targetPublicKey: first.publicKey, emailCustomization: { appName: 'Acme' }, expirationSeconds: '60' });
      const firstKey = opened((await bundleTo(email)).bundle, first);
      await sdk(firstKey).getWhoami({ organizationId: org.organizationId });
      smtp.messages.splice(0);
      const second = generateP256KeyPair();
      await sdk().emailAuth({ email, targetPublicKey: second.publicKey, emailCustomization: { appName: 'Acme' }, invalidateExisting: true, expirationSeconds: '60' });
      const secondKey = opened((await bundleTo(email)).bundle, second);
      await refused(sdk(firstKey).getWhoami({ organizationId: org.organizationId }), 16, /email_auth key .* was revoked/);
      await sdk(secondKey).getWhoami({ organizationId: org.organizationId });
      // The address's window of OTP emails is spent (2 every 600 s): a third is a 429.
      await refused(sdk().emailAuth({ email, targetPublicKey: generateP256KeyPair().publicKey, emailCustomization: { appName: 'Acme' } }), 8, /Max number of OTPs/);
      server.clock.advance(61_000);
      await refused(sdk(secondKey).getWhoami({ organizationId: org.organizationId }), 16, /email_auth key .* expired/);
    });

    test('a parent submits it into its sub-organization; an unknown address is a 404, a missing appName a 400', async () => {
      const email = `sub-${randomUUID().slice(0, 8)}@example.com`;
      const sub = await sdk().createSubOrganization({
        subOrganizationName: 'Sub',
        rootUsers: [{ userName: 'end user', userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
        rootQuorumThreshold: 1,
      });
      const target = generateP256KeyPair();
      const answer = await sdk(org, sub.subOrganizationId).emailAuth({ email, targetPublicKey: target.publicKey, emailCustomization: { appName: 'Acme' } });
      const key = opened((await bundleTo(email)).bundle, target);
      const whoami = await sdk(key, sub.subOrganizationId).getWhoami({ organizationId: sub.subOrganizationId });
      assert.equal(whoami.userId, answer.userId);
      assert.equal(whoami.organizationId, sub.subOrganizationId);

      await refused(sdk().emailAuth({ email: 'nobody@example.com', targetPublicKey: target.publicKey, emailCustomization: { appName: 'Acme' } }), 5, /no user of this organization has the email address nobody@example.com/);
      await refused(
        sdk().emailAuth({ email, targetPublicKey: target.publicKey, emailCustomization: {} as never }),
        3,
        /appName/,
        'parameters.emailCustomization.appName',
      );
    });

    test("recovery: the parent emails its end user a recovery key, which adds a passkey with recover_user, once, and stamps nothing else", async () => {
      // The end user is its sub-organization's root user, as an app's users are.
      const email = `lost-${randomUUID().slice(0, 8)}@example.com`;
      const { subOrganizationId, rootUserIds } = await sdk().createSubOrganization({
        subOrganizationName: 'Lost',
        rootUsers: [{ userName: 'end user', userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [] }],
        rootQuorumThreshold: 1,
      });
      const userId = rootUserIds![0]!;
      const target = generateP256KeyPair();
      const init = await sdk(org, subOrganizationId).initUserEmailRecovery({ email, targetPublicKey: target.publicKey, emailCustomization: { appName: 'Acme Wallet' } });
      assert.equal(init.activity.type, 'ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2');
      assert.equal(init.userId, userId);
      const { mail, bundle } = await bundleTo(email);
      assert.equal(mail.subject, 'Recover your Acme Wallet account');
      const recoveryKey = opened(bundle, target);
      const asRecovery = sdk(recoveryKey, subOrganizationId);

      // The recovery key stamps recover_user only: a query or another activity is a 403.
      await refused(asRecovery.getWhoami({ organizationId: subOrganizationId }), 7, /stamps recover_user only/);
      await refused(asRecovery.createReadOnlySession({}), 7, /stamps recover_user only/);

      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = Buffer.from(randomUUID()).toString('base64url');
      const recovered = await asRecovery.recoverUser({
        userId,
        authenticator: { authenticatorName: 'new phone', challenge, attestation: v1Attestation(passkey.register(challenge)) as never },
      });
      assert.equal(recovered.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(recovered.authenticatorId.length, 1);
      // The passkey stamps as the user.
      const byPasskey = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(passkey) as any);
      assert.equal((await byPasskey.getWhoami({ organizationId: subOrganizationId })).userId, userId);
      // The key recovered once: it is revoked.
      const again = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      await refused(
        asRecovery.recoverUser({ userId, authenticator: { authenticatorName: 'again', challenge, attestation: v1Attestation(again.register(challenge)) as never } }),
        16,
        /recovery key .* was used or revoked/,
      );
      // recover_user stamped with another credential (the user's new passkey) is refused.
      await refused(
        byPasskey.recoverUser({
          type: 'ACTIVITY_TYPE_RECOVER_USER',
          timestampMs: String(Date.now()),
          organizationId: subOrganizationId,
          parameters: { userId, authenticator: { authenticatorName: 'other', challenge, attestation: v1Attestation(again.register(challenge)) as never } },
        }),
        7,
        /stamped with the recovery key/,
      );
    });
  });
}
