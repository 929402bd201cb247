// SIGTERM to the real `signet serve`: a submission whose body is still arriving completes with 200,
// new connections are refused, the email being sent is finished and recorded, the process exits 0,
// and nothing queued is lost (a restart delivers it, once). A request whose headers complete during
// the shutdown is refused with 503 SHUTTING_DOWN.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { SMTPServer } from 'smtp-server';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { freePort, serve, type Served } from './support/processes.ts';
import { startTestServer } from './support/server.ts';
import { until } from './support/until.ts';

const ADMIN_TOKEN = 'shutdown-test-admin-token-0123456789-xyz';

/**
 * How long to wait for what a starting or stopping `signet serve` does (it is a process of its own):
 * generous for a loaded machine, and well below the 72 s a kept-alive connection would hold it.
 */
const SLOW = { timeoutMs: 45_000 };

function exitOf(served: Served): Promise<number | null> {
  const { child } = served;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** A fresh connection (no pooled keep-alive socket): resolves with the status or the connection error code. */
function freshGet(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

function otpBody(organizationId: string, contact: string) {
  return {
    type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Shutdown Wallet' },
  };
}

function emlFor(dataDir: string, contact: string): string[] {
  const mailDir = path.join(dataDir, 'mail');
  if (!fs.existsSync(mailDir)) return [];
  return fs.readdirSync(mailDir).filter((file) => fs.readFileSync(path.join(mailDir, file), 'utf8').includes(`To: ${contact}`));
}

for (const tdb of testDatabases) {
  describe(`graceful shutdown of signet serve (${tdb.name})`, () => {
    let store: ServerStore;
    let baseUrl: string;
    let env: Record<string, string>;
    let served: Served | undefined;

    before(async () => {
      store = await serverStore(tdb, 'signet_shutdown');
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      env = { ...store.env, SIGNET_PORT: String(port), SIGNET_LOG_LEVEL: 'debug', SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
    });
    afterEach(async () => {
      if (served && served.child.exitCode === null) {
        served.child.kill('SIGKILL');
        await exitOf(served);
      }
      served = undefined;
    });
    after(() => store.dispose());

    async function organization(): Promise<TurnkeyClient & { organizationId: string }> {
      const response = await fetch(`${baseUrl}/admin/v1/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Shutdown ${randomUUID().slice(0, 8)}` }),
      });
      assert.equal(response.status, 200);
      const org = await response.json();
      const client = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));
      return Object.assign(client, { organizationId: org.organizationId as string });
    }

    test('a submission in flight at SIGTERM completes; new connections are refused; exit 0; its email is not lost', async () => {
      served = await serve(env, baseUrl);
      const client = await organization();
      const contact = `inflight-${randomUUID().slice(0, 8)}@example.com`;
      const signed = await client.stampInitOtpAuth(otpBody(client.organizationId, contact) as any);
      const bytes = Buffer.from(signed.body, 'utf8');

      // The body arrives in two parts, with SIGTERM in between: the request is in flight.
      let sendRest!: () => void;
      const rest = new Promise<void>((resolve) => (sendRest = resolve));
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(bytes.subarray(0, 40));
          await rest;
          controller.enqueue(bytes.subarray(40));
          controller.close();
        },
      });
      const answer = fetch(signed.url, {
        method: 'POST',
        body,
        duplex: 'half',
        headers: {
          'content-type': 'application/json',
          'content-length': String(bytes.length),
          'x-request-id': 'in-flight-1',
          [signed.stamp.stampHeaderName]: signed.stamp.stampHeaderValue,
        },
      } as RequestInit);
      await until('the request to reach the server', () => served!.output().includes('"reqId":"in-flight-1"'), SLOW);

      served.child.kill('SIGTERM');
      await until('the shutdown to start', () => served!.output().includes('shutting down'), SLOW);
      // The listener closes while the request is still in flight (the rest of its body not yet sent).
      let fresh: number | string = '';
      await until(
        () => `new connections to be refused after SIGTERM (one was answered: ${fresh})`,
        async () => (fresh = await freshGet(`${baseUrl}/healthz`)) === 'ECONNREFUSED',
      );
      sendRest();

      const response = await answer;
      const json = await response.json();
      assert.equal(response.status, 200, JSON.stringify(json));
      assert.equal(json.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const otpId = json.activity.result.initOtpAuthResultV2.otpId;
      // The client keeps its connection alive; the server must not wait out keepAliveTimeout (72 s).
      assert.equal(await until('the exit after SIGTERM, not after the 72 s keep-alive', () => served!.child.exitCode !== null && served!.child, SLOW).then((child) => child.exitCode), 0, served.output());
      assert.match(served.output(), /"msg":"Signet stopped"/);

      // Committed, so durable: sent before the exit, or still queued for the next process.
      const db = await store.open();
      let status: string;
      try {
        const rows = await db.query<{ status: string }>('SELECT status FROM outbox WHERE otp_id = $1', [otpId]);
        assert.equal(rows.length, 1);
        status = rows[0]!.status;
      } finally {
        await db.close();
      }
      assert.ok(status === 'sent' || status === 'queued', `outbox status ${status}`);
      assert.equal(emlFor(store.dataDir, contact).length, status === 'sent' ? 1 : 0);

      served = await serve(env, baseUrl);
      await until('the email in the dev mailbox', () => emlFor(store.dataDir, contact).length > 0, SLOW);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(emlFor(store.dataDir, contact).length, 1, 'delivered exactly once');
      assert.equal(await served.stop(), 0);
    });

    test('an email being sent at SIGTERM is finished and recorded before the process exits', async () => {
      // An SMTP server that holds its answer to DATA until told: the worker is mid-send.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let dataStarted = false;
      const received: string[] = [];
      const smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        logger: false,
        onData(stream, session, callback) {
          dataStarted = true;
          stream.resume();
          stream.on('end', () => {
            received.push(session.envelope.rcptTo.map((r) => r.address).join(','));
            void released.then(() => callback());
          });
        },
      });
      await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
      const smtpPort = (smtp.server.address() as { port: number }).port;
      try {
        served = await serve({ ...env, SIGNET_SMTP_URL: `smtp://127.0.0.1:${smtpPort}` }, baseUrl);
        const client = await organization();
        const contact = `midsend-${randomUUID().slice(0, 8)}@example.com`;
        const { activity } = (await client.initOtpAuth(otpBody(client.organizationId, contact) as any)) as any;
        const otpId = activity.result.initOtpAuthResultV2.otpId;
        await until('the worker to be sending', () => dataStarted, SLOW);

        served.child.kill('SIGTERM');
        await until('the shutdown to start', () => served!.output().includes('shutting down'), SLOW);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(served.child.exitCode, null, 'the process waits for the send in hand');
        release();

        assert.equal(await exitOf(served), 0, served.output());
        assert.deepEqual(received, [contact]);
        const db = await store.open();
        try {
          const [row] = await db.query<{ status: string; attempts: number; payload: Record<string, unknown> }>(
            'SELECT status, attempts, payload FROM outbox WHERE otp_id = $1',
            [otpId],
          );
          assert.equal(row!.status, 'sent', 'the outcome was recorded before the store closed');
          assert.equal(row!.attempts, 1);
          assert.equal(row!.payload.encryptedCode, undefined, 'and the code erased');
        } finally {
          await db.close();
        }
      } finally {
        release();
        await new Promise<void>((resolve) => smtp.close(() => resolve()));
      }
    });
  });
}

describe('a request that arrives while the server shuts down', () => {
  test('is answered 503 SHUTTING_DOWN in the error shape, with Connection: close; the shutdown then completes', async () => {
    const server = await startTestServer(testDatabases[0]!);
    const { port } = new URL(server.baseUrl);
    // Connected, and part of the request sent before the shutdown starts: the connection is not idle,
    // so the shutdown waits for it rather than dropping it.
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: signet\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));

    const closed = server.close();
    await until('the shutdown to start', () => server.server.app.server.listening === false);
    socket.write('\r\n');
    await ended;
    await closed;

    const [head, body] = received.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 503 /);
    assert.match(head!, /\r\nconnection: close\r\n/i);
    const answer = JSON.parse(body!);
    assert.equal(answer.code, 14); // UNAVAILABLE
    assert.match(answer.message, /shutting down; nothing was done, send the request again/);
    assert.deepEqual(answer.details.at(-1), { '@type': 'type.googleapis.com/errors.v1.TurnkeyErrorDetail', turnkeyErrorCode: 'SHUTTING_DOWN' });
  });
});
