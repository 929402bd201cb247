// Who may do what, as the ecosystem's unmodified clients meet it: an end user's session key (init_otp →
// verify_otp → otp_login) is refused every write and still reads; a 2-of-3 tag consensus policy leaves
// an activity waiting with nothing written until a second approver's approveActivity completes it;
// a rejection is final; an init_otp_auth that needs approval sends its email only once approved; a
// root quorum of 2 needs both roots; @turnkey/http's createActivityPoller throws its consensus error
// on a waiting activity; get_policy_evaluations records each vote. Two approvals raced through two
// `signet serve` processes on one PostgreSQL execute the activity once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { createActivityPoller, TurnkeyActivityConsensusNeededError, TurnkeyActivityError, TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { freePort, serve, type Served } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';
import { TRANSFER_ABI, envelope, interfaceBody } from './support/envelopes.ts';

const CODE = /\b([0-9A-HJKMNP-TV-Z]{9})\b/;
const CREATE_INTERFACE = "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'";

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;

const clientAt = (baseUrl: string, keys: Keys) =>
  new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: keys.apiPublicKey, apiPrivateKey: keys.apiPrivateKey }));



/** The error a refused request rejects with, as @turnkey/http reports it. */
function refusedWith(code: number, message: RegExp, turnkeyErrorCode?: string) {
  return (error: any) => {
    assert.equal(error.code, code, String(error.message));
    assert.match(String(error.message), message);
    if (turnkeyErrorCode) {
      assert.deepEqual(error.details, [{ '@type': 'type.googleapis.com/errors.v1.TurnkeyErrorDetail', turnkeyErrorCode }]);
    }
    return true;
  };
}

for (const tdb of testDatabases) {
  describe(`who may do what (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' }, { logger: { level: 'error' } as any });
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    /** An organization with its root (the creator) and `count` more users with API keys, none of them root. */
    async function team(count: number) {
      const root = await server.createOrganization(`Team ${randomUUID().slice(0, 8)}`);
      const members: Array<Keys & { userId: string }> = [];
      for (let i = 0; i < count; i++) {
        const { userId } = await server.admin('POST', `/organizations/${root.organizationId}/users`, { userName: `member ${i}` });
        const key = await server.admin('POST', `/organizations/${root.organizationId}/api-keys`, { userId });
        members.push({ userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
      }
      return { root, members, organizationId: root.organizationId };
    }

    const as = (keys: Keys) => server.client(keys);

    async function tag(root: Credentials, userIds: string[]): Promise<string> {
      const { activity } = (await as(root).createUserTag(
        envelope('ACTIVITY_TYPE_CREATE_USER_TAG', root.organizationId, { userTagName: `approvers ${randomUUID().slice(0, 8)}`, userIds }),
      )) as any;
      return activity.result.createUserTagResult.userTagId;
    }

    async function policy(root: Credentials, parameters: { effect: 'EFFECT_ALLOW' | 'EFFECT_DENY'; condition?: string; consensus?: string }) {
      const { activity } = (await as(root).createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', root.organizationId, { policyName: `policy ${randomUUID().slice(0, 8)}`, notes: '', ...parameters }),
      )) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      return activity.result.createPolicyResult.policyId as string;
    }

    const vote = (keys: Keys, organizationId: string, fingerprint: string, approve = true) =>
      approve
        ? as(keys).approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint }))
        : as(keys).rejectActivity(envelope('ACTIVITY_TYPE_REJECT_ACTIVITY', organizationId, { fingerprint }));

    async function interfaces(keys: Keys, organizationId: string) {
      const { smartContractInterfaces } = (await as(keys).getSmartContractInterfaces({ organizationId })) as any;
      return smartContractInterfaces as Array<{ label: string }>;
    }

    /** A 2-of-3 consensus of a tag on creating smart contract interfaces. */
    async function twoOfThree() {
      const t = await team(3);
      const tagId = await tag(t.root, t.members.map((m) => m.userId));
      const policyId = await policy(t.root, {
        effect: 'EFFECT_ALLOW',
        condition: CREATE_INTERFACE,
        consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 2`,
      });
      return { ...t, tagId, policyId };
    }

    test("an end user's session key (otp_login) is refused every write (403) and still reads", async () => {
      const { root, organizationId } = await team(0);
      const app = new Turnkey({ apiBaseUrl: server.baseUrl, ...root, defaultOrganizationId: organizationId }).apiClient();
      const email = `end-user-${randomUUID().slice(0, 8)}@example.com`;
      await app.createUsers({ users: [{ userName: 'End User', userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
      const keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as { otpEncryptionBundleSignerPublicKey: string };
      const { otpId, otpEncryptionTargetBundle } = await app.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme' });
      const code = await until('the emailed code', () => CODE.exec(smtp.messages.find((m) => JSON.stringify(m.to).includes(email))?.text ?? '')?.[1]);
      const sessionKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, sessionKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await app.verifyOtp({ otpId, encryptedOtpBundle });
      const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString()).id;
      const message = JSON.stringify({ login: { publicKey: sessionKey.publicKey }, tokenId, type: 'USAGE_TYPE_LOGIN' });
      const signature = await new ApiKeyStamper({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }).sign(message, SignatureFormat.Raw);
      await app.otpLogin({
        verificationToken,
        publicKey: sessionKey.publicKey,
        clientSignature: { publicKey: sessionKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature },
      });

      const before = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities WHERE organization_id = $1', [organizationId]);
      const asUser = new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey, defaultOrganizationId: organizationId }).apiClient();
      const denied = refusedWith(7, /not allowed for user .* \(implicit deny\)/, 'REQUEST_NOT_AUTHORIZED');
      await assert.rejects(
        asUser.createUsers({ users: [{ userName: 'Mallory', apiKeys: [{ apiKeyName: 'mine', publicKey: generateP256KeyPair().publicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [], userTags: [] }] }),
        denied,
      );
      await assert.rejects(
        asUser.createSmartContractInterface({ smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: TRANSFER_ABI, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'mine' }),
        denied,
      );
      await assert.rejects(asUser.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: 'victim@example.com', appName: 'Acme' }), denied);
      // Nothing was stored, and the same key still reads.
      const afterwards = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities WHERE organization_id = $1', [organizationId]);
      assert.equal(afterwards[0]!.n, before[0]!.n);
      const { activities } = await asUser.getActivities({});
      assert.ok(activities.length >= 3);
      assert.deepEqual(await interfaces({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, organizationId), []);
    });

    test('2 of 3 tagged approvers: the activity waits with nothing written; a second approval completes it once', async () => {
      const { organizationId, members, root, policyId } = await twoOfThree();
      const [alice, bob, carol] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]];

      const { activity: waiting } = (await as(alice).createSmartContractInterface(interfaceBody(organizationId, 'needs two'))) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      // No result yet: the flat result holds the nested activity alone.
      assert.deepEqual(Object.keys(waiting.result), ['activity']);
      assert.deepEqual(waiting.result.activity.result, {});
      assert.equal(waiting.votes.length, 1);
      assert.equal(waiting.votes[0].userId, alice.userId);
      // The submitter may withdraw it, not approve it again; the other taggees may vote.
      assert.equal(waiting.canApprove, false);
      assert.equal(waiting.canReject, true);
      assert.deepEqual(await interfaces(root, organizationId), []);
      const read = (keys: Keys) => as(keys).getActivity({ organizationId, activityId: waiting.id }) as Promise<any>;
      assert.deepEqual(
        [(await read(bob)).activity.canApprove, (await read(carol)).activity.canApprove, (await read(root)).activity.canApprove],
        [true, true, true],
      );
      // The waiting activity is listed under its status.
      const { activities } = (await as(root).getActivities({ organizationId, filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'] })) as any;
      assert.deepEqual(activities.map((a: any) => a.id), [waiting.id]);

      // Resubmitting the same body answers with the stored, still waiting activity.
      const resubmitted = (await as(alice).createSmartContractInterface(JSON.parse(waiting.votes[0].message))) as any;
      assert.equal(resubmitted.activity.id, waiting.id);
      assert.equal(resubmitted.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

      const approval = envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: waiting.fingerprint });
      const { activity: approved } = (await as(bob).approveActivity(approval)) as any;
      assert.equal(approved.id, waiting.id);
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.match(approved.result.createSmartContractInterfaceResult.smartContractInterfaceId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(approved.votes.map((v: any) => [v.userId, v.selection]), [
        [alice.userId, 'VOTE_SELECTION_APPROVED'],
        [bob.userId, 'VOTE_SELECTION_APPROVED'],
      ]);
      assert.equal(JSON.parse(approved.votes[1].message).parameters.fingerprint, waiting.fingerprint);
      assert.deepEqual((await interfaces(root, organizationId)).map((i) => i.label), ['needs two']);

      // The same approval again answers as before; another approval body by the same user, or a
      // third vote on a completed activity, is a 400.
      const again = (await as(bob).approveActivity(approval)) as any;
      assert.equal(again.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await assert.rejects(vote(bob, organizationId, waiting.fingerprint), refusedWith(3, /already voted/));
      await assert.rejects(vote(carol, organizationId, waiting.fingerprint), refusedWith(3, /ACTIVITY_STATUS_COMPLETED: only an activity waiting/));
      assert.equal((await interfaces(root, organizationId)).length, 1);

      // One record per vote: the submitter's needed consensus, the approval allowed it.
      const { policyEvaluations } = (await as(root).getPolicyEvaluations({ organizationId, activityId: waiting.id })) as any;
      assert.deepEqual(
        policyEvaluations.map((e: any) => e.policyEvaluations),
        [[{ policyId, outcome: 'OUTCOME_REQUIRES_CONSENSUS' }], [{ policyId, outcome: 'OUTCOME_ALLOW' }]],
      );
      assert.deepEqual(policyEvaluations.map((e: any) => e.voteId), approved.votes.map((v: any) => v.id));
    });

    test('a user the consensus does not count may not vote (403); an unknown fingerprint is a 404; a rejection is final', async () => {
      const { organizationId, members, root } = await twoOfThree();
      const [alice, bob] = members as [(typeof members)[0], (typeof members)[0]];
      const outsider = (await team(0)).root; // a root elsewhere: another organization's key
      const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName: 'untagged' });
      const untagged = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });

      const { activity: waiting } = (await as(alice).createSmartContractInterface(interfaceBody(organizationId, 'rejected'))) as any;
      await assert.rejects(vote(untagged, organizationId, waiting.fingerprint), refusedWith(7, /may not vote on activity/, 'REQUEST_NOT_AUTHORIZED'));
      await assert.rejects(vote(outsider, organizationId, waiting.fingerprint), refusedWith(7, /does not belong to organization/));
      await assert.rejects(vote(bob, organizationId, `sha256:${'0'.repeat(64)}`), refusedWith(5, /no activity with fingerprint/));
      // The submitter approving its own activity again is a 400.
      await assert.rejects(vote(alice, organizationId, waiting.fingerprint), refusedWith(3, /already voted/));

      const { activity: rejected } = (await vote(bob, organizationId, waiting.fingerprint, false)) as any;
      assert.equal(rejected.status, 'ACTIVITY_STATUS_REJECTED');
      assert.equal(rejected.canApprove, false);
      await assert.rejects(vote(root, organizationId, waiting.fingerprint), refusedWith(3, /ACTIVITY_STATUS_REJECTED/));
      assert.deepEqual(await interfaces(root, organizationId), []);
    });

    test('an init_otp_auth that needs approval sends its email only once approved', async () => {
      const t = await team(2);
      const tagId = await tag(t.root, t.members.map((m) => m.userId));
      await policy(t.root, {
        effect: 'EFFECT_ALLOW',
        condition: "activity.resource == 'AUTH' && activity.action == 'CREATE'",
        consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 2`,
      });
      const [backend, approver] = t.members as [(typeof t.members)[0], (typeof t.members)[0]];
      const email = `approved-${randomUUID().slice(0, 8)}@example.com`;
      const { activity: waiting } = (await as(backend).initOtpAuth(
        envelope('ACTIVITY_TYPE_INIT_OTP_AUTH_V3', t.organizationId, { otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme' }),
      )) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const queued = () => server.db.query('SELECT 1 FROM otps WHERE organization_id = $1', [t.organizationId]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(smtp.messages.filter((m) => JSON.stringify(m.to).includes(email)).length, 0);
      assert.equal((await queued()).length, 0);

      const { activity: approved } = (await vote(approver, t.organizationId, waiting.fingerprint)) as any;
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.match(approved.result.initOtpAuthResultV2.otpId, /^[0-9a-f-]{36}$/);
      await until('the email after approval', () => smtp.messages.find((m) => JSON.stringify(m.to).includes(email)));
      assert.equal((await queued()).length, 1);
    });

    test('a root quorum of 2 needs both roots; only the root quorum decides update_root_quorum', async () => {
      const { root, members, organizationId } = await team(1);
      const second = members[0]!;
      const updated = (await as(root).updateRootQuorum(
        envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', organizationId, { threshold: 2, userIds: [root.userId, second.userId] }),
      )) as any;
      assert.equal(updated.activity.status, 'ACTIVITY_STATUS_COMPLETED');

      const { activity: waiting } = (await as(root).createSmartContractInterface(interfaceBody(organizationId, 'two roots'))) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.deepEqual(await interfaces(root, organizationId), []);
      const { activity: done } = (await vote(second, organizationId, waiting.fingerprint)) as any;
      assert.equal(done.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal((await interfaces(root, organizationId)).length, 1);

      // A policy allowing everything (itself approved by both roots) lets one root write alone, but
      // not change the quorum: update_root_quorum is decided by the root quorum alone.
      const { activity: allowAll } = (await as(root).createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, { policyName: 'anything', effect: 'EFFECT_ALLOW', notes: '' }),
      )) as any;
      assert.equal(allowAll.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(((await vote(second, organizationId, allowAll.fingerprint)) as any).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { activity: byPolicy } = (await as(second).createSmartContractInterface(interfaceBody(organizationId, 'by policy'))) as any;
      assert.equal(byPolicy.status, 'ACTIVITY_STATUS_COMPLETED');
      const { activity: change } = (await as(second).updateRootQuorum(
        envelope('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', organizationId, { threshold: 1, userIds: [root.userId] }),
      )) as any;
      assert.equal(change.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const { activity: changed } = (await vote(root, organizationId, change.fingerprint)) as any;
      assert.equal(changed.status, 'ACTIVITY_STATUS_COMPLETED');
      const { configs } = (await as(root).getOrganizationConfigs({ organizationId })) as any;
      assert.deepEqual(configs.quorum, { threshold: 1, userIds: [root.userId] });
      // The change is seen at once: the first root alone writes again.
      const { activity: alone } = (await as(root).createSmartContractInterface(interfaceBody(organizationId, 'one root'))) as any;
      assert.equal(alone.status, 'ACTIVITY_STATUS_COMPLETED');
    });

    test('an activity refused when it finally executes is FAILED with its failure; its submitter may withdraw one', async () => {
      const t = await team(2);
      const tagId = await tag(t.root, t.members.map((m) => m.userId));
      await policy(t.root, {
        effect: 'EFFECT_ALLOW',
        condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
        consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 2`,
      });
      const [alice, bob] = t.members as [(typeof t.members)[0], (typeof t.members)[0]];
      const tagBody = (userTagName: string) => envelope('ACTIVITY_TYPE_CREATE_USER_TAG', t.organizationId, { userTagName, userIds: [] });
      const { activity: waiting } = (await as(alice).createUserTag(tagBody('operators'))) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      // Meanwhile the root takes the name.
      assert.equal(((await as(t.root).createUserTag(tagBody('operators'))) as any).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { activity: failed } = (await vote(bob, t.organizationId, waiting.fingerprint)) as any;
      assert.equal(failed.status, 'ACTIVITY_STATUS_FAILED');
      assert.equal(failed.failure.code, 3);
      assert.match(failed.failure.message, /operators/);
      assert.deepEqual(failed.result, { activity: failed.result.activity });
      const { userTags } = (await as(t.root).listUserTags({ organizationId: t.organizationId })) as any;
      assert.equal(userTags.filter((u: any) => u.tagName === 'operators').length, 1);

      const { activity: second } = (await as(alice).createUserTag(tagBody('auditors'))) as any;
      const { activity: withdrawn } = (await vote(alice, t.organizationId, second.fingerprint, false)) as any;
      assert.equal(withdrawn.status, 'ACTIVITY_STATUS_REJECTED');
      assert.deepEqual(withdrawn.votes.map((v: any) => v.selection), ['VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED']);
    });

    test('an activity carrying a secret that is not kept (verify_otp with its code) cannot wait: 403, nothing stored', async () => {
      const t = await team(2);
      const tagId = await tag(t.root, t.members.map((m) => m.userId));
      await policy(t.root, {
        effect: 'EFFECT_ALLOW',
        condition: "activity.resource == 'OTP' && activity.action == 'VERIFY'",
        consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 2`,
      });
      await assert.rejects(
        // @turnkey/http types verifyOtp as V2 only; V1 (the code in clear) is what older clients send.
        as(t.members[0]!).verifyOtp(envelope('ACTIVITY_TYPE_VERIFY_OTP', t.organizationId, { otpId: randomUUID(), otpCode: '123456' }) as never),
        refusedWith(7, /cannot wait for them: the secret it carries is not kept/, 'REQUEST_NOT_AUTHORIZED'),
      );
      const [stored] = await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM activities WHERE organization_id = $1 AND type = 'ACTIVITY_TYPE_VERIFY_OTP'", [t.organizationId]);
      assert.equal(stored!.n, 0);
    });

    test("createActivityPoller throws its consensus error on a waiting activity", async () => {
      const { organizationId, members } = await twoOfThree();
      const client = as(members[0]!);
      const poller = createActivityPoller({ client, requestFn: client.createSmartContractInterface });
      await assert.rejects(poller(interfaceBody(organizationId, 'polled')), (error: unknown) => {
        assert.ok(error instanceof TurnkeyActivityConsensusNeededError || error instanceof TurnkeyActivityError, String(error));
        assert.equal((error as TurnkeyActivityError).activityStatus, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
        return true;
      });
    });

    test('an explicit DENY names its policy; a failing expression never allows', async () => {
      const { root, members, organizationId } = await team(1);
      const member = members[0]!;
      const allowId = await policy(root, { effect: 'EFFECT_ALLOW', condition: CREATE_INTERFACE });
      const { activity: allowed } = (await as(member).createSmartContractInterface(interfaceBody(organizationId, 'allowed'))) as any;
      assert.equal(allowed.status, 'ACTIVITY_STATUS_COMPLETED');
      // A DENY whose condition reads an absent field cannot be evaluated: it denies (fail closed).
      const denyId = await policy(root, { effect: 'EFFECT_DENY', condition: "activity.params.no_such_field == 'x'" });
      await assert.rejects(
        as(member).createSmartContractInterface(interfaceBody(organizationId, 'denied')),
        refusedWith(7, new RegExp(`denied by policy ${denyId} .*\\(explicit deny\\)`), 'REQUEST_NOT_AUTHORIZED'),
      );
      // The root quorum is not subject to policies.
      const { activity: rootOne } = (await as(root).createSmartContractInterface(interfaceBody(organizationId, 'root'))) as any;
      assert.equal(rootOne.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.ok(allowId);
    });
  });
}

const postgres = testDatabases.find((d) => d.name === 'postgres');

describe('two approvals raced in two processes (postgres)', { skip: postgres ? false : 'SIGNET_TEST_DATABASE_URL is not set; two processes need PostgreSQL' }, () => {
  const ADMIN_TOKEN = 'authorization-test-admin-token-0123456789';
  let store: ServerStore;
  const servers: Array<{ served: Served; baseUrl: string }> = [];

  before(async () => {
    store = await serverStore(postgres!, 'signet_approvals');
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = { ...store.env, SIGNET_PORT: String(port), SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_OTP_SECRET: 'a3b1c9e07a5d42688e1b0c7d9a3f5e21b4c6d8e0f2a4b6c8d0e2f4a6b8c0d2e4', SIGNET_LOG_LEVEL: 'warn' };
      servers.push({ served: await serve(env, baseUrl), baseUrl });
    }
  });
  after(async () => {
    for (const { served } of servers) await served.stop();
    await store.dispose();
  });

  test('the activity executes once, whichever approval commits first', async () => {
    const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const admin = async (path: string, body: unknown) => {
      const response = await fetch(`${first.baseUrl}/admin/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200);
      return (await response.json()) as any;
    };
    const root = await admin('/organizations', { name: 'Raced' });
    const organizationId = root.organizationId as string;
    const members: Array<Keys & { userId: string }> = [];
    for (let i = 0; i < 3; i++) {
      const { userId } = await admin(`/organizations/${organizationId}/users`, { userName: `member ${i}` });
      members.push({ userId, ...(await admin(`/organizations/${organizationId}/api-keys`, { userId })) });
    }
    const rootClient = clientAt(first.baseUrl, root);
    const { activity: tagged } = (await rootClient.createUserTag(
      envelope('ACTIVITY_TYPE_CREATE_USER_TAG', organizationId, { userTagName: 'approvers', userIds: members.map((m) => m.userId) }),
    )) as any;
    const tagId = tagged.result.createUserTagResult.userTagId;
    await rootClient.createPolicy(
      envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, {
        policyName: 'two approvers',
        effect: 'EFFECT_ALLOW',
        condition: CREATE_INTERFACE,
        consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 2`,
        notes: '',
      }),
    );
    // The second process has the organization's authority in memory now; a DENY written through the
    // first is honoured by the second at once.
    const probe = (label: string) => clientAt(second.baseUrl, members[0]!).createSmartContractInterface(interfaceBody(organizationId, label));
    assert.equal(((await probe('before the deny')) as any).activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const { activity: deny } = (await rootClient.createPolicy(
      envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, { policyName: 'no probes', effect: 'EFFECT_DENY', condition: "activity.params.label == 'probe'", notes: '' }),
    )) as any;
    await assert.rejects(probe('probe'), (error: any) => {
      assert.equal(error.code, 7);
      assert.match(String(error.message), new RegExp(`denied by policy ${deny.result.createPolicyResult.policyId}`));
      return true;
    });

    for (let round = 0; round < 5; round++) {
      const label = `raced ${round}`;
      const { activity: waiting } = (await clientAt(second.baseUrl, members[0]!).createSmartContractInterface(interfaceBody(organizationId, label))) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const answers = await Promise.allSettled([
        clientAt(first.baseUrl, members[1]!).approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: waiting.fingerprint })),
        clientAt(second.baseUrl, members[2]!).approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: waiting.fingerprint })),
      ]);
      const completed = answers.filter((a) => a.status === 'fulfilled' && (a.value as any).activity.status === 'ACTIVITY_STATUS_COMPLETED');
      const late = answers.filter((a) => a.status === 'rejected');
      // The first to commit executed it; the other found it no longer waiting.
      assert.equal(completed.length, 1, JSON.stringify(answers.map((a) => (a.status === 'fulfilled' ? (a.value as any).activity.status : String(a.reason)))));
      assert.equal(late.length, 1);
      assert.match(String((late[0] as PromiseRejectedResult).reason), /ACTIVITY_STATUS_COMPLETED: only an activity waiting/);
      const { smartContractInterfaces } = (await rootClient.getSmartContractInterfaces({ organizationId })) as any;
      assert.equal(smartContractInterfaces.filter((i: any) => i.label === label).length, 1);
    }
  });
});
