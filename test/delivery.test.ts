// The outbox and its worker against a real SMTP server on loopback: encrypted codes, delivery,
// retry after a refusal, permanent failure kept visible, reclaimed leases, two workers never
// sending one message twice; and the development mailbox and SMS log.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { loadConfig } from '../src/config.ts';
import { createEmailTransport, type EmailTransport } from '../src/delivery/emailTransport.ts';
import { decryptCode, encryptCode, enqueue, type OutboxMessage } from '../src/delivery/outbox.ts';
import { OutboxWorker, outboxDepth } from '../src/delivery/outboxWorker.ts';
import { renderOtpEmail, renderOtpSms } from '../src/delivery/otpMessages.ts';
import type { DeliveryLogger } from '../src/delivery/logger.ts';
import { createSmsProvider } from '../src/delivery/sms/smsProvider.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { testDatabases } from './support/databases.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const silent: DeliveryLogger = { info() {}, warn() {}, error() {} };
const secret = randomBytes(32);

describe('outbox encryption', () => {
  test('round-trips, and refuses a changed byte, another row id or another secret', () => {
    const id = randomUUID();
    const sealed = encryptCode(secret, id, 'ABCD1234Z');
    assert.ok(!sealed.includes('ABCD1234Z'));
    assert.equal(decryptCode(secret, id, sealed), 'ABCD1234Z');
    const raw = Buffer.from(sealed, 'base64url');
    raw[14]! ^= 1;
    assert.throws(() => decryptCode(secret, id, raw.toString('base64url')));
    assert.throws(() => decryptCode(secret, randomUUID(), sealed));
    assert.throws(() => decryptCode(randomBytes(32), id, sealed));
  });
});

describe('OTP message text', () => {
  const email = { channel: 'email' as const, to: 'a@example.com', appName: '<b>Acme & "Co"</b>', fromName: 'Notifications', expirationSeconds: 300 };

  test('the built-in email names the app, shows the code and escapes HTML', () => {
    const rendered = renderOtpEmail(email, 'K7Q2M9XH4');
    assert.match(rendered.subject, /<b>Acme & "Co"<\/b>/);
    assert.match(rendered.text, /K7Q2M9XH4/);
    assert.match(rendered.text, /expires in 5 minutes/);
    assert.match(rendered.html, /&lt;b&gt;Acme &amp; &quot;Co&quot;&lt;\/b&gt;/);
    assert.doesNotMatch(rendered.html, /<b>Acme/);
  });

  test('the magic link carries the URL-encoded code, as a button and in the text', () => {
    const rendered = renderOtpEmail({ ...email, magicLinkTemplate: 'https://app.example/login?code=%s' }, 'AB CD');
    assert.match(rendered.text, /https:\/\/app\.example\/login\?code=AB%20CD/);
    assert.match(rendered.html, /href="https:\/\/app\.example\/login\?code=AB%20CD"/);
  });

  test('SMS template tags are replaced literally; nothing else is interpreted', () => {
    const sms = { channel: 'sms' as const, to: '+14155552671', appName: 'Pay $& {{.OtpCode}}', expirationSeconds: 60 };
    assert.equal(renderOtpSms({ ...sms, template: '{{.AppName}}: {{.OtpCode}} {{.Other}}' }, '123456'), 'Pay $& {{.OtpCode}}: 123456 {{.Other}}');
    assert.equal(renderOtpSms(sms, '123456'), '123456 is your Pay $& {{.OtpCode}} verification code. It expires in 1 minute.');
  });
});

for (const tdb of testDatabases) {
  describe(`outbox worker (${tdb.name})`, () => {
    let db: Database & { schema?: string };
    let smtp: SmtpSink;
    let dataDir: string;
    let organizationId: string;
    let activityId: string;

    function worker(on: Database = db, options: { maxAttempts?: number; batchSize?: number; email?: EmailTransport; logger?: DeliveryLogger } = {}) {
      const config = loadConfig({ SIGNET_SMTP_URL: smtp.url, SIGNET_DATA_DIR: dataDir });
      return new OutboxWorker({
        db: on,
        secret,
        email: options.email ?? createEmailTransport(config, silent),
        sms: createSmsProvider(config, silent),
        logger: options.logger ?? silent,
        pollMs: 20,
        maxAttempts: options.maxAttempts ?? 5,
        batchSize: options.batchSize ?? 20,
        defaultFrom: 'otp@signet.test',
        logo: { allowHttp: false, allowPrivate: false },
      });
    }

    async function queue(to: string, extra: Partial<OutboxMessage> = {}): Promise<{ outboxId: string; code: string }> {
      const otpId = randomUUID();
      const code = randomBytes(5).toString('hex').toUpperCase();
      const outboxId = await db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO otps (id, organization_id, activity_id, otp_type, contact, code_hash, otp_length, alphanumeric, expires_at)
           VALUES ($1, $2, $3, 'OTP_TYPE_EMAIL', $4, 'h', 9, true, now() + interval '5 minutes')`,
          [otpId, organizationId, activityId, to],
        );
        return enqueue(tx, secret, {
          channel: 'email', to, appName: 'Acme', fromName: 'Notifications', expirationSeconds: 300,
          organizationId, otpId, code, ...extra,
        } as OutboxMessage);
      });
      return { outboxId, code };
    }

    async function row(outboxId: string) {
      const [r] = await db.query<any>('SELECT * FROM outbox WHERE id = $1', [outboxId]);
      return r;
    }

    before(async () => {
      db = await tdb.open();
      smtp = await startSmtpSink();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-delivery-'));
      organizationId = randomUUID();
      activityId = randomUUID();
      await db.query("INSERT INTO organizations (id, name) VALUES ($1, 'Delivery')", [organizationId]);
      await db.query(
        `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, created_at, updated_at)
         VALUES ($1, $2, 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', 'ACTIVITY_STATUS_COMPLETED', 'sha256:x', '0', '{}', '', '{}', now(), now())`,
        [activityId, organizationId],
      );
    });
    after(async () => {
      await db.close();
      await smtp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      await db.query('DELETE FROM outbox');
      smtp.messages.length = 0;
    });

    test('delivers over SMTP, then erases the ciphertext', async () => {
      const { outboxId, code } = await queue('erin@example.com', { replyTo: 'help@acme.example', fromName: 'Acme "Security"' } as Partial<OutboxMessage>);
      const stored = await row(outboxId);
      assert.ok(!JSON.stringify(stored).includes(code), 'the code is not stored in clear');
      assert.equal(await outboxDepth(db), 1);

      const w = worker();
      assert.equal(await w.runOnce(), 1);
      await w.stop();
      const [mail] = await smtp.waitFor(1);
      assert.equal(mail!.subject, 'Your Acme verification code');
      assert.match(mail!.text ?? '', new RegExp(code));
      assert.match(mail!.text ?? '', /Acme/);
      assert.match(mail!.text ?? '', /expires in 5 minutes/);
      assert.ok(typeof mail!.html === 'string' && mail!.html.includes(code) && mail!.html.includes('Acme'));
      assert.equal(mail!.to && !Array.isArray(mail!.to) && mail!.to.value[0]!.address, 'erin@example.com');
      assert.equal(mail!.from!.value[0]!.name, 'Acme "Security"');
      assert.equal(mail!.from!.value[0]!.address, 'otp@signet.test');
      assert.equal(mail!.replyTo!.value[0]!.address, 'help@acme.example');

      const sent = await row(outboxId);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.attempts, 1);
      assert.ok(sent.sent_at instanceof Date);
      assert.ok(sent.provider_message_id);
      assert.equal(sent.payload.encryptedCode, undefined);
      assert.equal(await outboxDepth(db), 0);
    });

    test('the sender name defaults to what the message names, from the configured address', async () => {
      await queue('dana@example.com');
      const w = worker();
      await w.runOnce();
      await w.stop();
      const [mail] = await smtp.waitFor(1);
      assert.deepEqual(mail!.from!.value, [{ name: 'Notifications', address: 'otp@signet.test' }]);
      assert.equal(mail!.replyTo, undefined);
    });

    test('an SMS goes to the SMS transport with its template filled in, and its ciphertext is erased', async () => {
      const { outboxId, code } = await queue('+14155552671', {
        channel: 'sms', template: '{{.AppName}} code: {{.OtpCode}}',
      } as Partial<OutboxMessage>);
      const logged: object[] = [];
      const w = worker(db, { logger: { ...silent, info: (o: object) => void logged.push(o) } });
      assert.equal(await w.runOnce(), 1);
      await w.stop();
      assert.ok(logged.some((o) => (o as { provider?: string }).provider === 'development'), 'the log line names the SMS provider');
      assert.ok(!JSON.stringify(logged).includes(code), 'and not the code');
      const lines = fs.readFileSync(path.join(dataDir, 'sms.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const line = lines.find((l) => l.text === `Acme code: ${code}`);
      assert.ok(line, 'the SMS log holds the message');
      assert.equal(line.to, '+14155552671');
      const sent = await row(outboxId);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.provider_message_id, line.messageId);
      assert.equal(sent.payload.encryptedCode, undefined);
      assert.equal(sent.payload.template, '{{.AppName}} code: {{.OtpCode}}');
      assert.equal(smtp.messages.length, 0);
    });

    test('a temporary refusal is retried with backoff and delivered once', async () => {
      const { outboxId } = await queue('frank@example.com');
      smtp.refuseNext(1, 451);
      const w = worker();
      await w.runOnce();
      const retrying = await row(outboxId);
      assert.equal(retrying.status, 'retrying');
      assert.match(retrying.last_error, /451/);
      assert.ok(retrying.next_attempt_at.getTime() > Date.now(), 'not due before its backoff');
      assert.ok(retrying.payload.encryptedCode, 'kept for the next attempt');
      assert.equal(await w.runOnce(), 0, 'nothing due yet');

      await db.query('UPDATE outbox SET next_attempt_at = now() WHERE id = $1', [outboxId]);
      assert.equal(await w.runOnce(), 1);
      await w.stop();
      const sent = await row(outboxId);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.attempts, 2);
      assert.equal(sent.last_error, null);
      assert.equal(smtp.messages.length, 1);
    });

    test('a permanent refusal fails at once and stays visible', async () => {
      const { outboxId } = await queue('nobody@example.com');
      smtp.refuseNext(1, 550);
      const w = worker();
      await w.runOnce();
      await w.stop();
      const failed = await row(outboxId);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.attempts, 1);
      assert.match(failed.last_error, /550.*\(permanent: retrying cannot help\)$/);
      assert.equal(failed.payload.encryptedCode, undefined);
    });

    test('an address nodemailer cannot use fails at once', async () => {
      const { outboxId } = await queue('not an address');
      const w = worker();
      await w.runOnce();
      await w.stop();
      const failed = await row(outboxId);
      assert.equal(failed.status, 'failed');
      assert.match(failed.last_error, /No recipients defined/);
    });

    test('gives up after the last attempt', async () => {
      const { outboxId } = await queue('gina@example.com');
      smtp.refuseNext(2, 451);
      const w = worker(db, { maxAttempts: 2 });
      await w.runOnce();
      await db.query('UPDATE outbox SET next_attempt_at = now() WHERE id = $1', [outboxId]);
      await w.runOnce();
      await w.stop();
      const failed = await row(outboxId);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.attempts, 2);
      assert.match(failed.last_error, /451.*\(gave up after 2 attempts\)$/);
    });

    test('a message whose worker died (lease expired) is taken over', async () => {
      const { outboxId } = await queue('hank@example.com');
      await db.query("UPDATE outbox SET status = 'sending', attempts = 1, lease_expires_at = now() - interval '1 second' WHERE id = $1", [outboxId]);
      const w = worker();
      assert.equal(await w.runOnce(), 1);
      await w.stop();
      const sent = await row(outboxId);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.attempts, 2);
    });

    test('a worker whose lease ran out cannot overwrite the outcome of the one that took over', async () => {
      const { outboxId } = await queue('kim@example.com');
      const config = loadConfig({ SIGNET_SMTP_URL: smtp.url, SIGNET_DATA_DIR: dataDir });
      const real = createEmailTransport(config, silent);
      let entered!: () => void;
      const inSend = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The slow worker's SMTP session stalls until the other worker has taken the message over.
      const slow = worker(db, { email: { send: async (email) => { entered(); await gate; return real.send(email); }, close: () => real.close() } });
      const slowRound = slow.runOnce();
      await inSend;
      await db.query("UPDATE outbox SET lease_expires_at = now() - interval '1 second' WHERE id = $1", [outboxId]);

      const fast = worker();
      assert.equal(await fast.runOnce(), 1);
      await fast.stop();
      const taken = await row(outboxId);
      assert.equal(taken.status, 'sent');
      assert.equal(taken.attempts, 2);

      smtp.refuseNext(1, 451); // the slow worker's late attempt fails, and must not be recorded
      release();
      assert.equal(await slowRound, 1);
      await slow.stop();
      const final = await row(outboxId);
      assert.equal(final.status, 'sent');
      assert.equal(final.attempts, 2);
      assert.equal(final.last_error, null);
      assert.equal(final.provider_message_id, taken.provider_message_id);
      assert.equal(smtp.messages.length, 1);
    });

    test('two workers on separate connections deliver 50 messages exactly once', async () => {
      const recipients = Array.from({ length: 50 }, (_, i) => `user${i}@example.com`);
      for (const to of recipients) await queue(to);
      // On PostgreSQL the second worker has its own pool, as a second process would.
      const second = tdb.url ? await openDatabase({ url: tdb.url, schema: db.schema! }) : db;
      const workers = [worker(db, { batchSize: 3 }), worker(second, { batchSize: 3 })];
      await Promise.all(workers.map(async (w) => { while ((await w.runOnce()) > 0); }));
      for (const w of workers) await w.stop();
      if (second !== db) await second.close();

      await smtp.waitFor(50);
      await new Promise((r) => setTimeout(r, 100));
      const delivered = smtp.messages.map((m) => (Array.isArray(m.to) ? '' : m.to!.value[0]!.address));
      assert.equal(delivered.length, 50);
      assert.deepEqual([...new Set(delivered)].sort(), [...recipients].sort());
      assert.equal(new Set(smtp.messages.map((m) => m.messageId)).size, 50);
      const [counts] = await db.query<{ sent: number; once: number }>(
        "SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE attempts = 1)::int AS once FROM outbox",
      );
      assert.deepEqual(counts, { sent: 50, once: 50 });
    });

    test('started, it delivers on its own and stop() finishes the message in hand', async () => {
      const w = worker();
      w.start();
      await queue('ivy@example.com');
      w.wake();
      await smtp.waitFor(1);
      await w.stop();
      assert.equal(await outboxDepth(db), 0);
    });
  });
}

describe('development transports', () => {
  test('the dev mailbox writes a parseable .eml and logs one line naming it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-mailbox-'));
    const lines: string[] = [];
    const logger = { ...silent, info: (_o: object, message?: string) => void lines.push(message ?? '') };
    const transport = createEmailTransport(loadConfig({ SIGNET_DATA_DIR: dataDir }), logger);
    await transport.send({ from: { name: 'Notifications', address: 'n@signet.test' }, to: 'jo@example.com', subject: 'Your Acme verification code', html: '<p>123</p>', text: '123' });
    transport.close();
    assert.equal(fs.statSync(path.join(dataDir, 'mail')).mode & 0o777, 0o700);
    const files = fs.readdirSync(path.join(dataDir, 'mail'));
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^\d{4}-\d{2}-\d{2}T[\d-]+Z-[0-9a-f]{8}\.eml$/);
    const file = path.join(dataDir, 'mail', files[0]!);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const mail = await simpleParser(fs.readFileSync(file));
    assert.equal(mail.subject, 'Your Acme verification code');
    assert.equal(mail.text?.trim(), '123');
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.includes(file));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the dev SMS log appends one JSON line per message', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-sms-'));
    const logged: string[] = [];
    const logger = { ...silent, info: (o: object, message?: string) => void logged.push(JSON.stringify(o) + (message ?? '')) };
    const sms = createSmsProvider(loadConfig({ SIGNET_DATA_DIR: dataDir }), logger);
    assert.equal(sms.name, 'development');
    const { messageId } = await sms.send({ to: '+14155552671', text: 'code 4F7KQ2' });
    await sms.send({ to: '+14155552671', text: 'two' });
    const file = path.join(dataDir, 'sms.log');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.text), ['code 4F7KQ2', 'two']);
    assert.equal(lines[0].to, '+14155552671');
    assert.equal(lines[0].messageId, messageId);
    assert.ok(!Number.isNaN(Date.parse(lines[0].time)));
    assert.equal(logged.length, 2, 'one log line per message');
    assert.ok(!logged[0]!.includes('4F7KQ2'), 'the log line leaves the text out');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
