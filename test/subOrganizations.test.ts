// Sub-organizations through the ecosystem's client (@turnkey/sdk-server's apiClient): a parent
// creates them (root users with API keys and passkeys, a root quorum, a verification token marking a
// contact verified), finds them (list_suborgs with each filter and pages, list_verified_suborgs) and
// a sub-organization deletes itself, its credentials refused at once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { run, sql } from '../src/store/sql.ts';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { createSoftwareAuthenticator, v1Attestation } from './support/softwareAuthenticator.ts';

const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';
const CODE = /\b([0-9A-HJKMNP-TV-Z]{9})\b/;

type Keys = { apiPublicKey: string; apiPrivateKey: string };

for (const tdb of testDatabases) {
  describe(`sub-organizations (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let parent: Credentials;
    let sequence = 0;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, {
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_EMAIL_FROM: 'otp@signet.test',
        SIGNET_WEBAUTHN_RP_ID: RP_ID,
        SIGNET_WEBAUTHN_ORIGINS: ORIGIN,
      });
      parent = await server.createOrganization('Parent');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    function sdk(credentials: Keys & { organizationId: string }) {
      return new Turnkey({
        apiBaseUrl: server.baseUrl,
        apiPublicKey: credentials.apiPublicKey,
        apiPrivateKey: credentials.apiPrivateKey,
        defaultOrganizationId: credentials.organizationId,
      }).apiClient();
    }

    /** POSTs a stamped body; the status and the answer, for refusals the client would throw on. */
    async function post(path: string, body: object, credentials: Keys = parent) {
      const text = JSON.stringify(body);
      const stamp = await new ApiKeyStamper(credentials).stamp(text);
      const response = await fetch(`${server.baseUrl}/public/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body: text,
      });
      return { status: response.status, json: (await response.json()) as any };
    }

    function submit(path: string, type: string, parameters: object, credentials: Keys & { organizationId: string } = parent) {
      return post(`submit/${path}`, { type, timestampMs: String(Date.now() + ++sequence), organizationId: credentials.organizationId, parameters }, credentials);
    }

    function refused(sent: { status: number; json: any }, status: number, pattern: RegExp, field?: string) {
      assert.equal(sent.status, status, JSON.stringify(sent.json));
      assert.match(sent.json.message, pattern);
      if (field !== undefined) assert.ok(JSON.stringify(sent.json.details ?? []).includes(`"field":"${field}"`), JSON.stringify(sent.json.details));
    }

    const email = (label: string) => `${label}-${randomUUID().slice(0, 8)}@Example.com`;
    const rootUser = (userName: string, extra: object = {}) => ({ userName, apiKeys: [], authenticators: [], oauthProviders: [], ...extra });
    const apiKey = (keys: Keys, expirationSeconds?: string) => ({
      apiKeyName: 'key',
      publicKey: keys.apiPublicKey,
      curveType: 'API_KEY_CURVE_P256' as const,
      ...(expirationSeconds ? { expirationSeconds } : {}),
    });

    /** A sub-organization of the parent with one root user holding a new API key: its id and that key. */
    async function subOrganization(name: string, extra: object = {}) {
      const keys = generateApiKeyPair();
      const { subOrganizationId, rootUserIds } = await sdk(parent).createSubOrganization({
        subOrganizationName: name,
        rootUsers: [rootUser(`${name} root`, { apiKeys: [apiKey(keys)], ...extra })],
        rootQuorumThreshold: 1,
      });
      return { organizationId: subOrganizationId, userId: rootUserIds![0]!, ...keys };
    }

    async function codeSentTo(contact: string): Promise<string> {
      const mail = await smtp.waitForMailTo(contact.toLowerCase());
      const code = CODE.exec(mail.text ?? '')?.[1];
      assert.ok(code, 'the email shows a code');
      return code;
    }

    /** init_otp then verify_otp V1 (no publicKey) in the organization of `credentials`: Signet's token bound to no key. */
    async function verificationToken(contact: string, credentials: Keys & { organizationId: string } = parent): Promise<string> {
      const init = await submit('init_otp', 'ACTIVITY_TYPE_INIT_OTP_V3', { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Acme' }, credentials);
      assert.equal(init.status, 200, JSON.stringify(init.json));
      const otpId = init.json.activity.result.initOtpResultV2.otpId;
      const verify = await submit('verify_otp', 'ACTIVITY_TYPE_VERIFY_OTP', { otpId, otpCode: await codeSentTo(contact) }, credentials);
      assert.equal(verify.status, 200, JSON.stringify(verify.json));
      return verify.json.activity.result.verifyOtpResult.verificationToken;
    }

    /** init_otp and verify_otp V2 in the parent, the code encrypted by the client: a token bound to the client's key. */
    async function boundToken(contact: string) {
      const keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as { otpEncryptionBundleSignerPublicKey: string };
      const { otpId, otpEncryptionTargetBundle } = await sdk(parent).initOtp({ otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Acme' });
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await codeSentTo(contact), otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await sdk(parent).verifyOtp({ otpId, encryptedOtpBundle });
      return { verificationToken, clientKey };
    }

    /** What @turnkey/core's getClientSignatureMessageForSignup builds, signed by the token's key. */
    async function signupSignature(verificationToken: string, clientKey: ReturnType<typeof generateP256KeyPair>, usage: object) {
      const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString('utf8')).id;
      const message = JSON.stringify({ signup: usage, tokenId, type: 'USAGE_TYPE_SIGNUP' });
      const signature = await new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }).sign(message, SignatureFormat.Raw);
      return { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256' as const, message, signature };
    }

    test('a token bound to a key (verify_otp V2) verifies the root user its holder signed for (clientSignature)', async () => {
      const mail = email('bound');
      const { verificationToken, clientKey } = await boundToken(mail);
      const keys = generateApiKeyPair();
      const user = rootUser('bound', { userEmail: mail, apiKeys: [apiKey(keys)] });
      const create = (extra: object) =>
        submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', { subOrganizationName: 'bound', rootUsers: [user], rootQuorumThreshold: 1, verificationToken, ...extra });
      refused(await create({}), 400, /clientSignature.*required|is required/, 'parameters.clientSignature');
      const otherKeys = { email: mail, apiKeys: [apiKey(generateApiKeyPair())], authenticators: [], oauthProviders: [] };
      refused(await create({ clientSignature: await signupSignature(verificationToken, clientKey, otherKeys) }), 400, /apiKeys must be the root user's apiKeys/, 'parameters.clientSignature');
      const stranger = generateP256KeyPair();
      refused(
        await create({ clientSignature: await signupSignature(verificationToken, stranger, { ...otherKeys, apiKeys: user.apiKeys }) }),
        400,
        /key the verification token is bound to/,
        'parameters.clientSignature',
      );
      const result = await sdk(parent).createSubOrganization({
        subOrganizationName: 'bound',
        rootUsers: [user],
        rootQuorumThreshold: 1,
        verificationToken,
        clientSignature: await signupSignature(verificationToken, clientKey, { email: mail, apiKeys: user.apiKeys, authenticators: [], oauthProviders: [] }),
      });
      assert.deepEqual((await sdk(parent).getVerifiedSubOrgIds({ filterType: 'EMAIL', filterValue: mail })).organizationIds, [result.subOrganizationId]);
      assert.equal((await sdk({ organizationId: result.subOrganizationId, ...keys }).getWhoami({})).username, 'bound');
    });

    test('createSubOrganization V8 as the library sends it: root users with an API key and a passkey, a quorum; the key stamps in the sub-organization', async () => {
      const aliceKeys = generateApiKeyPair();
      const expiring = generateApiKeyPair();
      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = Buffer.from(randomUUID()).toString('base64url');
      const aliceEmail = email('alice');
      const result = await sdk(parent).createSubOrganization({
        subOrganizationName: 'Alice wallet',
        rootUsers: [
          rootUser('Alice', { userEmail: aliceEmail, apiKeys: [apiKey(aliceKeys), apiKey(expiring, '3600')] }),
          rootUser('Bob', { userPhoneNumber: '+1 (415) 555-2671', authenticators: [{ authenticatorName: 'phone', challenge, attestation: v1Attestation(passkey.register(challenge)) }] }),
        ],
        rootQuorumThreshold: 2,
        disableEmailRecovery: true,
      });
      assert.match(result.subOrganizationId, /^[0-9a-f-]{36}$/);
      assert.equal(result.rootUserIds!.length, 2);
      assert.equal((result as any).wallet, undefined);

      const alice = { organizationId: result.subOrganizationId, ...aliceKeys };
      const whoami = await sdk(alice).getWhoami({});
      assert.deepEqual(
        { organizationId: whoami.organizationId, organizationName: whoami.organizationName, userId: whoami.userId, username: whoami.username },
        { organizationId: result.subOrganizationId, organizationName: 'Alice wallet', userId: result.rootUserIds![0], username: 'Alice' },
      );
      const { user } = await sdk(alice).getUser({ userId: result.rootUserIds![0]! });
      assert.equal(user.userEmail, aliceEmail.toLowerCase());
      assert.equal(user.apiKeys.length, 2);
      const { user: bob } = await sdk(alice).getUser({ userId: result.rootUserIds![1]! });
      assert.equal(bob.userPhoneNumber, '+14155552671');
      assert.equal(bob.authenticators[0]!.credentialId, passkey.credentialId);
      const [org] = await server.db.query<{ parent_id: string; authority_version: string }>('SELECT parent_id, authority_version FROM organizations WHERE id = $1', [result.subOrganizationId]);
      assert.equal(org!.parent_id, parent.organizationId);
      const { configs } = await sdk(alice).getOrganizationConfigs({});
      assert.equal(configs.quorum!.threshold, 2);
      assert.deepEqual([...configs.quorum!.userIds!].sort(), [...result.rootUserIds!].sort());
      // The activity is the parent's, and names the sub-organization.
      const { activities } = await sdk(parent).getActivities({ filterByType: ['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'] });
      assert.equal(activities[0]!.result.createSubOrganizationResultV8!.subOrganizationId, result.subOrganizationId);

      // The same passkey cannot be registered again.
      refused(
        await submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
          subOrganizationName: 'again',
          rootUsers: [rootUser('Carol', { authenticators: [{ authenticatorName: 'phone', challenge, attestation: v1Attestation(passkey.register(challenge)) }] })],
          rootQuorumThreshold: 1,
        }),
        400,
        /already registered/,
        'parameters.rootUsers[0].authenticators[0].attestation',
      );
    });

    test('V7 is taken too, with its own intent and result keys', async () => {
      const keys = generateApiKeyPair();
      const sent = await submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7', {
        subOrganizationName: 'Seven',
        rootUsers: [rootUser('Seven', { apiKeys: [apiKey(keys)] })],
        rootQuorumThreshold: 1,
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.json));
      assert.equal(sent.json.activity.intent.createSubOrganizationIntentV7.subOrganizationName, 'Seven');
      const id = sent.json.activity.result.createSubOrganizationResultV7.subOrganizationId;
      assert.equal((await sdk({ organizationId: id, ...keys }).getWhoami({})).organizationId, id);
    });

    test('refusals: threshold bounds, a wallet field, an OAuth provider token that is no JWT, bounds on keys, contacts given twice, a sub-organization creating one', async () => {
      const create = (parameters: object, credentials: Keys & { organizationId: string } = parent) =>
        submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', { subOrganizationName: 'x', rootUsers: [rootUser('a', { userEmail: email('a') })], rootQuorumThreshold: 1, ...parameters }, credentials);
      refused(await create({ rootQuorumThreshold: 0 }), 400, /at least 1/, 'parameters.rootQuorumThreshold');
      refused(await create({ rootQuorumThreshold: 2 }), 400, /at most the number of root users \(1\)/, 'parameters.rootQuorumThreshold');
      refused(await create({ rootUsers: [] }), 400, /at least one root user/, 'parameters.rootUsers');
      refused(await create({ wallet: { walletName: 'w', accounts: [], mnemonicLength: 13 } }), 400, /must be one of 12, 15, 18, 21, 24/, 'parameters.wallet.mnemonicLength');
      refused(
        await create({ rootUsers: [rootUser('a', { userEmail: email('a'), oauthProviders: [{ providerName: 'google', oidcToken: 'x' }] })] }),
        400,
        /OIDC token refused \(token\)/,
        'parameters.rootUsers[0].oauthProviders[0].oidcToken',
      );
      refused(await create({ disableOtpEmailAuth: true }), 400, /cannot disable email OTP/, 'parameters.disableOtpEmailAuth');
      const many = Array.from({ length: 11 }, () => apiKey(generateApiKeyPair()));
      refused(await create({ rootUsers: [rootUser('a', { apiKeys: many })] }), 400, /at most 10 API keys without expirationSeconds/);
      const tenEach = [...many.slice(0, 10), ...Array.from({ length: 10 }, () => apiKey(generateApiKeyPair(), '60'))];
      assert.equal((await create({ rootUsers: [rootUser('a', { apiKeys: tenEach })] })).status, 200);
      const same = email('same');
      refused(await create({ rootUsers: [rootUser('a', { userEmail: same }), rootUser('b', { userEmail: same.toUpperCase() })] }), 400, /same email address/, 'parameters.rootUsers[1].userEmail');
      refused(await create({ rootUsers: [rootUser('a')] }), 400, /a way to sign in/);
      refused(await create({ subOrganizationName: 'n'.repeat(257) }), 400, /longer than 256/, 'parameters.subOrganizationName');

      const sub = await subOrganization('nested');
      refused(await create({}, sub), 400, /one level deep/);
      refused(await submit('delete_sub_organization', 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION', {}), 400, /not a sub-organization/);
    });

    test('list_suborgs: every filter, spellings normalised, pages newest first', async () => {
      const tag = randomUUID().slice(0, 8);
      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = Buffer.from(randomUUID()).toString('base64url');
      const mail = email('filter');
      const a = await subOrganization(`filters ${tag}`, {
        userName: `user ${tag}`,
        userEmail: mail,
        userPhoneNumber: '+44 20 7946 0958',
        authenticators: [{ authenticatorName: 'p', challenge, attestation: v1Attestation(passkey.register(challenge)) }],
      });
      const b = await subOrganization(`other ${tag}`);
      const list = async (filterType?: string, filterValue?: string, paginationOptions?: object) =>
        (await sdk(parent).getSubOrgIds({ ...(filterType ? { filterType, filterValue } : {}), ...(paginationOptions ? { paginationOptions } : {}) } as any)).organizationIds;

      assert.deepEqual(await list('NAME', `filters ${tag}`), [a.organizationId]);
      assert.deepEqual(await list('USERNAME', `user ${tag}`), [a.organizationId]);
      assert.deepEqual(await list('EMAIL', mail.toUpperCase()), [a.organizationId]);
      assert.deepEqual(await list('PHONE_NUMBER', '+442079460958'), [a.organizationId]);
      assert.deepEqual(await list('CREDENTIAL_ID', passkey.credentialId), [a.organizationId]);
      const uncompressed = (await import('node:crypto')).ECDH.convertKey(b.apiPublicKey, 'prime256v1', 'hex', 'hex', 'uncompressed') as string;
      assert.deepEqual(await list('PUBLIC_KEY', uncompressed), [b.organizationId]);
      assert.deepEqual(await list('PUBLIC_KEY', b.apiPublicKey), [b.organizationId]);
      assert.deepEqual(await list('EMAIL', email('nobody')), []);

      // Newest first, in pages of one.
      const all = await list(undefined, undefined, { limit: '100' });
      assert.deepEqual(all.slice(0, 2), [b.organizationId, a.organizationId]);
      const first = await list(undefined, undefined, { limit: '1' });
      assert.deepEqual(first, [b.organizationId]);
      assert.deepEqual(await list(undefined, undefined, { limit: '1', after: first[0] }), [a.organizationId]);
      assert.deepEqual(await list(undefined, undefined, { limit: '1', before: a.organizationId }), [b.organizationId]);

      const query = (body: object) => post('query/list_suborgs', { organizationId: parent.organizationId, ...body });
      refused(await query({ filterType: 'WALLET_ACCOUNT_ADDRESS', filterValue: 'x' }), 400, /must be one of NAME/, 'filterType');
      refused(await query({ filterType: 'OIDC_TOKEN', filterValue: 'x' }), 400, /OIDC token refused \(token\)/, 'filterValue');
      refused(await query({ filterType: 'EMAIL', filterValue: `${'a'.repeat(1100)}@example.com` }), 400, /longer than 1024 characters/, 'filterValue');
      refused(await query({ filterType: 'EMAIL' }), 400, /required with filterType EMAIL/, 'filterValue');
      refused(await query({ filterType: 'EMAIL', filterValue: 'not an address' }), 400, /email address/, 'filterValue');
      refused(await query({ paginationOptions: { after: randomUUID() } }), 400, /no item/, 'paginationOptions.after');
      // A sub-organization lists none of its own (it has none) and never its siblings.
      assert.deepEqual((await sdk(a).getSubOrgIds({})).organizationIds, []);
    });

    test('list_verified_suborgs finds a sub-organization once its user has verified the email, by a token at creation or an OTP after', async () => {
      // Created without a token: its user's email is not verified, so only list_suborgs finds it.
      const late = email('late');
      const unverified = await subOrganization('not verified', { userEmail: late });
      const verified = async (value: string) => (await sdk(parent).getVerifiedSubOrgIds({ filterType: 'EMAIL', filterValue: value })).organizationIds;
      assert.deepEqual(await verified(late), []);
      assert.deepEqual((await sdk(parent).getSubOrgIds({ filterType: 'EMAIL', filterValue: late })).organizationIds, [unverified.organizationId]);

      // A token from verify_otp in the parent, given at creation, verifies the root user who has the contact.
      const early = email('early');
      const token = await verificationToken(early);
      const keys = generateApiKeyPair();
      const created = await sdk(parent).createSubOrganization({
        subOrganizationName: 'verified at creation',
        rootUsers: [rootUser('other', { apiKeys: [apiKey(keys)] }), rootUser('early', { userEmail: early })],
        rootQuorumThreshold: 1,
        verificationToken: token,
      });
      assert.deepEqual(await verified(early.toUpperCase()), [created.subOrganizationId]);
      // A phone number no one verified finds nothing, in any typing.
      const withPhone = await subOrganization('phone not verified', { userPhoneNumber: '+1 212 555 0199' });
      assert.deepEqual((await sdk(parent).getSubOrgIds({ filterType: 'PHONE_NUMBER', filterValue: '+12125550199' })).organizationIds, [withPhone.organizationId]);
      assert.deepEqual((await sdk(parent).getVerifiedSubOrgIds({ filterType: 'PHONE_NUMBER', filterValue: '+1 (212) 555-0199' })).organizationIds, []);
      const [row] = await server.db.query<{ user_name: string }>('SELECT user_name FROM users WHERE organization_id = $1 AND email_verified_at IS NOT NULL', [created.subOrganizationId]);
      assert.equal(row!.user_name, 'early');

      // The token is used up; a token naming no root user's contact, or another organization's, is refused.
      const again = (parameters: object, credentials: Keys & { organizationId: string } = parent) =>
        submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', { subOrganizationName: 'again', rootUsers: [rootUser('early', { userEmail: early })], rootQuorumThreshold: 1, ...parameters }, credentials);
      refused(await again({ verificationToken: token }), 400, /already used/, 'parameters.verificationToken');
      const unrelated = await verificationToken(email('unrelated'));
      refused(await again({ verificationToken: unrelated }), 400, /which no root user has/, 'parameters.verificationToken');
      const elsewhere = await verificationToken(email('elsewhere'), unverified);
      refused(await again({ verificationToken: elsewhere }), 400, /was issued in organization/, 'parameters.verificationToken');
      refused(await again({ verificationToken: 'a.b.c' }), 400, /verification token/, 'parameters.verificationToken');

      refused(await post('query/list_verified_suborgs', { organizationId: parent.organizationId, filterType: 'NAME', filterValue: 'x' }), 400, /EMAIL or PHONE_NUMBER/, 'filterType');
    });

    test('deleteSubOrganization: its credentials get 401 at once, it is no longer listed, its rows stay', async () => {
      const sub = await subOrganization(`doomed ${randomUUID().slice(0, 8)}`);
      assert.ok((await sdk(parent).getSubOrgIds({ paginationOptions: { limit: '100' } })).organizationIds.includes(sub.organizationId));
      const result = await sdk(sub).deleteSubOrganization({ deleteWithoutExport: true });
      assert.equal(result.subOrganizationUuid, sub.organizationId);
      const whoami = await post('query/whoami', { organizationId: sub.organizationId }, sub);
      assert.equal(whoami.status, 401, JSON.stringify(whoami.json));
      assert.ok(!(await sdk(parent).getSubOrgIds({ paginationOptions: { limit: '100' } })).organizationIds.includes(sub.organizationId));
      assert.deepEqual((await sdk(parent).getSubOrgIds({ filterType: 'PUBLIC_KEY', filterValue: sub.apiPublicKey })).organizationIds, []);
      // Deleted, it is not found by its verified contact either.
      const mail = email('gone');
      const gone = await sdk(parent).createSubOrganization({
        subOrganizationName: 'gone',
        rootUsers: [rootUser('gone', { userEmail: mail, apiKeys: [apiKey(generateApiKeyPair())] })],
        rootQuorumThreshold: 1,
        verificationToken: await verificationToken(mail),
      });
      assert.deepEqual((await sdk(parent).getVerifiedSubOrgIds({ filterType: 'EMAIL', filterValue: mail })).organizationIds, [gone.subOrganizationId]);
      await run(server.db, sql`UPDATE organizations SET deleted_at = now() WHERE id = ${gone.subOrganizationId}::uuid`);
      assert.deepEqual((await sdk(parent).getVerifiedSubOrgIds({ filterType: 'EMAIL', filterValue: mail })).organizationIds, []);
      const [row] = await server.db.query<{ deleted_at: Date | null; activities: number }>(
        'SELECT o.deleted_at, (SELECT count(*)::int FROM activities a WHERE a.organization_id = o.id) AS activities FROM organizations o WHERE o.id = $1',
        [sub.organizationId],
      );
      assert.ok(row!.deleted_at);
      assert.equal(row!.activities, 1);
      // The parent still reads them, for audit, and submits nothing more there.
      const { activities } = await sdk(parent).getActivities({ organizationId: sub.organizationId });
      assert.deepEqual(activities.map((a: { type: string }) => a.type), ['ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION']);
      const login = await post(
        'submit/init_otp',
        { type: 'ACTIVITY_TYPE_INIT_OTP_V3', timestampMs: String(Date.now()), organizationId: sub.organizationId, parameters: { otpType: 'OTP_TYPE_EMAIL', contact: mail, appName: 'App' } },
        parent,
      );
      assert.equal(login.status, 404, JSON.stringify(login.json));
      assert.match(login.json.message, /was deleted/);
    });

    test('the admin API lists a parent\'s sub-organizations, deleted ones marked', async () => {
      const sub = await subOrganization(`admin ${randomUUID().slice(0, 8)}`);
      const page = await server.admin<{ subOrganizations: Array<{ organizationId: string; name: string; deletedAt: string | null }> }>(
        'GET',
        `/organizations/${parent.organizationId}/suborgs?limit=1`,
      );
      assert.equal(page.subOrganizations[0]!.organizationId, sub.organizationId);
      assert.equal(page.subOrganizations[0]!.deletedAt, null);
      const orgs = await server.admin<{ organizations: Array<{ organizationId: string; parentId: string | null }> }>('GET', '/organizations?limit=100');
      assert.equal(orgs.organizations.find((o) => o.organizationId === sub.organizationId)?.parentId, parent.organizationId);
      assert.equal(orgs.organizations.find((o) => o.organizationId === parent.organizationId)?.parentId, null);

      // The CLI: signet suborg list, and org list naming the parent; a deleted one marked.
      await sdk(sub).deleteSubOrganization({});
      const env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
      const listed = await signet(['suborg', 'list', '--org', parent.organizationId], env);
      assert.equal(listed.code, 0, listed.stderr);
      const subLines = listed.stdout.split('\n');
      assert.match(subLines[0]!, /^ORGANIZATION ID +CREATED +DELETED +NAME$/);
      assert.match(subLines[1]!, new RegExp(`^${sub.organizationId}  \\S+Z  \\d{4}-\\S+Z  admin \\S+$`));
      const orgLines = (await signet(['org', 'list'], env)).stdout.split('\n');
      assert.match(orgLines[0]!, /^ORGANIZATION ID +CREATED +SUB-ORGANIZATION OF +DELETED +NAME$/);
      assert.match(orgLines.find((line) => line.startsWith(sub.organizationId))!, new RegExp(`^${sub.organizationId}  \\S+Z  ${parent.organizationId}  \\d{4}-\\S+Z  `));
      assert.match(orgLines.find((line) => line.startsWith(parent.organizationId))!, new RegExp(`^${parent.organizationId}  \\S+Z  - +- +\\S`), 'no parent, not deleted');
    });
  });
}
