// Users with contacts: the admin API and the CLI (create, list in pages, show, remove), one email
// and one phone number per user of an organization, removal refusing every credential of the user
// at once, create_users through @turnkey/http (API keys and passkeys in the SDK's shape), the store
// functions otp_login relies on, and the voter shown as the ecosystem's v1User.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { run, sql } from '../src/store/sql.ts';
import { findUserByContact, userActive } from '../src/store/users.ts';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { createSoftwareAuthenticator, v1Attestation, webauthnStamperFor } from './support/softwareAuthenticator.ts';

const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';
const ABI = JSON.stringify([{ type: 'event', name: 'Ping', inputs: [] }]);

async function call(server: TestServer, method: string, route: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}/admin/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as any };
}

function assertRefused(sent: { status: number; json: any }, field: string, pattern: RegExp) {
  assert.equal(sent.status, 400, JSON.stringify(sent.json));
  assert.equal(sent.json.code, 3);
  assert.equal(sent.json.details[0].fieldViolations[0].field, field);
  assert.match(sent.json.message, pattern);
}

/** Rejects like @turnkey/http does for a non-2xx answer: the wire's code and message. */
async function refusedByClient(promise: Promise<unknown>, code: number, field: string | undefined, pattern: RegExp) {
  await assert.rejects(promise, (error: any) => {
    assert.equal(error.code, code, String(error.message));
    assert.match(String(error.message), pattern);
    if (field !== undefined) assert.ok(JSON.stringify(error.details ?? []).includes(`"field":"${field}"`), JSON.stringify(error.details));
    return true;
  });
}

function contractBody(organizationId: string, label: string) {
  return {
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE' as const,
    timestampMs: String(Date.now()),
    organizationId,
    parameters: {
      smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      smartContractInterface: ABI,
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' as const,
      label,
    },
  };
}

type UserParams = {
  userName: string;
  userEmail?: string;
  userPhoneNumber?: string;
  apiKeys?: unknown[];
  authenticators?: unknown[];
  oauthProviders?: unknown[];
  userTags?: unknown[];
};

function createUsersBody(organizationId: string, users: UserParams[]) {
  return { type: 'ACTIVITY_TYPE_CREATE_USERS_V4' as const, timestampMs: String(Date.now()), organizationId, parameters: { users } };
}

function p256Key(name: string, publicKey: string, extra: Record<string, unknown> = {}) {
  return { apiKeyName: name, publicKey, curveType: 'API_KEY_CURVE_P256', ...extra };
}

async function count(server: TestServer, table: string): Promise<number> {
  const [row] = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return row!.n;
}

for (const tdb of testDatabases) {
  describe(`users (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN, SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('People');
      client = server.client(org);
    });
    after(() => server.close());

    test('the admin API creates a user with contacts: email in lowercase, phone in E.164, a name by default', async () => {
      const created = await call(server, 'POST', `/organizations/${org.organizationId}/users`, {
        email: 'Carol.Smith@Example.com',
        phoneNumber: '+1 (415) 555-2672',
      });
      assert.equal(created.status, 200, JSON.stringify(created.json));
      assert.equal(created.json.email, 'carol.smith@example.com');
      assert.equal(created.json.phoneNumber, '+14155552672');
      assert.equal(created.json.userName, 'carol.smith@example.com', 'the name defaults to the email');
      assert.match(created.json.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(created.json.updatedAt, created.json.createdAt);
      const shown = await call(server, 'GET', `/organizations/${org.organizationId}/users/${created.json.userId}`);
      assert.deepEqual(shown.json, created.json);

      const byPhone = await call(server, 'POST', `/organizations/${org.organizationId}/users`, { phoneNumber: '+44 20 7946 0958' });
      assert.equal(byPhone.json.userName, '+442079460958', 'else the phone number');
      assert.equal(byPhone.json.email, undefined);
      const bare = await call(server, 'POST', `/organizations/${org.organizationId}/users`, {});
      assert.equal(bare.json.userName, 'user', 'else "user"');
      const named = await call(server, 'POST', `/organizations/${org.organizationId}/users`, { userName: 'ops', email: 'ops@example.com' });
      assert.equal(named.json.userName, 'ops');
    });

    test('an email (in any letter case) and a phone number belong to one user of an organization', async () => {
      const base = `/organizations/${org.organizationId}/users`;
      assert.equal((await call(server, 'POST', base, { email: 'dana@example.com', phoneNumber: '+14155552673' })).status, 200);
      assertRefused(await call(server, 'POST', base, { email: 'DANA@example.COM' }), 'email', /dana@example\.com is already the email address of another user/);
      assertRefused(await call(server, 'POST', base, { phoneNumber: '+1 415-555-2673' }), 'phoneNumber', /\+14155552673 is already the phone number of another user/);
      assertRefused(await call(server, 'POST', base, { email: 'not an address' }), 'email', /must be an email address/);
      assertRefused(await call(server, 'POST', base, { phoneNumber: '4155552673' }), 'phoneNumber', /must start with \+/);
      // Another organization has users of its own.
      const other = await server.createOrganization('Elsewhere');
      assert.equal((await call(server, 'POST', `/organizations/${other.organizationId}/users`, { email: 'dana@example.com' })).status, 200);
      const [{ n }] = (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE email = $1', ['dana@example.com'])) as [{ n: number }];
      assert.equal(n, 2, 'nothing was written by the refusals');
    });

    test('removing a user revokes its API keys and passkeys at once; its contacts are free again', async () => {
      const base = `/organizations/${org.organizationId}/users`;
      const user = (await call(server, 'POST', base, { userName: 'erin', email: 'erin@example.com' })).json;
      const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: user.userId });
      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      await server.admin('POST', `${base}/${user.userId}/authenticators`, { name: 'phone', challenge, attestation: passkey.register(challenge) });
      const keyClient = server.client(key);
      const passkeyClient = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(passkey) as any);
      // Both stamp, so this process holds both credentials as good. A policy lets the user write (a
      // root quorum user could not simply be removed).
      await client.createPolicy({
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: {
          policyName: 'erin writes interfaces',
          effect: 'EFFECT_ALLOW',
          condition: "activity.resource == 'SMART_CONTRACT_INTERFACE'",
          consensus: `approvers.any(user, user.id == '${user.userId}')`,
          notes: '',
        },
      });
      await keyClient.createSmartContractInterface(contractBody(org.organizationId, 'before removal'));
      await passkeyClient.createSmartContractInterface(contractBody(org.organizationId, 'passkey before removal'));

      const removed = await call(server, 'DELETE', `${base}/${user.userId}`);
      assert.equal(removed.status, 200, JSON.stringify(removed.json));
      assert.equal(removed.json.userId, user.userId);
      assert.equal(removed.json.revokedApiKeys, 1);
      assert.equal(removed.json.revokedAuthenticators, 1);
      await refusedByClient(keyClient.createSmartContractInterface(contractBody(org.organizationId, 'after removal')), 16, undefined, /API key revoked/);
      await refusedByClient(passkeyClient.createSmartContractInterface(contractBody(org.organizationId, 'passkey after')), 16, undefined, /WebAuthn credential revoked/);

      // A removed user no policy lets write is told the same: its key is revoked (401), not that it may not (403).
      const reader = (await call(server, 'POST', base, { userName: 'reader' })).json;
      const readerClient = server.client(await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: reader.userId }));
      await readerClient.getActivities({ organizationId: org.organizationId });
      assert.equal((await call(server, 'DELETE', `${base}/${reader.userId}`)).status, 200);
      await refusedByClient(readerClient.createSmartContractInterface(contractBody(org.organizationId, 'reader after removal')), 16, undefined, /API key revoked/);

      assert.equal((await call(server, 'GET', `${base}/${user.userId}`)).status, 404);
      assert.equal((await call(server, 'DELETE', `${base}/${user.userId}`)).status, 404, 'removed once');
      assert.equal((await call(server, 'POST', `/organizations/${org.organizationId}/api-keys`, { userId: user.userId })).status, 404, 'no new key for it');
      assert.equal((await call(server, 'DELETE', `${base}/${randomUUID()}`)).status, 404);
      // The activities it voted on still show it.
      const [voted] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM votes WHERE user_id = $1', [user.userId]);
      assert.equal(voted!.n, 2);
      const again = await call(server, 'POST', base, { email: 'Erin@example.com' });
      assert.equal(again.status, 200, 'the email is free again');
    });

    test("the organization's only root user is removed once the root quorum names another; the admin API can make that user", async () => {
      const lonely = await server.createOrganization('Lonely');
      const first = await call(server, 'DELETE', `/organizations/${lonely.organizationId}/users/${lonely.userId}`);
      assert.equal(first.status, 400, 'the root quorum\'s only member is not removed');
      assert.match(first.json.message, /member of the root quorum/);
      const user = (await call(server, 'POST', `/organizations/${lonely.organizationId}/users`, { userName: 'new root' })).json;
      const key = await server.admin('POST', `/organizations/${lonely.organizationId}/api-keys`, { userId: user.userId });
      await server.client(lonely).updateRootQuorum({
        type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
        timestampMs: String(Date.now()),
        organizationId: lonely.organizationId,
        parameters: { threshold: 1, userIds: [user.userId] },
      });
      const removed = await call(server, 'DELETE', `/organizations/${lonely.organizationId}/users/${lonely.userId}`);
      assert.equal(removed.status, 200, JSON.stringify(removed.json));
      await refusedByClient(server.client(lonely).createSmartContractInterface(contractBody(lonely.organizationId, 'x')), 16, undefined, /API key revoked/);
      const { activity } = (await server.client(key).createSmartContractInterface(contractBody(lonely.organizationId, 'y'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
    });

    test('the list pages users newest first and leaves removed users out', async () => {
      const listed = await server.createOrganization('Listed');
      const base = `/organizations/${listed.organizationId}/users`;
      const ids = [listed.userId];
      for (let i = 0; i < 5; i++) ids.push((await call(server, 'POST', base, { userName: `member ${i}` })).json.userId);
      await call(server, 'DELETE', `${base}/${ids[2]}`);
      const expected = ids.filter((id) => id !== ids[2]).reverse();
      const seen: string[] = [];
      let after = '';
      for (;;) {
        const page = await call(server, 'GET', `${base}?limit=2${after && `&after=${after}`}`);
        assert.equal(page.status, 200);
        if (page.json.users.length === 0) break;
        assert.ok(page.json.users.length <= 2);
        seen.push(...page.json.users.map((u: any) => u.userId));
        after = page.json.users.at(-1).userId;
      }
      assert.deepEqual(seen, expected);
      const previous = await call(server, 'GET', `${base}?limit=2&before=${expected[2]}`);
      assert.deepEqual(previous.json.users.map((u: any) => u.userId), expected.slice(0, 2));
      assertRefused(await call(server, 'GET', `${base}?after=${randomUUID()}`), 'query.after', /no item/);
      assert.equal((await call(server, 'GET', `/organizations/${randomUUID()}/users`)).status, 404);
    });

    test('the CLI creates, lists and removes users through the running server', async () => {
      const env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
      const listed = await server.createOrganization('Command line');
      const created = await signet(['user', 'create', '--org', listed.organizationId, '--email', 'frank@example.com', '--phone', '+14155552674', '--name', 'Frank', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const user = JSON.parse(created.stdout);
      assert.equal(user.userName, 'Frank');
      assert.equal(user.phoneNumber, '+14155552674');

      const list = await signet(['user', 'list', '--org', listed.organizationId], env);
      assert.equal(list.code, 0, list.stderr);
      const lines = list.stdout.trim().split('\n');
      assert.equal(lines.length, 3);
      assert.match(lines[0]!, /^USER ID +CREATED +EMAIL +PHONE +NAME$/);
      assert.match(lines[1]!, new RegExp(`^${user.userId}\\s.*frank@example\\.com\\s+\\+14155552674\\s+Frank$`));
      assert.match(lines[2]!, new RegExp(`^${listed.userId}\\s.*root$`));

      const taken = await signet(['user', 'create', '--org', listed.organizationId, '--email', 'FRANK@example.com'], env);
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /400: --email: frank@example\.com is already the email address of another user/);
      const missing = await signet(['user', 'remove', '--org', listed.organizationId], env);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--user is required/);

      const removed = await signet(['user', 'remove', '--org', listed.organizationId, '--user', user.userId], env);
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, /revokedApiKeys: 0/);
      const json = await signet(['user', 'list', '--org', listed.organizationId, '--json'], env);
      assert.deepEqual(JSON.parse(json.stdout).map((u: any) => u.userId), [listed.userId]);
    });

    test('create_users through @turnkey/http: users with contacts, API keys and SDK-shaped passkeys that then stamp', async () => {
      const startedAt = server.clock.now().getTime();
      const keyPair = generateApiKeyPair();
      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const encodedChallenge = randomBytes(32).toString('base64url');
      const body = createUsersBody(org.organizationId, [
        {
          userName: 'Grace',
          userEmail: 'Grace@Example.com',
          apiKeys: [p256Key('grace laptop', keyPair.apiPublicKey, { expirationSeconds: '3600' })],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
        {
          userName: 'Heidi',
          userPhoneNumber: '+1 415 555 2675',
          apiKeys: [],
          // As sdk-browser's createUserPasskey returns it: {encodedChallenge, attestation}.
          authenticators: [{ authenticatorName: 'heidi phone', challenge: encodedChallenge, attestation: v1Attestation(passkey.register(encodedChallenge)) }],
          oauthProviders: [],
          userTags: [],
        },
      ]);
      const { activity } = (await client.createUsers(body as any)) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_CREATE_USERS_V4');
      const { userIds } = activity.result.createUsersResult;
      assert.equal(userIds.length, 2);
      const intent = activity.intent.createUsersIntentV4;
      assert.equal(intent.users[1].userPhoneNumber, '+14155552675', 'the intent holds the phone number in E.164');
      assert.equal(intent.users[0].userEmail, 'grace@example.com', 'and the email in lowercase');

      const grace = (await call(server, 'GET', `/organizations/${org.organizationId}/users/${userIds[0]}`)).json;
      assert.equal(grace.email, 'grace@example.com');
      const heidi = (await call(server, 'GET', `/organizations/${org.organizationId}/users/${userIds[1]}`)).json;
      assert.equal(heidi.phoneNumber, '+14155552675');
      const [key] = await server.db.query<{ user_id: string; name: string; expires_at: Date }>('SELECT user_id, name, expires_at FROM api_keys WHERE public_key = $1', [keyPair.apiPublicKey]);
      assert.equal(key!.user_id, userIds[0]);
      const expiresAt = key!.expires_at.getTime();
      assert.ok(expiresAt >= startedAt - 1000 + 3600_000 && expiresAt <= server.clock.now().getTime() + 1000 + 3600_000, `it expires an hour from now: ${key!.expires_at.toISOString()}`);
      assert.equal(key!.name, 'grace laptop');
      const [registered] = await server.db.query<{ user_id: string; transports: string[] }>('SELECT user_id, transports FROM authenticators WHERE credential_id = $1', [passkey.credentialId]);
      assert.equal(registered!.user_id, userIds[1]);
      assert.deepEqual(registered!.transports, ['internal', 'hybrid']);

      // Each new credential stamps for its user, and the vote names the user with its contacts (root
      // quorum users, so that they may write).
      for (const userId of userIds) await server.joinRootQuorum(org.organizationId, userId);
      const byKey = (await server.client(keyPair).createSmartContractInterface(contractBody(org.organizationId, 'grace'))) as any;
      assert.equal(byKey.activity.votes[0].userId, userIds[0]);
      assert.equal(byKey.activity.votes[0].user.userEmail, 'grace@example.com');
      const byPasskey = (await new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(passkey) as any).createSmartContractInterface(
        contractBody(org.organizationId, 'heidi'),
      )) as any;
      assert.equal(byPasskey.activity.votes[0].userId, userIds[1]);
      assert.equal(byPasskey.activity.votes[0].user.userPhoneNumber, '+14155552675');
    });

    test('a vote carries its user as v1User, the same when the activity is read back', async () => {
      const keyPair = generateApiKeyPair();
      const { activity: made } = (await client.createUsers(
        createUsersBody(org.organizationId, [
          { userName: 'Ivan', userEmail: 'ivan@example.com', userPhoneNumber: '+14155552676', apiKeys: [p256Key('ivan', keyPair.apiPublicKey)] },
        ]) as any,
      )) as any;
      const [userId] = made.result.createUsersResult.userIds;
      const [row] = await server.db.query<{ created_at: Date; updated_at: Date }>('SELECT created_at, updated_at FROM users WHERE id = $1', [userId]);
      await server.joinRootQuorum(org.organizationId, userId);
      const ivan = server.client(keyPair);
      const { activity } = (await ivan.createSmartContractInterface(contractBody(org.organizationId, 'ivan'))) as any;
      const expected = {
        userId,
        userName: 'Ivan',
        userEmail: 'ivan@example.com',
        userPhoneNumber: '+14155552676',
        authenticators: [],
        apiKeys: [],
        userTags: [],
        oauthProviders: [],
        mfaPolicies: [],
        createdAt: row!.created_at.toISOString(),
        updatedAt: row!.updated_at.toISOString(),
      };
      assert.deepEqual(activity.votes[0].user, expected);
      assert.deepEqual(Object.keys(activity.votes[0].user), Object.keys(expected), 'in this order');
      const read = (await ivan.getActivity({ organizationId: org.organizationId, activityId: activity.id })) as any;
      assert.deepEqual(read.activity.votes, activity.votes);
      // Missing arrays were taken as [].
      assert.deepEqual(made.intent.createUsersIntentV4.users[0].authenticators, []);
    });

    test('create_users refuses what Signet does not support or is malformed, naming the field', async () => {
      const before = await count(server, 'users');
      const refusals: Array<[UserParams, string, RegExp]> = [
        [{ userName: 'k', apiKeys: [p256Key('k', generateApiKeyPair().apiPublicKey, { curveType: 'API_KEY_CURVE_SECP256K1' })] }, 'parameters.users[0].apiKeys[0].curveType', /does not support API_KEY_CURVE_SECP256K1/],
        [{ userName: 'o', userEmail: 'o@example.com', oauthProviders: [{ providerName: 'google', oidcToken: 'x' }] }, 'parameters.users[0].oauthProviders[0].oidcToken', /OIDC token refused \(token\): it is not a JWT/],
        [{ userName: 't', userEmail: 't@example.com', userTags: ['admins'] }, 'parameters.users[0].userTags[0]', /must be a user tag id/],
        [{ userName: 'p', userPhoneNumber: '555 2671' }, 'parameters.users[0].userPhoneNumber', /must start with \+/],
        [{ userName: 'e', userEmail: 'e@' }, 'parameters.users[0].userEmail', /must be an email address/],
        [{ userName: 'nothing' }, 'parameters.users[0]', /needs a way to sign in/],
        [{ userName: 'b', apiKeys: [p256Key('b', '04' + '00'.repeat(64))] }, 'parameters.users[0].apiKeys[0].publicKey', /P-256 public key/],
      ];
      for (const [user, field, pattern] of refusals) {
        await refusedByClient(client.createUsers(createUsersBody(org.organizationId, [user]) as any), 3, field, pattern);
      }
      const tooMany = Array.from({ length: 101 }, (_, i) => ({ userName: `u${i}`, userEmail: `u${i}@example.com` }));
      await refusedByClient(client.createUsers(createUsersBody(org.organizationId, tooMany) as any), 3, 'parameters.users', /at most 100 users/);
      assert.equal(await count(server, 'users'), before, 'nothing was written');
    });

    test('an organization has at most 100 users not removed: create_users past them is a 400, and a removal frees a place', async () => {
      const small = await server.createOrganization('Full');
      const asSmall = server.client(small);
      const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ userName: `${prefix}${i}`, userEmail: `${prefix}${i}@example.com` }));
      // The organization's first user and 99 more make 100.
      const { activity } = await asSmall.createUsers(createUsersBody(small.organizationId, many(99, 'full')) as any);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await refusedByClient(asSmall.createUsers(createUsersBody(small.organizationId, many(1, 'over')) as any), 3, 'parameters.users', /at most 100 users \(not removed\), and these 1 would make more/);
      const [first] = (activity.result as any).createUsersResult.userIds;
      await call(server, 'DELETE', `/organizations/${small.organizationId}/users/${first}`);
      const again = await asSmall.createUsers(createUsersBody(small.organizationId, many(1, 'over')) as any);
      assert.equal(again.activity.status, 'ACTIVITY_STATUS_COMPLETED');
    });

    test('create_users refuses a contact, key or passkey given twice or already registered, writing nothing', async () => {
      await call(server, 'POST', `/organizations/${org.organizationId}/users`, { email: 'judy@example.com', phoneNumber: '+14155552677' });
      const registered = generateApiKeyPair();
      await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: org.userId, publicKey: registered.apiPublicKey });
      const passkey = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      const attestation = v1Attestation(passkey.register(challenge));
      await server.admin('POST', `/organizations/${org.organizationId}/users/${org.userId}/authenticators`, { name: 'taken', challenge, attestation });
      const fresh = generateApiKeyPair();
      const before = await count(server, 'users');
      const keysBefore = await count(server, 'api_keys');

      const cases: Array<[UserParams[], string, RegExp]> = [
        [[{ userName: 'a', userEmail: 'kim@example.com' }, { userName: 'b', userEmail: 'KIM@example.com' }], 'parameters.users[1].userEmail', /same email address as parameters\.users\[0\]\.userEmail/],
        [[{ userName: 'a', userPhoneNumber: '+14155552678' }, { userName: 'b', userPhoneNumber: '+1 (415) 555-2678' }], 'parameters.users[1].userPhoneNumber', /same phone number/],
        [[{ userName: 'a', apiKeys: [p256Key('x', fresh.apiPublicKey)] }, { userName: 'b', apiKeys: [p256Key('y', fresh.apiPublicKey)] }], 'parameters.users[1].apiKeys[0].publicKey', /same public key/],
        [[{ userName: 'new', userEmail: 'lee@example.com' }, { userName: 'taken', userEmail: 'JUDY@example.com' }], 'parameters.users[1].userEmail', /judy@example\.com is already the email address of another user/],
        [[{ userName: 'taken', userPhoneNumber: '+1 415 555 2677' }], 'parameters.users[0].userPhoneNumber', /\+14155552677 is already the phone number of another user/],
        [[{ userName: 'key', apiKeys: [p256Key('k', fresh.apiPublicKey)] }, { userName: 'k2', apiKeys: [p256Key('k', registered.apiPublicKey)] }], 'parameters.users[1].apiKeys[0].publicKey', /already registered in this organization, its parent or one of their sub-organizations/],
        [[{ userName: 'pk', authenticators: [{ authenticatorName: 'again', challenge, attestation }] }], 'parameters.users[0].authenticators[0].attestation', /this credential is already registered/],
      ];
      for (const [users, field, pattern] of cases) {
        await refusedByClient(client.createUsers(createUsersBody(org.organizationId, users) as any), 3, field, pattern);
      }
      const twice = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const once = v1Attestation(twice.register(challenge));
      await refusedByClient(
        client.createUsers(createUsersBody(org.organizationId, [
          { userName: 'p1', authenticators: [{ authenticatorName: 'a', challenge, attestation: once }] },
          { userName: 'p2', authenticators: [{ authenticatorName: 'b', challenge, attestation: once }] },
        ]) as any),
        3,
        'parameters.users[1].authenticators[0].attestation',
        /same credential as parameters\.users\[0\]\.authenticators\[0\]\.attestation/,
      );
      await refusedByClient(
        client.createUsers(createUsersBody(org.organizationId, [
          { userName: 'wrong challenge', authenticators: [{ authenticatorName: 'a', challenge: randomBytes(32).toString('base64url'), attestation: once }] },
        ]) as any),
        3,
        'parameters.users[0].authenticators[0].attestation',
        /wrong challenge/,
      );
      assert.equal(await count(server, 'users'), before, 'no user was written');
      assert.equal(await count(server, 'api_keys'), keysBefore, 'no key was written');
    });

    test(
      'a contact taken by a concurrent request after the checks read is a 400 naming the field, not a 500',
      { skip: tdb.url ? false : 'needs two connections at once; the embedded store has one' },
      async () => {
        let inserted!: () => void;
        let release!: () => void;
        const ready = new Promise<void>((resolve) => (inserted = resolve));
        const held = new Promise<void>((resolve) => (release = resolve));
        // Another transaction takes the email and commits only once the submission waits on it.
        const holder = server.db.transaction(async (tx) => {
          await tx.query('INSERT INTO users (id, organization_id, user_name, email) VALUES ($1, $2, $3, $4)', [
            randomUUID(), org.organizationId, 'first', 'mallory@example.com',
          ]);
          inserted();
          await held;
        });
        await ready;
        const submission = client.createUsers(createUsersBody(org.organizationId, [{ userName: 'second', userEmail: 'Mallory@example.com' }]) as any);
        await new Promise((resolve) => setTimeout(resolve, 300));
        release();
        await holder;
        await refusedByClient(submission, 3, 'parameters.users[0].userEmail', /already the email address of another user/);
      },
    );

    test(
      'a removal while a statement holding the user (userActive) registers a key for it revokes that key too',
      { skip: tdb.url ? false : 'needs two connections at once; the embedded store has one' },
      async () => {
        const user = (await call(server, 'POST', `/organizations/${org.organizationId}/users`, { userName: 'oscar' })).json;
        const late = generateApiKeyPair();
        let inserted!: () => void;
        let release!: () => void;
        const ready = new Promise<void>((resolve) => (inserted = resolve));
        const held = new Promise<void>((resolve) => (release = resolve));
        // As otp_login does: its statement checks the user with userActive and registers a key for it.
        const login = server.db.transaction(async (tx) => {
          await run(
            tx,
            sql`INSERT INTO api_keys (id, organization_id, user_id, name, public_key)
                SELECT ${randomUUID()}::uuid, ${org.organizationId}::uuid, ${user.userId}::uuid, 'session', ${late.apiPublicKey}
                 WHERE ${userActive(org.organizationId, user.userId)}`,
          );
          inserted();
          await held;
        });
        await ready;
        const removal = call(server, 'DELETE', `/organizations/${org.organizationId}/users/${user.userId}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        release();
        await login;
        const removed = await removal;
        assert.equal(removed.status, 200, JSON.stringify(removed.json));
        assert.equal(removed.json.revokedApiKeys, 1, 'the removal waited for the statement and revoked its key');
        const [key] = await server.db.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE public_key = $1', [late.apiPublicKey]);
        assert.ok(key!.revoked_at, 'no live key is left to a removed user');
      },
    );

    test('findUserByContact and userActive: the organization\'s users not removed', async () => {
      const user = (await call(server, 'POST', `/organizations/${org.organizationId}/users`, { userName: 'nina', email: 'Nina@Example.com', phoneNumber: '+14155552679' })).json;
      // Stored in lowercase, and looked up in lowercase (the callers' canonicalEmailAddress).
      assert.deepEqual(await findUserByContact(server.db, org.organizationId, { email: 'nina@example.com' }), { id: user.userId, userName: 'nina' });
      assert.deepEqual(await findUserByContact(server.db, org.organizationId, { phoneNumber: '+14155552679' }), { id: user.userId, userName: 'nina' });
      const other = await server.createOrganization('Not hers');
      assert.equal(await findUserByContact(server.db, other.organizationId, { email: 'nina@example.com' }), undefined);
      const active = async (organizationId: string, userId: string) =>
        (await run<{ ok: boolean }>(server.db, sql`SELECT ${userActive(organizationId, userId)} AS ok`))[0]!.ok;
      assert.equal(await active(org.organizationId, user.userId), true);
      assert.equal(await active(other.organizationId, user.userId), false);
      await call(server, 'DELETE', `/organizations/${org.organizationId}/users/${user.userId}`);
      assert.equal(await active(org.organizationId, user.userId), false);
      assert.equal(await findUserByContact(server.db, org.organizationId, { email: 'nina@example.com' }), undefined);
      assert.equal(await findUserByContact(server.db, org.organizationId, { phoneNumber: '+14155552679' }), undefined);
    });
  });
}
