// otp_auth as the ecosystem's unmodified clients drive it: init_otp_auth → the emailed code →
// otp_auth with a target key the client made → @turnkey/crypto's decryptCredentialBundle opens the
// credential → an ApiKeyStamper with that key stamps requests as the user until the key expires;
// wrong codes counted as verify_otp counts them, an unknown contact, what is stored (neither the code
// nor the bundle), and invalidateExisting.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

/** The default SMS shows the code in two groups (`30FM-DAGXE`); it is typed as it reads. */
const SMS_CODE = /^([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5}) is your /;

/** A code of the right shape that is not `code` (its first symbol changed). */
function wrongCode(code: string): string {
  return (code[0] === '0' ? '1' : '0') + code.slice(1);
}

for (const tdb of testDatabases) {
  describe(`otp_auth (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    let contacts = 0;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      org = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    /** The server-side SDK as an app's backend holds it (the organization's API key by default). */
    function sdkServer(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'> = org) {
      return new Turnkey({
        apiBaseUrl: server.baseUrl,
        apiPublicKey: credentials.apiPublicKey,
        apiPrivateKey: credentials.apiPrivateKey,
        defaultOrganizationId: org.organizationId,
      }).apiClient();
    }

    function newEmail(): string {
      return `person${++contacts}-${randomUUID().slice(0, 8)}@example.com`;
    }

    async function newUser(email = newEmail()): Promise<{ email: string; userId: string }> {
      const { userIds } = await sdkServer().createUsers({
        users: [{ userName: `Person ${contacts}`, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      return { email, userId: userIds[0]! };
    }


    /** init_otp_auth by email through sdk-server: the otpId and the code that arrived. */
    async function codeFor(email: string): Promise<{ otpId: string; code: string }> {
      const { otpId } = await sdkServer().initOtpAuth({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet' });
      return { otpId, code: await smtp.nextCodeTo(email) };
    }

    /** The key the credential bundle holds, opened with the target's private key, as a stamper's credentials. */
    function opened(credentialBundle: string, target: ReturnType<typeof generateP256KeyPair>) {
      const apiPrivateKey = decryptCredentialBundle(credentialBundle, target.privateKey);
      const apiPublicKey = Buffer.from(getPublicKey(apiPrivateKey, true)).toString('hex');
      return { apiPublicKey, apiPrivateKey };
    }

    test('the code, a target key, then decryptCredentialBundle gives a key that stamps as the user', async () => {
      const { email, userId } = await newUser();
      const { otpId, code } = await codeFor(email);
      const target = generateP256KeyPair();
      const answer = await sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKeyUncompressed });
      assert.equal(answer.activity.type, 'ACTIVITY_TYPE_OTP_AUTH');
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(answer.userId, userId);
      assert.match(answer.apiKeyId!, /^[0-9a-f-]{36}$/);
      assert.ok(answer.credentialBundle);

      const key = opened(answer.credentialBundle!, target);
      assert.match(key.apiPrivateKey, /^[0-9a-f]{64}$/);
      // Opened with any other key the bundle gives nothing.
      assert.throws(() => decryptCredentialBundle(answer.credentialBundle!, generateP256KeyPair().privateKey));

      const asUser = sdkServer(key);
      const whoami = await asUser.getWhoami({ organizationId: org.organizationId });
      assert.equal(whoami.userId, userId);
      assert.equal(whoami.organizationId, org.organizationId);
      const { apiKey } = await asUser.getApiKey({ organizationId: org.organizationId, apiKeyId: answer.apiKeyId! });
      assert.deepEqual(apiKey.credential, { publicKey: key.apiPublicKey, type: 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256' });
      assert.equal(apiKey.expirationSeconds, '900');
      assert.match(apiKey.apiKeyName, /^OTP Auth - \d{4}-\d\d-\d\dT/);

      // Stored: the activity answers "" for the bundle and "[redacted]" for the code, and no row holds either.
      const { activity } = await sdkServer().getActivity({ organizationId: org.organizationId, activityId: answer.activity.id });
      assert.deepEqual(activity.result.otpAuthResult, { userId, apiKeyId: answer.apiKeyId, credentialBundle: '' });
      const intent = (activity.intent as any).otpAuthIntent;
      assert.equal(intent.otpCode, '[redacted]');
      assert.equal(intent.expirationSeconds, '900');
      assert.equal(intent.invalidateExisting, false);
      assert.equal(intent.targetPublicKey, target.publicKeyUncompressed);
      const [row] = await server.db.query<{ text: string }>('SELECT row_to_json(a)::text AS text FROM activities a WHERE id = $1', [answer.activity.id]);
      assert.ok(row);
      assert.equal(row.text.includes(code), false);
      assert.equal(row.text.includes(answer.credentialBundle!), false);
      const votes = await server.db.query<{ text: string }>('SELECT row_to_json(v)::text AS text FROM votes v WHERE activity_id = $1', [answer.activity.id]);
      assert.equal(votes.length, 1);
      assert.equal(votes[0]!.text.includes(code), false);
      const stored = await server.db.query<{ kind: string; public_key: string }>('SELECT kind, public_key FROM api_keys WHERE id = $1', [answer.apiKeyId]);
      assert.deepEqual(stored, [{ kind: 'otp_auth', public_key: key.apiPublicKey }]);
      // The contact counts as verified.
      const [user] = await server.db.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM users WHERE id = $1', [userId]);
      assert.ok(user?.email_verified_at);

      // The OTP is used: the code does not log in twice.
      await refused(
        sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: generateP256KeyPair().publicKey }),
        3,
        /this OTP was already used/,
        'parameters.otpCode',
      );
    });

    test("@turnkey/http's TurnkeyClient: a compressed target key, a name and a short lifetime; after it the key is a 401", async () => {
      const { email, userId } = await newUser();
      const { otpId, code } = await codeFor(email);
      const target = generateP256KeyPair();
      const client = server.client(org);
      const { activity } = await client.otpAuth({
        type: 'ACTIVITY_TYPE_OTP_AUTH',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpId, otpCode: code.toLowerCase(), targetPublicKey: target.publicKey, apiKeyName: 'phone', expirationSeconds: '2' },
      });
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const result = activity.result.otpAuthResult!;
      assert.equal(result.userId, userId);
      const key = opened(result.credentialBundle!, target);
      const asUser = new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper(key));
      const { apiKey } = await asUser.getApiKey({ organizationId: org.organizationId, apiKeyId: result.apiKeyId! });
      assert.equal(apiKey.apiKeyName, 'phone');
      assert.equal(apiKey.expirationSeconds, '2');
      assert.equal((await asUser.getUser({ organizationId: org.organizationId, userId })).user.userEmail, email);

      server.clock.advance(2100);
      // In the words @turnkey/core looks for to tell its app the login ended.
      await refused(
        asUser.getWhoami({ organizationId: org.organizationId }),
        16,
        new RegExp(`API key expired: the otp_auth key ${key.apiPublicKey} expired at .*init_otp_auth, then otp_auth.*Unauthenticated desc = expired api key publicKey ${key.apiPublicKey}`),
      );
    });

    test("a phone number: init_otp's OTP by SMS, the grouped code, the user with that phone number", async () => {
      const phone = `+1415555${String(2000 + contacts++).slice(-4)}`;
      const { userIds } = await sdkServer().createUsers({
        users: [{ userName: 'Phone person', userPhoneNumber: phone, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      const { otpId } = await sdkServer().initOtp({ otpType: 'OTP_TYPE_SMS', contact: phone, appName: 'Acme Wallet' });
      const smsLog = path.join(server.dataDir, 'sms.log');
      const code: string = await until(`an SMS to ${phone}`, () => {
        const lines = fs.existsSync(smsLog) ? fs.readFileSync(smsLog, 'utf8').trim().split('\n') : [];
        return lines.map((line) => JSON.parse(line)).filter((sms) => sms.to === phone).map((sms) => SMS_CODE.exec(sms.text)?.[1]).pop();
      });
      const target = generateP256KeyPair();
      const answer = await sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKey });
      assert.equal(answer.userId, userIds[0]);
      assert.equal((await sdkServer(opened(answer.credentialBundle!, target)).getWhoami({ organizationId: org.organizationId })).userId, userIds[0]);
      const [user] = await server.db.query<{ phone_number_verified_at: Date | null }>('SELECT phone_number_verified_at FROM users WHERE id = $1', [userIds[0]]);
      assert.ok(user?.phone_number_verified_at);
      // The OTP is used, and init_otp's target key forgotten with it.
      const [otp] = await server.db.query<{ used: boolean; target: boolean }>(
        'SELECT used_at IS NOT NULL AS used, target_private_key IS NOT NULL AS target FROM otps WHERE id = $1',
        [otpId],
      );
      assert.deepEqual(otp, { used: true, target: false });
    });

    test('wrong codes are counted as verify_otp counts them; after five even the right code is refused', async () => {
      const { email } = await newUser();
      const { otpId, code } = await codeFor(email);
      const target = generateP256KeyPair().publicKey;
      const client = sdkServer();
      // A code of the wrong shape is pointed out and not counted.
      await refused(client.otpAuth({ otpId, otpCode: '12', targetPublicKey: target }), 3, /must be the 9 letters and digits/, 'parameters.otpCode');
      for (let left = 4; left >= 1; left--) {
        await refused(client.otpAuth({ otpId, otpCode: wrongCode(code), targetPublicKey: target }), 3, new RegExp(`Invalid OTP code: .* ${left} attempts? left`), 'parameters.otpCode');
      }
      // verify_otp counts on the same OTP: its wrong code is the fifth.
      await refused(
        server.client(org).verifyOtp({
          type: 'ACTIVITY_TYPE_VERIFY_OTP',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: { otpId, otpCode: wrongCode(code) },
        } as any),
        3,
        /that was the last attempt/,
        'parameters.otpCode',
      );
      const [row] = await server.db.query<{ failed_attempts: number; used_at: Date | null }>('SELECT failed_attempts, used_at FROM otps WHERE id = $1', [otpId]);
      assert.deepEqual(row, { failed_attempts: 5, used_at: null });
      // The sixth attempt, the right code, is refused.
      await refused(client.otpAuth({ otpId, otpCode: code, targetPublicKey: target }), 3, /too many wrong attempts/, 'parameters.otpCode');
      assert.deepEqual(await server.db.query("SELECT id FROM api_keys WHERE kind = 'otp_auth' AND name LIKE 'OTP Auth%' AND user_id = (SELECT id FROM users WHERE email = $1)", [email]), []);
    });

    test('a code sent to a contact no user has is a 404, and the OTP stays usable', async () => {
      const email = newEmail();
      const { otpId, code } = await codeFor(email);
      const target = generateP256KeyPair().publicKey;
      await refused(sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: target }), 5, new RegExp(`no user of this organization has the email address ${email}`));
      // Once the user exists, the same code logs in.
      const { userId } = await newUser(email);
      const answer = await sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: target });
      assert.equal(answer.userId, userId);
      // An unknown OTP is a 404 too.
      await refused(sdkServer().otpAuth({ otpId: randomUUID(), otpCode: code, targetPublicKey: target }), 5, /no OTP with id/);
    });

    test('parameters are checked: the target key, the lifetime, the name', async () => {
      const otpId = randomUUID();
      const client = sdkServer();
      await refused(client.otpAuth({ otpId, otpCode: 'K7Q2M9XH4', targetPublicKey: '04' + '00'.repeat(64) }), 3, /must be a P-256 public key/, 'parameters.targetPublicKey');
      const target = generateP256KeyPair().publicKey;
      await refused(client.otpAuth({ otpId, otpCode: 'K7Q2M9XH4', targetPublicKey: target, expirationSeconds: '2592001' }), 3, /from 1 to 2592000/, 'parameters.expirationSeconds');
      await refused(client.otpAuth({ otpId, otpCode: 'K7Q2M9XH4', targetPublicKey: target, apiKeyName: ' ' }), 3, /must not be empty/, 'parameters.apiKeyName');
      await refused(client.otpAuth({ otpId, otpCode: '', targetPublicKey: target }), 3, /must not be empty/, 'parameters.otpCode');
    });

    test('an expired OTP is refused, and two submissions of one right code make one key', async () => {
      const { email, userId } = await newUser();
      const { otpId: shortLived } = await sdkServer().initOtpAuth({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet', expirationSeconds: '1' });
      const staleCode = await smtp.nextCodeTo(email);
      server.clock.advance(1100);
      await refused(sdkServer().otpAuth({ otpId: shortLived, otpCode: staleCode, targetPublicKey: generateP256KeyPair().publicKey }), 3, /this OTP expired/, 'parameters.otpCode');

      const { otpId, code } = await codeFor(email);
      const outcomes = await Promise.allSettled(
        [0, 1].map(() => sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: generateP256KeyPair().publicKey })),
      );
      assert.deepEqual(outcomes.map((o) => o.status).sort(), ['fulfilled', 'rejected']);
      const failed = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.match(String(failed.reason.message), /this OTP was already used/);
      const keys = await server.db.query("SELECT id FROM api_keys WHERE kind = 'otp_auth' AND user_id = $1", [userId]);
      assert.equal(keys.length, 1);
    });

    test('policies see the key as CREDENTIAL_TYPE_OTP_AUTH_KEY_P256', async () => {
      const { email, userId } = await newUser();
      const { otpId, code } = await codeFor(email);
      const target = generateP256KeyPair();
      const answer = await sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKey });
      const otpKey = opened(answer.credentialBundle!, target);
      const longLived = generateP256KeyPair();
      await sdkServer().createApiKeys({ userId, apiKeys: [{ apiKeyName: 'laptop', publicKey: longLived.publicKey, curveType: 'API_KEY_CURVE_P256' }] });
      await sdkServer().createPolicy({
        policyName: 'interfaces from otp_auth keys',
        effect: 'EFFECT_ALLOW',
        condition: "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'",
        consensus: "credentials.any(c, c.type == 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256')",
        notes: '',
      });
      const createInterface = (key: { apiPublicKey: string; apiPrivateKey: string }, label: string) =>
        new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper(key)).createSmartContractInterface({
          type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: {
            smartContractAddress: '0x0000000000000000000000000000000000000001',
            smartContractInterface: JSON.stringify([{ type: 'function', name: 'ping', inputs: [], outputs: [], stateMutability: 'view' }]),
            type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
            label,
          },
        });
      const { activity } = await createInterface(otpKey, 'from an otp_auth key');
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const [vote] = await server.db.query<{ credential_type: string }>('SELECT credential_type FROM votes WHERE activity_id = $1', [activity.id]);
      assert.equal(vote?.credential_type, 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256');
      // The same user with its API key is not what the policy allows.
      await refused(createInterface({ apiPublicKey: longLived.publicKey, apiPrivateKey: longLived.privateKey }, 'from an API key'), 7, /not allowed for user .*implicit deny/);
    });

    test("invalidateExisting revokes the user's other otp_auth keys, not its API keys", async () => {
      const { email, userId } = await newUser();
      const longLived = generateP256KeyPair();
      await sdkServer().createApiKeys({ userId, apiKeys: [{ apiKeyName: 'laptop', publicKey: longLived.publicKey, curveType: 'API_KEY_CURVE_P256' }] });
      const asLaptop = sdkServer({ apiPublicKey: longLived.publicKey, apiPrivateKey: longLived.privateKey });

      const logIn = async (invalidateExisting?: boolean) => {
        const { otpId, code } = await codeFor(email);
        const target = generateP256KeyPair();
        const answer = await sdkServer().otpAuth({ otpId, otpCode: code, targetPublicKey: target.publicKey, ...(invalidateExisting === undefined ? {} : { invalidateExisting }) });
        return sdkServer(opened(answer.credentialBundle!, target));
      };
      const first = await logIn();
      const second = await logIn(false);
      // Without invalidateExisting both keys stamp.
      assert.equal((await first.getWhoami({ organizationId: org.organizationId })).userId, userId);
      assert.equal((await second.getWhoami({ organizationId: org.organizationId })).userId, userId);

      const third = await logIn(true);
      assert.equal((await third.getWhoami({ organizationId: org.organizationId })).userId, userId);
      await refused(first.getWhoami({ organizationId: org.organizationId }), 16, /API key revoked: the otp_auth key .*Unauthenticated desc = expired api key publicKey/);
      await refused(second.getWhoami({ organizationId: org.organizationId }), 16, /revoked/);
      // The user's API key stays.
      assert.equal((await asLaptop.getWhoami({ organizationId: org.organizationId })).userId, userId);
      const { apiKeys } = await asLaptop.getApiKeys({ organizationId: org.organizationId, userId });
      assert.deepEqual(apiKeys.map((k: any) => k.credential.type).sort(), ['CREDENTIAL_TYPE_API_KEY_P256', 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256']);
    });
  });
}
