// Webhooks through @turnkey/http's own TurnkeyClient: create_webhook_endpoint (its secret shown in that
// answer only), update_webhook_endpoint, delete_webhook_endpoint and list_webhook_endpoints; the
// refusals (http, a private or loopback host, an event type Signet does not send, the eleventh
// endpoint, an unknown endpoint); then events posted to a loopback receiver, each verified with the
// Standard Webhooks library: an activity completed at once, one that waits for a second approval
// (its waiting, then its completion), a receiver answering 500 once getting the same webhook-id again;
// a host that resolves to a private address refused at delivery for good; `signet webhook test`; and
// over https, a `signet serve` trusting a receiver's own certificate through NODE_EXTRA_CA_CERTS.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { Webhook } from 'standardwebhooks';
import { MAX_WEBHOOK_ENDPOINTS } from '../src/activities/handlers/webhooks/webhookEndpointPlans.ts';
import { loadDeploymentSecret } from '../src/admin/localSecrets.ts';
import { createEmailTransport } from '../src/delivery/email/transport.ts';
import { OutboxWorker } from '../src/delivery/outboxWorker.ts';
import type { DeliveryLogger } from '../src/delivery/logger.ts';
import { createSmsProvider } from '../src/delivery/sms/createSmsProvider.ts';
import { testDatabases } from './support/databases.ts';
import { startSmtpSink } from './support/smtpSink.ts';
import { freePort, ROOT, serve, signet } from './support/processes.ts';
import { refused } from './support/refusals.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { until } from './support/until.ts';
import { envelope } from './support/envelopes.ts';

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;


const createEndpoint = (client: TurnkeyClient, organizationId: string, parameters: { url: string; name: string; subscriptions?: unknown[] }) =>
  client.createWebhookEndpoint(envelope('ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT', organizationId, parameters as any)) as Promise<any>;

const updateEndpoint = (client: TurnkeyClient, organizationId: string, parameters: { endpointId: string; url?: string; name?: string; isActive?: boolean }) =>
  client.updateWebhookEndpoint(envelope('ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT', organizationId, parameters)) as Promise<any>;

const deleteEndpoint = (client: TurnkeyClient, organizationId: string, endpointId: string) =>
  client.deleteWebhookEndpoint(envelope('ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT', organizationId, { endpointId })) as Promise<any>;

const listEndpoints = async (client: TurnkeyClient, organizationId: string) =>
  ((await client.listWebhookEndpoints({ organizationId })) as any).webhookEndpoints as any[];

/** An activity that completes at once for a root user: a user tag. */
const tagActivity = (client: TurnkeyClient, organizationId: string) =>
  client.createUserTag(envelope('ACTIVITY_TYPE_CREATE_USER_TAG', organizationId, { userTagName: `tag ${randomUUID().slice(0, 8)}`, userIds: [] })) as Promise<any>;

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

const silent: DeliveryLogger = { info() {}, warn() {}, error() {} };


interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A loopback HTTP receiver: records every post; `/flaky` answers 500 to the first post of each webhook-id. */
async function startReceiver() {
  const received: Received[] = [];
  const seen = new Set<string>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
      received.push({ path: request.url!, headers, body: Buffer.concat(chunks).toString('utf8') });
      const id = headers['webhook-id']!;
      if (request.url === '/flaky' && !seen.has(id)) {
        seen.add(id);
        response.writeHead(500).end('try again');
        return;
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The `verifySignet` of docs/webhooks.md's "verify in ten lines of Node", as the page shows it. */
async function docsVerifier(): Promise<(secret: string, headers: Record<string, string>, body: string) => any> {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'webhooks.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(page)![1]!;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'signet-verify-')), 'verify.mjs');
  fs.writeFileSync(file, code);
  return ((await import(pathToFileURL(file).href)) as { verifySignet: any }).verifySignet;
}

/** The event a post carries, verified with the Standard Webhooks library and the endpoint's secret (throws when it does not verify). */
function verified(secret: string, post: Received): any {
  return new Webhook(secret).verify(post.body, post.headers);
}

for (const tdb of testDatabases) {
  describe(`webhook endpoints (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let root: TurnkeyClient;

    before(async () => {
      // No worker: these endpoints are never posted to, and http and private hosts are refused.
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Hooked');
      root = server.client(org);
    });
    after(() => server.close());

    test('created with its secret shown once, listed, updated, deleted', async () => {
      const created = await createEndpoint(root, org.organizationId, { url: 'https://hooks.example.com/signet', name: '  Feed ' });
      assert.equal(created.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const result = created.activity.result.createWebhookEndpointResult;
      const { endpointId, webhookEndpoint } = result;
      assert.match(webhookEndpoint.secret, SECRET);
      const listed = {
        endpointId,
        organizationId: org.organizationId,
        url: 'https://hooks.example.com/signet',
        name: 'Feed',
        isActive: true,
        subscriptions: [{ eventType: 'ACTIVITY_UPDATES', filtersJson: '', isActive: true }],
        createdAt: webhookEndpoint.createdAt,
        updatedAt: webhookEndpoint.createdAt,
      };
      assert.deepEqual(webhookEndpoint, { ...listed, secret: webhookEndpoint.secret });
      assert.deepEqual(await listEndpoints(root, org.organizationId), [listed]);

      // Never again: not in the stored activity, its list, the store's rows.
      const { activity } = (await root.getActivity({ organizationId: org.organizationId, activityId: created.activity.id })) as any;
      assert.equal(activity.result.createWebhookEndpointResult.webhookEndpoint.secret, '');
      assert.equal(activity.result.createWebhookEndpointResult.endpointId, endpointId);
      const { activities } = (await root.getActivities({ organizationId: org.organizationId })) as any;
      assert.ok(!JSON.stringify(activities).includes(webhookEndpoint.secret.slice(6)));
      const rows = await server.db.query('SELECT row_to_json(a)::text AS t FROM activities a UNION ALL SELECT row_to_json(e)::text FROM webhook_endpoints e');
      assert.ok(rows.length >= 2);
      for (const row of rows as Array<{ t: string }>) assert.ok(!row.t.includes(webhookEndpoint.secret.slice(6)), 'the secret is stored sealed only');

      const updated = await updateEndpoint(root, org.organizationId, { endpointId, name: 'Renamed', isActive: false });
      const now = updated.activity.result.updateWebhookEndpointResult;
      assert.equal(now.endpointId, endpointId);
      assert.deepEqual({ ...now.webhookEndpoint, updatedAt: undefined }, { ...listed, name: 'Renamed', isActive: false, updatedAt: undefined });
      const [afterUpdate] = await listEndpoints(root, org.organizationId);
      assert.deepEqual(afterUpdate, now.webhookEndpoint);

      const deleted = await deleteEndpoint(root, org.organizationId, endpointId);
      assert.deepEqual(deleted.activity.result.deleteWebhookEndpointResult, { endpointId });
      assert.deepEqual(await listEndpoints(root, org.organizationId), []);
    });

    test('refusals: http, private and loopback hosts, other event types, filters, an unknown endpoint', async () => {
      const { organizationId } = org;
      for (const url of ['http://hooks.example.com/signet', 'https://10.1.2.3/hook', 'https://127.0.0.1:8443/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest', 'https://localhost/hook', 'https://[::ffff:192.168.0.1]/x']) {
        await refused(createEndpoint(root, organizationId, { url, name: 'bad' }), 3, /parameters\.url/, 'parameters.url');
      }
      await refused(createEndpoint(root, organizationId, { url: 'ftp://hooks.example.com/', name: 'bad' }), 3, /must be an https:\/\/ URL/, 'parameters.url');
      await refused(createEndpoint(root, organizationId, { url: 'https://user:pw@hooks.example.com/', name: 'bad' }), 3, /user or password/, 'parameters.url');
      await refused(
        createEndpoint(root, organizationId, { url: 'https://hooks.example.com/', name: 'bad', subscriptions: [{ eventType: 'BALANCE_CONFIRMED_UPDATES' }] }),
        3,
        /must be ACTIVITY_UPDATES/,
        'parameters.subscriptions[0].eventType',
      );
      await refused(
        createEndpoint(root, organizationId, { url: 'https://hooks.example.com/', name: 'bad', subscriptions: [{ eventType: 'ACTIVITY_UPDATES', filtersJson: '{"status":"x"}' }] }),
        3,
        /does not filter/,
      );
      const unknown = randomUUID();
      for (const attempt of [updateEndpoint(root, organizationId, { endpointId: unknown, name: 'x' }), deleteEndpoint(root, organizationId, unknown)]) {
        await assert.rejects(attempt, (error: any) => {
          assert.equal(error.code, 5, String(error.message));
          assert.match(error.message, new RegExp(`no webhook endpoint ${unknown}`));
          assert.equal(error.details[0].turnkeyErrorCode, 'WEBHOOK_ENDPOINT_NOT_FOUND');
          return true;
        });
      }
      // A URL changed to a private host is refused as at creation.
      const { activity } = await createEndpoint(root, organizationId, { url: 'https://hooks.example.com/a', name: 'ok' });
      const { endpointId } = activity.result.createWebhookEndpointResult;
      await refused(updateEndpoint(root, organizationId, { endpointId, url: 'https://192.168.1.1/' }), 3, /public/, 'parameters.url');
      await deleteEndpoint(root, organizationId, endpointId);
      assert.deepEqual(await listEndpoints(root, organizationId), [], 'nothing refused was written');
    });

    test(`at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per organization, also when requests arrive together`, async () => {
      const other = await server.createOrganization('Many hooks');
      const client = server.client(other);
      const attempts = await Promise.allSettled(
        Array.from({ length: MAX_WEBHOOK_ENDPOINTS + 2 }, (_, i) => createEndpoint(client, other.organizationId, { url: `https://hooks.example.com/${i}`, name: `hook ${i}` })),
      );
      assert.equal(attempts.filter((a) => a.status === 'fulfilled').length, MAX_WEBHOOK_ENDPOINTS);
      for (const attempt of attempts.filter((a) => a.status === 'rejected')) {
        assert.equal((attempt as PromiseRejectedResult).reason.code, 3);
        assert.match((attempt as PromiseRejectedResult).reason.message, /has 10 webhook endpoints, the most it may have; delete one first/);
      }
      assert.equal((await listEndpoints(client, other.organizationId)).length, MAX_WEBHOOK_ENDPOINTS);
    });

    test('a host that resolves to a private address is refused at delivery, for good', async () => {
      const { activity } = await createEndpoint(root, org.organizationId, { url: 'https://hooks.example.com/rebound', name: 'rebound' });
      const { endpointId } = activity.result.createWebhookEndpointResult;
      // As if its name's DNS now answered a loopback address.
      await server.db.query("UPDATE webhook_endpoints SET url = 'https://localhost:9/hook' WHERE endpoint_id = $1", [endpointId]);
      const { activity: tagged } = await tagActivity(root, org.organizationId);
      // Only this event is due: the others queued by this suite (for hosts that are never posted to) are set aside.
      await server.db.query("DELETE FROM outbox WHERE channel = 'webhook' AND payload->>'endpointId' <> $1", [endpointId]);
      const worker = new OutboxWorker({
        db: server.db,
        secret: loadDeploymentSecret(server.config),
        email: createEmailTransport(server.config, silent),
        sms: createSmsProvider(server.config, silent),
        logger: silent,
        pollMs: 20,
        maxAttempts: 5,
        defaultFrom: 'otp@signet.test',
        logo: { allowHttp: false, allowPrivate: false },
        webhookAllowInsecure: false,
      });
      await worker.runOnce();
      await worker.stop();
      const rows = await server.db.query<{ status: string; last_error: string; event: any }>(
        "SELECT status, last_error, payload->'event' AS event FROM outbox WHERE channel = 'webhook' AND payload->>'endpointId' = $1",
        [endpointId],
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.event.activity.id, tagged.id);
      assert.equal(rows[0]!.status, 'failed');
      assert.match(rows[0]!.last_error, /localhost resolves to an address that is not public unicast .*webhooks are posted to public addresses only \(permanent/);
      await deleteEndpoint(root, org.organizationId, endpointId);
    });
  });

  describe(`webhook events (${tdb.name})`, () => {
    let server: TestServer;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    before(async () => {
      receiver = await startReceiver();
      server = await startTestServer(tdb, { SIGNET_WEBHOOK_ALLOW_INSECURE: 'true' });
    });
    after(async () => {
      await server.close();
      await receiver.close();
    });

    const postsTo = (path: string, activityId: string) =>
      receiver.received.filter((post) => post.path === path && JSON.parse(post.body).activity.id === activityId);

    test('an activity completed, one waiting then approved, a receiver answering 500 once; each post verified', async () => {
      const org = await server.createOrganization('Listening');
      const root = server.client(org);
      const { organizationId } = org;
      const { activity: made } = await createEndpoint(root, organizationId, { url: `${receiver.base}/ok`, name: 'ok' });
      const okSecret = made.result.createWebhookEndpointResult.webhookEndpoint.secret;

      // Completed at once.
      const { activity: tagged } = await tagActivity(root, organizationId);
      const [post] = await until('the completed activity posted', () => postsTo('/ok', tagged.id).length === 1 && postsTo('/ok', tagged.id));
      assert.equal(post!.headers['content-type'], 'application/json');
      assert.match(post!.headers['webhook-timestamp']!, /^\d{10}$/);
      assert.match(post!.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.deepEqual(verified(okSecret, post!), {
        type: 'ACTIVITY_UPDATES',
        activity: {
          id: tagged.id,
          organizationId,
          status: 'ACTIVITY_STATUS_COMPLETED',
          type: 'ACTIVITY_TYPE_CREATE_USER_TAG',
          fingerprint: tagged.fingerprint,
          createdAt: tagged.createdAt,
          updatedAt: tagged.updatedAt,
        },
      });
      assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(post!.body, post!.headers), 'another secret does not verify');
      // The receiver of docs/webhooks.md verifies it too, and refuses it changed or late.
      const verifySignet = await docsVerifier();
      assert.equal(verifySignet(okSecret, post!.headers, post!.body).activity.id, tagged.id);
      assert.throws(() => verifySignet(okSecret, post!.headers, post!.body.replace('CREATE_USER_TAG', 'DELETE_USER_TAGS')), /bad signature/);
      assert.throws(() => verifySignet(okSecret, { ...post!.headers, 'webhook-timestamp': String(Number(post!.headers['webhook-timestamp']) - 600) }, post!.body), /stale/);

      // Waiting for a second approval: two members, a policy asking for two approvers of an endpoint's creation.
      const members: Array<Keys & { userId: string }> = [];
      for (const name of ['ann', 'bob']) {
        const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName: name });
        const key = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });
        members.push({ userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
      }
      await root.createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, {
          policyName: 'two for hooks',
          effect: 'EFFECT_ALLOW',
          condition: "activity.resource == 'WEBHOOK_ENDPOINT' && activity.action == 'CREATE'",
          consensus: 'approvers.count() >= 2',
          notes: '',
        }),
      );
      const waiting = await createEndpoint(server.client(members[0]!), organizationId, { url: `${receiver.base}/flaky`, name: 'flaky' });
      assert.equal(waiting.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const [waitingPost] = await until('the waiting activity posted', () => postsTo('/ok', waiting.activity.id).length === 1 && postsTo('/ok', waiting.activity.id));
      const waitingEvent = verified(okSecret, waitingPost!);
      assert.equal(waitingEvent.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(waitingEvent.activity.type, 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT');
      assert.equal(waitingEvent.activity.fingerprint, waiting.activity.fingerprint);

      const { activity: approved } = (await server
        .client(members[1]!)
        .approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: waiting.activity.fingerprint }))) as any;
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      const flakySecret = approved.result.createWebhookEndpointResult.webhookEndpoint.secret;
      assert.match(flakySecret, SECRET, 'the approval that executed it shows the secret');
      const { activity: reread } = (await root.getActivity({ organizationId, activityId: waiting.activity.id })) as any;
      assert.equal(reread.result.createWebhookEndpointResult.webhookEndpoint.secret, '', 'and only that answer');
      const posts = await until('the approved activity posted', () => postsTo('/ok', waiting.activity.id).length === 2 && postsTo('/ok', waiting.activity.id));
      const approvedEvent = verified(okSecret, posts[1]!);
      assert.equal(approvedEvent.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.notEqual(posts[1]!.headers['webhook-id'], posts[0]!.headers['webhook-id'], 'each event its own id');

      // Rejected: its waiting, then its end.
      const withdrawn = await createEndpoint(server.client(members[0]!), organizationId, { url: `${receiver.base}/never`, name: 'never' });
      await server.client(members[1]!).rejectActivity(envelope('ACTIVITY_TYPE_REJECT_ACTIVITY', organizationId, { fingerprint: withdrawn.activity.fingerprint }));
      const rejectedPosts = await until('the rejected activity posted', () => postsTo('/ok', withdrawn.activity.id).length === 2 && postsTo('/ok', withdrawn.activity.id));
      assert.deepEqual(rejectedPosts.map((p) => verified(okSecret, p).activity.status).sort(), ['ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_REJECTED']);

      // Failed: a tag creation waits, the root takes its name meanwhile, and the approval that executes it fails.
      await root.createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, {
          policyName: 'two for tags',
          effect: 'EFFECT_ALLOW',
          condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
          consensus: 'approvers.count() >= 2',
          notes: '',
        }),
      );
      const tagBody = envelope('ACTIVITY_TYPE_CREATE_USER_TAG', organizationId, { userTagName: 'taken meanwhile', userIds: [] });
      const { activity: doomed } = (await server.client(members[0]!).createUserTag(tagBody)) as any;
      assert.equal(doomed.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      await root.createUserTag({ ...tagBody, timestampMs: String(Date.now()) });
      const { activity: failed } = (await server
        .client(members[1]!)
        .approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: doomed.fingerprint }))) as any;
      assert.equal(failed.status, 'ACTIVITY_STATUS_FAILED');
      const failedPosts = await until('the failed activity posted', () => postsTo('/ok', doomed.id).length === 2 && postsTo('/ok', doomed.id));
      assert.deepEqual(failedPosts.map((p) => verified(okSecret, p).activity.status).sort(), ['ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_FAILED']);

      // The receiver that answers 500 first gets the same event again, with the same webhook-id.
      const { activity: again } = await tagActivity(root, organizationId);
      const retried = await until('the event posted again after a 500', () => postsTo('/flaky', again.id).length === 2 && postsTo('/flaky', again.id), { timeoutMs: 10_000 });
      assert.equal(retried[0]!.headers['webhook-id'], retried[1]!.headers['webhook-id']);
      assert.equal(verified(flakySecret, retried[0]!).activity.id, again.id);
      assert.equal(verified(flakySecret, retried[1]!).activity.id, again.id);
      assert.equal(postsTo('/ok', again.id).length, 1, 'every endpoint gets its own message');
      const recorded = await until('the retry recorded', async () => {
        const [row] = await server.db.query<{ status: string; attempts: number; provider_message_id: string }>(
          'SELECT status, attempts, provider_message_id FROM outbox WHERE id = $1',
          [retried[0]!.headers['webhook-id']],
        );
        return row?.status === 'sent' && row;
      });
      assert.deepEqual({ ...recorded }, { status: 'sent', attempts: 2, provider_message_id: 'HTTP 204' });

      // An inactive endpoint is sent nothing.
      const okId = made.result.createWebhookEndpointResult.endpointId;
      await updateEndpoint(root, organizationId, { endpointId: okId, isActive: false });
      const { activity: quiet } = await tagActivity(root, organizationId);
      await until('the flaky endpoint posted to', () => postsTo('/flaky', quiet.id).length === 2);
      assert.equal(postsTo('/ok', quiet.id).length, 0);

      // signet webhook test: a signed test event, and what the receiver answered.
      const flakyId = approved.result.createWebhookEndpointResult.endpointId;
      const env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
      const list = await signet(['webhook', 'list', '--org', organizationId], env);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, new RegExp(`${flakyId}\\s+\\S+\\s+true\\s+${receiver.base}/flaky\\s+flaky`));
      const tested = await signet(['webhook', 'test', '--org', organizationId, '--endpoint', flakyId, '--json'], env);
      assert.equal(tested.code, 1, 'not delivered: exit 1');
      const answer = JSON.parse(tested.stdout);
      assert.equal(answer.status, 'retrying', 'the flaky receiver answers 500 first');
      assert.equal(answer.lastError, 'HTTP 500');
      const testPosts = await until('the test event retried', () => receiver.received.filter((p) => p.headers['webhook-id'] === answer.outboxId).length === 2 && receiver.received.filter((p) => p.headers['webhook-id'] === answer.outboxId), { timeoutMs: 10_000 });
      const testEvent = verified(flakySecret, testPosts[1]!);
      assert.equal(testEvent.test, true);
      assert.equal(testEvent.activity.id, '00000000-0000-0000-0000-000000000000');
      const inactiveRun = await signet(['webhook', 'test', '--org', organizationId, '--endpoint', okId, '--json'], env);
      assert.equal(inactiveRun.code, 1);
      const inactive = JSON.parse(inactiveRun.stdout);
      assert.equal(inactive.status, 'failed');
      assert.match(inactive.lastError, /is inactive \(permanent/);
      await updateEndpoint(root, organizationId, { endpointId: okId, isActive: true });
      const okAgain = await signet(['webhook', 'test', '--org', organizationId, '--endpoint', okId], env);
      assert.equal(okAgain.code, 0, okAgain.stderr);
      assert.match(okAgain.stdout, /status: sent/);
      assert.match(okAgain.stdout, /receiverAnswer: HTTP 204/);
      const unknown = await signet(['webhook', 'test', '--org', organizationId, '--endpoint', randomUUID()], env);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /no webhook endpoint/);
    });
  });
}


describe('a receiver that does not answer', () => {
  test('holds back no passcode: webhooks are posted in slots of their own', async () => {
    const [tdb] = testDatabases;
    // Holds every post open until the test ends.
    const held: http.ServerResponse[] = [];
    const hanging = http.createServer((request, response) => {
      request.resume();
      held.push(response);
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const smtp = await startSmtpSink();
    const server = await startTestServer(tdb!, { SIGNET_WEBHOOK_ALLOW_INSECURE: 'true', SIGNET_SMTP_URL: smtp.url });
    try {
      const org = await server.createOrganization('Hung');
      const root = server.client(org);
      const { organizationId } = org;
      await createEndpoint(root, organizationId, { url: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`, name: 'hangs' });
      // More events than the webhook slots: every slot ends up waiting on the receiver.
      for (let i = 0; i < 20; i++) await tagActivity(root, organizationId);
      await until('the webhook slots all held by the receiver', () => held.length >= 16);
      await root.initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'waiting@example.com', appName: 'Hung' },
      } as any);
      await smtp.waitForMailTo('waiting@example.com');
      assert.ok(held.every((response) => !response.writableEnded), 'the passcode went out while every post was still unanswered');
    } finally {
      for (const response of held) response.destroy();
      hanging.closeAllConnections();
      hanging.close();
      await server.close();
      await smtp.close();
    }
  });
});

describe('webhook events over https', () => {
  // The TLS path does not depend on the store: one `signet serve` on the embedded store, as a deployment runs.
  const noOpenssl = spawnSync('openssl', ['version']).error !== undefined;
  const skip = noOpenssl ? 'openssl is not installed: it makes the receiver its certificate' : false;
  test('a receiver with its own certificate, trusted through NODE_EXTRA_CA_CERTS, gets a verified event', { skip }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-webhook-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const received: Received[] = [];
    const receiver = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ path: request.url!, headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const served = await serve(
      {
        SIGNET_DATA_DIR: path.join(dir, 'data'),
        SIGNET_PORT: String(port),
        SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
        SIGNET_LOG_LEVEL: 'warn',
        SIGNET_OUTBOX_POLL_MS: '20',
        SIGNET_WEBHOOK_ALLOW_INSECURE: 'true',
        NODE_EXTRA_CA_CERTS: cert,
      },
      baseUrl,
    );
    try {
      const response = await fetch(`${baseUrl}/admin/v1/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Over TLS' }),
      });
      const org = (await response.json()) as Credentials;
      const client = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));
      const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const { activity } = await createEndpoint(client, org.organizationId, { url, name: 'tls' });
      const secret = activity.result.createWebhookEndpointResult.webhookEndpoint.secret;
      const { activity: tagged } = await tagActivity(client, org.organizationId);
      const [post] = await until('the event posted over https', () => received.length > 0 && received, { timeoutMs: 10_000 });
      const event = verified(secret, post!);
      assert.equal(event.activity.id, tagged.id);
      assert.equal(event.activity.status, 'ACTIVITY_STATUS_COMPLETED');
    } finally {
      await served.stop();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
