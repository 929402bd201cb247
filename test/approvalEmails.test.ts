// Approval emails, received by a real SMTP server on loopback and parsed: an activity that waits for
// approvals emails each user who may vote on it and has an address proven for it (a code sent to it,
// its token given with update_user_email), once — never its submitter, not a user without an address
// or whose address no one proved, not a user no policy counts, and at most 10 an hour to one address
// (past it skipped, with a warning naming the activity and the user); with the organization, the type, a summary
// of the intent, the submitter, the time and the link under SIGNET_PUBLIC_URL, and nothing secret.
// Resubmitting the body, a second server on the same store, a restart of `signet serve` and a vote
// that leaves the activity waiting send nothing again; a vote after a new user became a voter emails
// that user, unless the vote is theirs.
// SIGNET_APPROVAL_EMAILS=false, or no SMTP server, queues none.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { APPROVAL_EMAIL_BOUND, summaryOf } from '../src/activities/lifecycle/approvalRequests.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { serverStore, testDatabases } from './support/databases.ts';
import { freePort, serve } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';
import { envelope, interfaceBody } from './support/envelopes.ts';
import { proveEmail } from './support/provenEmail.ts';

const PUBLIC_URL = 'https://signet.example.com/base';
const CREATE_INTERFACE = "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'";

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;
type Member = Keys & { userId: string; email?: string };



/** The approval emails the sink received for `address` (the codes that proved it are not counted). */
const mailsTo = (smtp: SmtpSink, address: string): ParsedMail[] =>
  smtp.messages.filter((m) => JSON.stringify(m.to).includes(address) && m.subject?.startsWith('Approval needed'));

/** The first approval email the sink received for `address`, once it has one. */
const approvalMailTo = (smtp: SmtpSink, address: string): Promise<ParsedMail> =>
  until(`an approval email to ${address}`, () => mailsTo(smtp, address)[0]);

/** Until no message of the store is queued, retrying or being sent: every worker is done. */
const outboxSettled = (server: TestServer) =>
  until('the outbox to have nothing left to send', async () => {
    const [row] = await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE status IN ('queued', 'retrying', 'sending')");
    return row!.n === 0;
  });

const approvalRows = async (server: TestServer, activityId: string) =>
  server.db.query<{ user_id: string }>('SELECT user_id FROM approval_requests WHERE activity_id = $1 ORDER BY user_id', [activityId]);

const approvalMessages = async (server: TestServer, organizationId: string) =>
  (await server.db.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE organization_id = $1 AND channel = 'approval'", [organizationId]))[0]!.n;

/**
 * An organization with these users, each with an API key; each address is proven (proveEmail, through
 * `smtp`) unless the user says `unproven`, or no sink is given (no email is sent then).
 */
async function organization(server: TestServer, name: string, users: Array<{ name: string; email?: string; unproven?: true }>, smtp?: SmtpSink) {
  const root = await server.createOrganization(name);
  const members: Member[] = [];
  for (const user of users) {
    const { userId } = await server.admin('POST', `/organizations/${root.organizationId}/users`, { userName: user.name, ...(user.email ? { email: user.email } : {}) });
    const key = await server.admin('POST', `/organizations/${root.organizationId}/api-keys`, { userId });
    if (user.email && smtp && !user.unproven) await proveEmail(server.client(root), smtp, root.organizationId, userId, user.email);
    members.push({ userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey, ...(user.email ? { email: user.email } : {}) });
  }
  return { root, members, organizationId: root.organizationId };
}

const unique = () => randomUUID().slice(0, 8);

for (const tdb of testDatabases) {
  describe(`approval emails (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'approvals@signet.test', SIGNET_PUBLIC_URL: `${PUBLIC_URL}/` });
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    test('a root quorum of 2: the other root user is emailed once, with what the activity is and its link; the submitter and a user without an address are not', async () => {
      const id = unique();
      const alice = `alice-${id}@example.com`;
      const bob = `bob-${id}@example.com`;
      const { members, organizationId } = await organization(server, `Acme <Ops> & Co ${id}`, [
        { name: 'Alice', email: alice },
        { name: 'Bob "the approver"', email: bob },
        { name: 'Carol' },
      ], smtp);
      const [a, b, c] = members as [Member, Member, Member];
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [a.userId, b.userId, c.userId] });

      const body = interfaceBody(organizationId, `payments\nrouter ${id}`);
      const { activity } = (await server.client(a).createSmartContractInterface(body)) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

      const mail = await approvalMailTo(smtp, bob);
      await outboxSettled(server);
      assert.equal(mailsTo(smtp, bob).length, 1);
      assert.equal(mailsTo(smtp, alice).length, 0, 'the submitter is not emailed');
      // Carol may vote but has no address; the organization's creator is no longer a root user.
      assert.deepEqual((await approvalRows(server, activity.id)).map((r) => r.user_id), [b.userId]);
      assert.equal(await approvalMessages(server, organizationId), 1);

      const link = `${PUBLIC_URL}/console/activities/${activity.id}`;
      const [stored] = await server.db.query<{ created_at: Date }>('SELECT created_at FROM activities WHERE id = $1', [activity.id]);
      const text = mail.text ?? '';
      assert.equal(mail.subject, `Approval needed: ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE in Acme <Ops> & Co ${id}`);
      assert.equal(mail.from?.value[0]?.address, 'approvals@signet.test');
      assert.match(mail.messageId ?? '', /^<approval-[0-9a-f-]{36}@signet\.test>$/);
      for (const expected of [
        `Hello Bob "the approver",`,
        `Organization: Acme <Ops> & Co ${id} (${organizationId})`,
        'Activity:     ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
        'Summary:      create smart contract interface: smartContractAddress "0xdAC17F958D2ee523a2206206994597C13D831ec7", smartContractInterface "[{',
        `", type "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label "payments router ${id}"\n`,
        `Submitted by: Alice (${a.userId})`,
        `Submitted at: ${new Date(stored!.created_at).toISOString()}`,
        `Activity ID:  ${activity.id}`,
        link,
      ]) {
        assert.ok(text.includes(expected), `the text holds ${JSON.stringify(expected)}:\n${text}`);
      }
      // The summary is one line, whatever line breaks the intent holds.
      assert.equal(text.split('\n').filter((line) => line.startsWith('Summary:')).length, 1);
      const html = String(mail.html);
      assert.ok(html.includes(`<a href="${link}">`), html);
      assert.ok(html.includes(`Acme &lt;Ops&gt; &amp; Co ${id}`), html);
      assert.ok(html.includes('Hello Bob &quot;the approver&quot;,'), html);
      assert.ok(!html.includes('<Ops>'), 'the HTML escapes what it shows');

      // Nothing secret: not the submitter's key, nor its stamp's signature, nor the deployment secret.
      const secret = (await import('node:fs')).readFileSync(`${server.dataDir}/otp-secret`, 'utf8').trim();
      for (const hidden of [a.apiPrivateKey, activity.votes[0].signature, secret]) {
        assert.ok(!text.includes(hidden) && !html.includes(hidden), 'no secret in the email');
      }

      // Resubmitting the same body answers with the stored activity, and sends nothing again.
      const again = (await server.client(a).createSmartContractInterface(JSON.parse(activity.votes[0].message))) as any;
      assert.equal(again.activity.id, activity.id);
      await outboxSettled(server);
      assert.equal(mailsTo(smtp, bob).length, 1);
      assert.equal(await approvalMessages(server, organizationId), 1);
    });

    test('no email to an address no one proved: a user whose address was typed (create_users, the admin API) and never proven is not asked', async () => {
      const id = unique();
      const typed = `typed-${id}@example.com`;
      const proven = `proven-${id}@example.com`;
      const { members, organizationId } = await organization(
        server,
        `Unproven ${id}`,
        [{ name: 'Submitter', email: `submitter-${id}@example.com` }, { name: 'Typed', email: typed, unproven: true }, { name: 'Proven', email: proven }],
        smtp,
      );
      const [submitter, typedUser, provenUser] = members as [Member, Member, Member];
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [submitter.userId, typedUser.userId, provenUser.userId] });
      const { activity } = (await server.client(submitter).createSmartContractInterface(interfaceBody(organizationId, `unproven ${id}`))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      await approvalMailTo(smtp, proven);
      await outboxSettled(server);
      assert.equal(mailsTo(smtp, typed).length, 0, 'no approval email to an address no one proved');
      assert.deepEqual((await approvalRows(server, activity.id)).map((r) => r.user_id), [provenUser.userId]);
      assert.equal(await approvalMessages(server, organizationId), 1);
    });

    test("a policy's consensus: the users it counts are emailed, not those it does not count", async () => {
      const id = unique();
      const addresses = ['ann', 'ben', 'dee', 'eve'].map((name) => `${name}-${id}@example.com`);
      const { root, members, organizationId } = await organization(
        server,
        `Policy ${id}`,
        addresses.map((email, i) => ({ name: `user ${i}`, email })),
        smtp,
      );
      const [ann, ben, dee] = members as [Member, Member, Member, Member];
      const client = server.client(root);
      const { activity: tagged } = (await client.createUserTag(
        envelope('ACTIVITY_TYPE_CREATE_USER_TAG', organizationId, { userTagName: 'approvers', userIds: [ann.userId, ben.userId, dee.userId] }),
      )) as any;
      const tagId = tagged.result.createUserTagResult.userTagId;
      await client.createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, {
          policyName: 'two approvers',
          effect: 'EFFECT_ALLOW',
          condition: CREATE_INTERFACE,
          consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= 3`,
          notes: '',
        }),
      );
      const { activity } = (await server.client(ann).createSmartContractInterface(interfaceBody(organizationId, `policy ${id}`))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      await approvalMailTo(smtp, addresses[1]!);
      await approvalMailTo(smtp, addresses[2]!);
      await outboxSettled(server);
      assert.deepEqual(addresses.map((address) => mailsTo(smtp, address).length), [0, 1, 1, 0]);
      assert.match(mailsTo(smtp, addresses[2]!)[0]!.text ?? '', new RegExp(`Submitted by: user 0 \\(${ann.userId}\\)`));

      // Ben's approval leaves it waiting (three are needed): no one is emailed again, Ben least of all.
      const approve = envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: activity.fingerprint });
      const { activity: voted } = (await server.client(ben).approveActivity(approve)) as any;
      assert.equal(voted.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      await outboxSettled(server);
      assert.deepEqual(addresses.map((address) => mailsTo(smtp, address).length), [0, 1, 1, 0]);
      assert.equal(await approvalMessages(server, organizationId), 2);
    });

    test('a vote that leaves the activity waiting emails only who became a voter since', async () => {
      const id = unique();
      const addresses = ['gil', 'hal', 'ivy', 'jon'].map((name) => `${name}-${id}@example.com`);
      const kai = `kai-${id}@example.com`;
      const { members, organizationId } = await organization(
        server,
        `Votes ${id}`,
        [...addresses.map((email, i) => ({ name: `user ${i}`, email })), { name: 'Kai', email: kai }],
        smtp,
      );
      const [gil, hal, ivy, jon, kaiUser] = members as [Member, Member, Member, Member, Member];
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 3, userIds: [gil.userId, hal.userId, ivy.userId] });
      const { activity } = (await server.client(gil).createSmartContractInterface(interfaceBody(organizationId, `votes ${id}`))) as any;
      await approvalMailTo(smtp, addresses[1]!);
      await approvalMailTo(smtp, addresses[2]!);

      // Jon becomes a root user, and the threshold 4: Hal's approval leaves the activity waiting.
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 4, userIds: [gil.userId, hal.userId, ivy.userId, jon.userId] });
      const approve = envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: activity.fingerprint });
      const { activity: voted } = (await server.client(hal).approveActivity(approve)) as any;
      assert.equal(voted.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const mail = await approvalMailTo(smtp, addresses[3]!);
      assert.match(mail.text ?? '', new RegExp(`Submitted by: user 0 \\(${gil.userId}\\)`));
      await outboxSettled(server);
      assert.deepEqual(addresses.map((address) => mailsTo(smtp, address).length), [0, 1, 1, 1]);
      assert.equal(await approvalMessages(server, organizationId), 3);

      // Kai becomes a root user too and approves at once: a voter is not asked for the vote it gave.
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 5, userIds: [gil.userId, hal.userId, ivy.userId, jon.userId, kaiUser.userId] });
      const { activity: third } = (await server.client(kaiUser).approveActivity({ ...approve, timestampMs: String(Date.now()) })) as any;
      assert.equal(third.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      await outboxSettled(server);
      assert.equal(mailsTo(smtp, kai).length, 0);
      assert.equal(await approvalMessages(server, organizationId), 3);
    });

    test('a second server on the same store, answering the same body, sends nothing again', async () => {
      const id = unique();
      const kim = `kim-${id}@example.com`;
      const { members, organizationId } = await organization(server, `Twice ${id}`, [{ name: 'Lea', email: `lea-${id}@example.com` }, { name: 'Kim', email: kim }], smtp);
      const [lea, kimUser] = members as [Member, Member];
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [lea.userId, kimUser.userId] });
      const { activity } = (await server.client(lea).createSmartContractInterface(interfaceBody(organizationId, `twice ${id}`))) as any;
      await approvalMailTo(smtp, kim);

      // Another server (its own engine and delivery worker) on the same store.
      const second = await startServer(loadConfig({ ...configEnv(server), SIGNET_SMTP_URL: smtp.url, SIGNET_PUBLIC_URL: PUBLIC_URL }), { db: server.db });
      try {
        const client = new TurnkeyClient({ baseUrl: second.url }, new ApiKeyStamper({ apiPublicKey: lea.apiPublicKey, apiPrivateKey: lea.apiPrivateKey }));
        const again = (await client.createSmartContractInterface(JSON.parse(activity.votes[0].message))) as any;
        assert.equal(again.activity.id, activity.id);
        assert.equal(again.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
        await outboxSettled(server);
      } finally {
        await second.close();
      }
      assert.equal(mailsTo(smtp, kim).length, 1);
      assert.equal(await approvalMessages(server, organizationId), 1);
      // The store holds one request per activity and user, whoever writes it.
      await assert.rejects(
        server.db.query('INSERT INTO approval_requests (activity_id, user_id, outbox_id, created_at) VALUES ($1, $2, $3, now())', [activity.id, kimUser.userId, randomUUID()]),
        /duplicate key|unique/,
      );
    });
  });

  describe(`approval emails bounded per address (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let logged = '';
    const logs = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'approvals@signet.test' }, { logger: { level: 'warn', stream: logs } });
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    test(`at most ${APPROVAL_EMAIL_BOUND.count} approval emails to one address an hour, however many activities wait at once; the others skipped with a warning, the activities waiting`, async () => {
      const id = unique();
      const mailbox = `relay-${id}@example.com`;
      const { members, organizationId } = await organization(server, `Bound ${id}`, [{ name: 'Submitter' }, { name: 'Recipient', email: mailbox }], smtp);
      const [submitter, recipient] = members as [Member, Member];
      await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [submitter.userId, recipient.userId] });
      const many = APPROVAL_EMAIL_BOUND.count + 4;
      const submitted = await Promise.all(
        Array.from({ length: many }, (_, i) => server.client(submitter).createSmartContractInterface(interfaceBody(organizationId, `bound ${id} ${i}`)) as Promise<any>),
      );
      const ids = submitted.map(({ activity }) => activity.id as string);
      assert.ok(submitted.every(({ activity }) => activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED'), 'every activity waits');
      await until('every approval email to be sent', () => mailsTo(smtp, mailbox).length >= APPROVAL_EMAIL_BOUND.count && true);
      await outboxSettled(server);
      assert.equal(mailsTo(smtp, mailbox).length, APPROVAL_EMAIL_BOUND.count);

      // Each activity asked the recipient once: past the bound, recorded without a message.
      const requests = await server.db.query<{ activity_id: string; outbox_id: string | null }>(
        'SELECT activity_id, outbox_id FROM approval_requests WHERE user_id = $1',
        [recipient.userId],
      );
      assert.deepEqual(requests.map((r) => r.activity_id).sort(), [...ids].sort());
      const skipped = requests.filter((r) => r.outbox_id === null).map((r) => r.activity_id).sort();
      assert.equal(skipped.length, many - APPROVAL_EMAIL_BOUND.count);

      // A warning for each skipped email, naming the activity and the user, never the address.
      const warnings = logged
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line))
        .filter((line) => /approval email skipped/.test(line.msg));
      assert.deepEqual(warnings.map((w) => w.activityId).sort(), skipped);
      assert.ok(warnings.every((w) => w.level === 40 && w.userId === recipient.userId && w.organizationId === organizationId), JSON.stringify(warnings));
      assert.ok(!logged.includes(`relay-${id}`), 'the logs do not hold the address');
    });
  });

  describe(`approval emails turned off (${tdb.name})`, () => {
    for (const [label, env] of [
      ['SIGNET_APPROVAL_EMAILS=false', { SIGNET_APPROVAL_EMAILS: 'false' }],
      ['no SMTP server', { SIGNET_SMTP_URL: '' }],
    ] as const) {
      test(`${label}: an activity waits, and no approval email is queued or sent`, async () => {
        const smtp = await startSmtpSink();
        const server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, ...env });
        try {
          const id = unique();
          const noa = `noa-${id}@example.com`;
          const { members, organizationId } = await organization(server, `Off ${id}`, [{ name: 'Max', email: `max-${id}@example.com` }, { name: 'Noa', email: noa }]);
          const [max, noaUser] = members as [Member, Member];
          await server.admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [max.userId, noaUser.userId] });
          const { activity } = (await server.client(max).createSmartContractInterface(interfaceBody(organizationId, `off ${id}`))) as any;
          assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
          // Written with the activity, or not at all: nothing is there once it is answered.
          assert.deepEqual(await approvalRows(server, activity.id), []);
          assert.equal(await approvalMessages(server, organizationId), 0);
          assert.equal(mailsTo(smtp, noa).length, 0);
        } finally {
          await server.close();
          await smtp.close();
        }
      });
    }
  });
}

/** The environment a test server was configured with, for a second server on its store. */
function configEnv(server: TestServer): Record<string, string> {
  return { SIGNET_PORT: '0', SIGNET_DATA_DIR: server.dataDir, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_OUTBOX_POLL_MS: '20' };
}

test("an intent's summary: one line of its plain fields, long values cut, nested objects and secret-named fields left out", () => {
  const summary = summaryOf('ACTIVITY_TYPE_INIT_OTP_AUTH_V3', {
    otpType: 'OTP_TYPE_EMAIL',
    contact: 'a@example.com',
    otpCode: '123456',
    encryptedOtpBundle: 'bundle',
    verificationToken: 'token',
    emailCustomization: { logoUrl: 'https://x' },
    appName: `line one\nline two ${'x'.repeat(100)}`,
    otpLength: 6,
    alphanumeric: false,
    userTags: ['a', 'b'],
  });
  assert.equal(
    summary,
    `init otp auth: otpType "OTP_TYPE_EMAIL", contact "a@example.com", appName "line one line two ${'x'.repeat(41)}…", otpLength 6, alphanumeric false, userTags (2 items)`,
  );
  assert.equal([...summaryOf('ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'y'.repeat(50), userIds: Array(400).fill('z'.repeat(59)) })].length <= 300, true);
  assert.equal(summaryOf('ACTIVITY_TYPE_DELETE_POLICY', {}), 'delete policy');
});

describe('approval emails across a restart of signet serve', () => {
  for (const tdb of testDatabases) {
    test(`a restarted server answering the same body sends nothing again (${tdb.name})`, async () => {
      const smtp = await startSmtpSink();
      const store = await serverStore(tdb, 'signet_approval_restart');
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = {
        ...store.env,
        SIGNET_PORT: String(port),
        SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
        SIGNET_OTP_SECRET: 'c4d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2',
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_PUBLIC_URL: PUBLIC_URL,
        SIGNET_OUTBOX_POLL_MS: '20',
        SIGNET_LOG_LEVEL: 'warn',
      };
      const admin = async (method: string, route: string, body?: unknown) => {
        const response = await fetch(`${baseUrl}/admin/v1${route}`, {
          method,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        assert.ok(response.ok, `${method} ${route}: ${response.status}`);
        return (await response.json()) as any;
      };
      let served = await serve(env, baseUrl);
      try {
        const id = unique();
        const rae = `rae-${id}@example.com`;
        const creator = await admin('POST', '/organizations', { name: `Restart ${id}` });
        const { organizationId } = creator;
        const users: Member[] = [];
        for (const [name, email] of [['Sol', `sol-${id}@example.com`], ['Rae', rae]] as const) {
          const { userId } = await admin('POST', `/organizations/${organizationId}/users`, { userName: name, email });
          users.push({ userId, ...(await admin('POST', `/organizations/${organizationId}/api-keys`, { userId })) });
        }
        const asCreator = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: creator.apiPublicKey, apiPrivateKey: creator.apiPrivateKey }));
        await proveEmail(asCreator, smtp, organizationId, users[1]!.userId, rae);
        const [sol, raeUser] = users as [Member, Member];
        await admin('PUT', `/organizations/${organizationId}/root-quorum`, { threshold: 2, userIds: [sol.userId, raeUser.userId] });
        const client = () => new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: sol.apiPublicKey, apiPrivateKey: sol.apiPrivateKey }));
        const { activity } = (await client().createSmartContractInterface(interfaceBody(organizationId, `restart ${id}`))) as any;
        assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
        await approvalMailTo(smtp, rae);

        await served.stop();
        served = await serve(env, baseUrl);
        const again = (await client().createSmartContractInterface(JSON.parse(activity.votes[0].message))) as any;
        assert.equal(again.activity.id, activity.id);
        const deliveries = await until('the approval email to be recorded as sent, alone', async () => {
          const { deliveries } = await admin('GET', `/organizations/${organizationId}/deliveries`);
          return deliveries.every((d: any) => d.status === 'sent') && deliveries;
        });
        // Beside the code that proved Rae's address (channel email), one approval email.
        assert.deepEqual(
          deliveries.filter((d: any) => d.channel === 'approval').map((d: any) => [d.channel, d.to, d.otpId]),
          [['approval', rae, null]],
        );
        assert.equal(mailsTo(smtp, rae).length, 1);
      } finally {
        await served.stop();
        await store.dispose();
        await smtp.close();
      }
    });
  }
});
