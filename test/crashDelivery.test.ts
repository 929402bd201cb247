// kill -9 of the real `signet serve` while it delivers email OTPs to a real SMTP server that answers
// slowly: after restarts every OTP is delivered (nothing lost), a message is duplicated only when it
// was in a worker's hands at a kill (at most the transport's concurrency per kill), and every copy
// carries the Message-ID derived from its OTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { SMTPServer } from 'smtp-server';
import { SMTP_POOL_SIZE } from '../src/delivery/email/transport.ts';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { freePort, serve, type Served } from './support/processes.ts';
import { until } from './support/until.ts';

const ADMIN_TOKEN = 'crash-test-admin-token-0123456789-abcdef';
const MESSAGES = 200;
const KILLS = 3;
/** How long the SMTP server takes to answer a received message: sends are in flight for a while. */
const ACCEPT_DELAY_MS = 40;

interface Received {
  to: string;
  messageId: string | undefined;
}

/** An SMTP server that takes every message, answering each only after ACCEPT_DELAY_MS once resumed. */
async function startSlowSmtp() {
  const received: Received[] = [];
  /** Messages whose data is in and whose answer (250) is not given yet. */
  let answering = 0;
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', () => {}); // the client died mid-message: nothing was received
      stream.on('end', () => {
        // Received in full: a real MTA would deliver it, whether or not its answer reaches the client.
        const headers = Buffer.concat(chunks).toString('utf8').split(/\r?\n\r?\n/)[0]!;
        const messageId = /^Message-ID:\s*(\S+)/im.exec(headers)?.[1];
        received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), messageId });
        answering++;
        void resumed.then(() =>
          setTimeout(() => {
            answering--;
            callback();
          }, ACCEPT_DELAY_MS),
        );
      });
    },
  });
  server.on('error', () => {}); // a killed client resets its connections
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    answering: () => answering,
    /** Until called, every message waits for its answer: the queue builds up. */
    resume,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function exited(served: Served): Promise<unknown> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => served.child.once('exit', resolve));
}

for (const tdb of testDatabases) {
  describe(`kill -9 during email delivery (${tdb.name})`, () => {
    let store: ServerStore;
    let smtp: Awaited<ReturnType<typeof startSlowSmtp>>;
    let served: Served | undefined;

    before(async () => {
      store = await serverStore(tdb, 'signet_crash');
      smtp = await startSlowSmtp();
    });
    after(async () => {
      if (served && served.child.exitCode === null) {
        served.child.kill('SIGKILL');
        await exited(served);
      }
      await smtp.close();
      await store.dispose();
    });

    test(`${MESSAGES} email OTPs, ${KILLS} kills: none lost, duplicates only of messages in hand at a kill, same Message-ID`, async () => {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env: Record<string, string> = {
        ...store.env,
        SIGNET_PORT: String(port),
        SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_EMAIL_FROM: 'codes@crash.signet.test',
        SIGNET_OUTBOX_POLL_MS: '50',
        SIGNET_LOG_LEVEL: 'warn',
      };
      served = await serve(env, baseUrl);

      const response = await fetch(`${baseUrl}/admin/v1/organizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Crash' }),
      });
      assert.equal(response.status, 200);
      const org = await response.json();
      const client = new TurnkeyClient({ baseUrl }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));

      // All OTPs are queued while the SMTP server holds its answers, so delivery has a backlog.
      const otpIdOf = new Map<string, string>();
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < MESSAGES) {
            const contact = `user${next++}@example.com`;
            const { activity } = (await client.initOtpAuth({
              type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
              timestampMs: String(Date.now()),
              organizationId: org.organizationId,
              parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Crash Wallet' },
            } as any)) as any;
            otpIdOf.set(contact, activity.result.initOtpAuthResultV2.otpId);
          }
        }),
      );
      smtp.resume();

      // Kill a little after a quarter, a half and three quarters have arrived (mid-round); each
      // time, see what the dead worker had in hand, end its leases (what waiting 60 s would do)
      // and restart.
      const inHandAtKills: Array<{ sending: Set<string>; answering: number }> = [];
      for (let kill = 1; kill <= KILLS; kill++) {
        const due = Math.floor((MESSAGES * kill) / (KILLS + 1)) + 3;
        await until(
          () => `${due} messages before kill ${kill} (delivery stalled at ${smtp.received.length})`,
          () => smtp.received.length >= due,
          { timeoutMs: 30_000, everyMs: 5 },
        );
        served.child.kill('SIGKILL');
        const answering = smtp.answering();
        await exited(served);
        const db = await store.open();
        try {
          const rows = await db.query<{ otp_id: string }>("SELECT otp_id FROM outbox WHERE status = 'sending'");
          inHandAtKills.push({ sending: new Set(rows.map((r) => r.otp_id)), answering });
          await db.query("UPDATE outbox SET lease_expires_at = now() - interval '1 second' WHERE status = 'sending'");
        } finally {
          await db.close();
        }
        served = await serve(env, baseUrl);
      }

      // Everything is delivered once the outbox is empty (the gauge reads the store).
      await until(
        'the outbox to drain',
        async () => /^signet_outbox_depth 0$/m.test(await (await fetch(`${baseUrl}/metrics`)).text()),
        { timeoutMs: 30_000, everyMs: 50 },
      );
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await served.stop(), 0);

      const copies = new Map<string, Received[]>();
      for (const mail of smtp.received) copies.set(mail.to, [...(copies.get(mail.to) ?? []), mail]);
      const lost = [...otpIdOf.keys()].filter((contact) => !copies.has(contact));
      const duplicated = [...copies.entries()].filter(([, list]) => list.length > 1);
      const duplicates = duplicated.reduce((n, [, list]) => n + list.length - 1, 0);
      const figures = {
        messages: otpIdOf.size,
        kills: KILLS,
        received: smtp.received.length,
        lost: lost.length,
        duplicates,
        inHandAtKills: inHandAtKills.map((k) => k.sending.size),
        answeringAtKills: inHandAtKills.map((k) => k.answering),
      };
      console.log(`crash delivery figures (${tdb.name}): ${JSON.stringify(figures)}`);

      assert.equal(otpIdOf.size, MESSAGES);
      assert.deepEqual(lost, [], 'every OTP was delivered');
      for (const mail of smtp.received) assert.ok(otpIdOf.has(mail.to), `${mail.to} was never submitted`);
      // A worker holds no more messages than its transport sends at once, so a kill can leave at
      // most that many unrecorded, and only those can go out again.
      for (const { sending } of inHandAtKills) assert.ok(sending.size <= SMTP_POOL_SIZE, `${sending.size} messages in hand at a kill`);
      assert.ok(duplicates <= KILLS * SMTP_POOL_SIZE, `${duplicates} duplicates after ${KILLS} kills`);
      for (const [contact, list] of duplicated) {
        const otpId = otpIdOf.get(contact)!;
        const killsInHand = inHandAtKills.filter((k) => k.sending.has(otpId)).length;
        assert.ok(list.length - 1 <= killsInHand, `${contact} arrived ${list.length} times and was in hand at ${killsInHand} kills`);
      }
      // Every copy names its OTP, so a receiver can collapse a resend.
      for (const [contact, list] of copies) {
        for (const mail of list) assert.equal(mail.messageId, `<otp-${otpIdOf.get(contact)}@crash.signet.test>`);
      }
    });
  });
}
