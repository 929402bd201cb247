// The outbox and its worker against a real SMTP server on loopback: encrypted codes, delivery,
// retry after a refusal, permanent failure kept visible, reclaimed leases, two workers never
// sending one message twice, claims bounded by what the transport sends at once, leases renewed
// and given back, a Message-ID stable per OTP, the template chosen at queueing; housekeeping; and
// the development mailbox and SMS log.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { loadConfig } from '../src/config.ts';
import { createEmailTransport, SMTP_POOL_SIZE, type EmailTransport } from '../src/delivery/email/transport.ts';
import { Housekeeping } from '../src/delivery/housekeeping.ts';
import { enqueue, outboxDepth } from '../src/store/outbox.ts';
import { OutboxWorker } from '../src/delivery/outboxWorker.ts';
import { renderOtpEmail, renderOtpSms, storedPayload, type OtpEmail, type OtpSms } from '../src/otp/messages.ts';
import { decryptCode, encryptCode } from '../src/otp/sealedCode.ts';
import { seal, unseal } from '../src/wire/sealed.ts';
import { chosenEmailTemplate } from '../src/store/emailTemplates.ts';
import type { DeliveryLogger } from '../src/delivery/logger.ts';
import type { LogoOptions } from '../src/delivery/email/logo.ts';
import { createSmsProvider } from '../src/delivery/sms/createSmsProvider.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { testDatabases } from './support/databases.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

const silent: DeliveryLogger = { info() {}, warn() {}, error() {} };
/** What a test may change of a queued message. */
type OutboxMessage = OtpEmail | OtpSms;
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

  test('a code sealed as the store sealed it before opens, and the other way round', () => {
    const id = randomUUID();
    assert.equal(decryptCode(secret, id, seal(secret, 'signet outbox encryption v1', id, Buffer.from('K7Q2M9XH4'))), 'K7Q2M9XH4');
    assert.equal(unseal(secret, 'signet outbox encryption v1', id, encryptCode(secret, id, 'K7Q2M9XH4')).toString('utf8'), 'K7Q2M9XH4');
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
    // Handlebars writes "=" as &#x3D; in the HTML: the same URL to a mail client.
    assert.match(rendered.html, /href="https:\/\/app\.example\/login\?code&#x3D;AB%20CD"/);
  });

  test('SMS template tags are replaced literally; nothing else is interpreted', () => {
    const sms = { channel: 'sms' as const, to: '+14155552671', appName: 'Pay $& {{.OtpCode}}', expirationSeconds: 60 };
    assert.equal(renderOtpSms({ ...sms, template: '{{.AppName}}: {{.OtpCode}} {{.Other}}' }, '123456'), 'Pay $& {{.OtpCode}}: 123456 {{.Other}}');
    assert.equal(renderOtpSms(sms, '123456'), '123-456 is your Pay $& {{.OtpCode}} verification code. It expires in 1 minute.');
  });
});

for (const tdb of testDatabases) {
  describe(`outbox worker (${tdb.name})`, () => {
    let db: Database & { schema?: string };
    let smtp: SmtpSink;
    let dataDir: string;
    let organizationId: string;
    let activityId: string;

    function worker(
      on: Database = db,
      options: { maxAttempts?: number; batchSize?: number; email?: EmailTransport; logger?: DeliveryLogger; leaseMs?: number; logo?: LogoOptions } = {},
    ) {
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
        ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
        defaultFrom: 'otp@signet.test',
        logo: options.logo ?? { allowHttp: false, allowPrivate: false },
        webhookAllowInsecure: false,
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
        // As init_otp_auth queues it: the code sealed to the row, an email's template chosen in the statement.
        const message = { channel: 'email', to, appName: 'Acme', fromName: 'Notifications', expirationSeconds: 300, ...extra } as OutboxMessage;
        const id = randomUUID();
        return enqueue(tx, {
          id, organizationId, otpId, channel: message.channel, payload: storedPayload(secret, id, message, code),
          ...(message.channel === 'email' ? { filledIn: chosenEmailTemplate(organizationId, undefined) } : {}),
        });
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

    test("an email is sent with the template chosen when it was queued, though the template was removed since", async () => {
      const templateId = randomUUID();
      await db.query('INSERT INTO email_templates (id, organization_id, name, subject, html, text) VALUES ($1, $2, $3, $4, $5, $6)', [
        templateId, organizationId, 'chosen', 'Chosen: {{appName}}', '<p>{{otpCode}}</p>', 'Chosen code {{otpCode}}',
      ]);
      const { outboxId, code } = await queue('quinn@example.com');
      await db.query('DELETE FROM email_templates WHERE id = $1', [templateId]);
      assert.equal((await row(outboxId)).payload.templateId, templateId);
      const w = worker();
      assert.equal(await w.runOnce(), 1);
      await w.stop();
      const [mail] = await smtp.waitFor(1);
      assert.equal(mail!.subject, 'Chosen: Acme');
      assert.equal(mail!.text?.trim(), `Chosen code ${code}`);
    });

    test("an email queued by an earlier version, naming only its template's id, is sent with that template", async () => {
      const templateId = randomUUID();
      await db.query('INSERT INTO email_templates (id, organization_id, name, subject, html, text) VALUES ($1, $2, $3, $4, $5, $6)', [
        templateId, organizationId, 'named', 'Named: {{appName}}', '<p>{{otpCode}}</p>', 'Named code {{otpCode}}',
      ]);
      try {
        const { outboxId, code } = await queue('rita@example.com', { templateId } as Partial<OutboxMessage>);
        await db.query("UPDATE outbox SET payload = payload - 'template' WHERE id = $1", [outboxId]);
        const w = worker();
        assert.equal(await w.runOnce(), 1);
        await w.stop();
        const [mail] = await smtp.waitFor(1);
        assert.equal(mail!.subject, 'Named: Acme');
        assert.equal(mail!.text?.trim(), `Named code ${code}`);
      } finally {
        await db.query('DELETE FROM email_templates WHERE id = $1', [templateId]);
      }
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

    test('an OTP email carries the Message-ID <otp-{otpId}@domain of its From>, the same when it is sent again', async () => {
      const { outboxId } = await queue('lena@example.com');
      const { outboxId: otherId } = await queue('moe@example.com', { fromAddress: 'codes@Mail.Acme.example' } as Partial<OutboxMessage>);
      const otpId = (await row(outboxId)).otp_id;
      const config = loadConfig({ SIGNET_SMTP_URL: smtp.url, SIGNET_DATA_DIR: dataDir });
      const real = createEmailTransport(config, silent);
      // The first answer is lost after the server took the message (a connection cut, a crash):
      // the attempt counts as failed and the message goes out again.
      let answersLost = 1;
      const lossy: EmailTransport = {
        async send(email) {
          const info = await real.send(email);
          if (email.to === 'lena@example.com' && answersLost-- > 0) throw new Error('connection closed before the answer');
          return info;
        },
        close: () => real.close(),
      };
      const w = worker(db, { email: lossy });
      assert.equal(await w.runOnce(), 2);
      assert.equal((await row(outboxId)).status, 'retrying');
      await db.query('UPDATE outbox SET next_attempt_at = now() WHERE id = $1', [outboxId]);
      assert.equal(await w.runOnce(), 1);
      await w.stop();

      await smtp.waitFor(3);
      const copies = smtp.messages.filter((m) => !Array.isArray(m.to) && m.to!.value[0]!.address === 'lena@example.com');
      assert.equal(copies.length, 2, 'sent twice');
      assert.deepEqual(copies.map((m) => m.messageId), [`<otp-${otpId}@signet.test>`, `<otp-${otpId}@signet.test>`]);
      const sent = await row(outboxId);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.provider_message_id, `<otp-${otpId}@signet.test>`);
      const other = smtp.messages.find((m) => !Array.isArray(m.to) && m.to!.value[0]!.address === 'moe@example.com');
      assert.equal(other!.messageId, `<otp-${(await row(otherId)).otp_id}@mail.acme.example>`);
    });

    test('the development mailbox writes the OTP Message-ID into the .eml', async () => {
      const mailbox = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-mailbox-'));
      try {
        const { outboxId } = await queue('nia@example.com');
        const w = worker(db, { email: createEmailTransport(loadConfig({ SIGNET_DATA_DIR: mailbox }), silent) });
        assert.equal(await w.runOnce(), 1);
        await w.stop();
        const [file] = fs.readdirSync(path.join(mailbox, 'mail'));
        const mail = await simpleParser(fs.readFileSync(path.join(mailbox, 'mail', file!)));
        assert.equal(mail.messageId, `<otp-${(await row(outboxId)).otp_id}@signet.test>`);
      } finally {
        fs.rmSync(mailbox, { recursive: true, force: true });
      }
    });

    test('a worker claims no more messages than its transport sends at once; the rest stay due for others', async () => {
      const count = SMTP_POOL_SIZE + 3;
      for (let i = 0; i < count; i++) await queue(`pool${i}@example.com`);
      smtp.holdNext(SMTP_POOL_SIZE); // those sends stay mid-DATA until released
      const first = worker(db, { batchSize: 20 });
      const firstRound = first.runOnce();
      await until(() => `${SMTP_POOL_SIZE} sends at the server (${smtp.held()} reached it)`, () => smtp.held() >= SMTP_POOL_SIZE, { everyMs: 10 });
      const [states] = await db.query<{ sending: number; queued: number }>(
        "SELECT count(*) FILTER (WHERE status = 'sending')::int AS sending, count(*) FILTER (WHERE status = 'queued')::int AS queued FROM outbox",
      );
      assert.deepEqual(states, { sending: SMTP_POOL_SIZE, queued: 3 }, 'only what is being transmitted is claimed');

      const second = worker();
      assert.equal(await second.runOnce(), 3, 'another worker sends the rest meanwhile');
      await second.stop();
      assert.equal(smtp.messages.length, 3);
      smtp.releaseHeld();
      assert.equal(await firstRound, SMTP_POOL_SIZE);
      await first.stop();
      const delivered = smtp.messages.map((m) => (Array.isArray(m.to) ? '' : m.to!.value[0]!.address));
      assert.equal(new Set(delivered).size, count);
      assert.equal(delivered.length, count, 'nothing sent twice');
    });

    test('messages sent but not yet recorded never outnumber the sends in hand, however slow recording is', async () => {
      for (let i = 0; i < 12; i++) await queue(`slowrec${i}@example.com`);
      // The store takes 300 ms to record an outcome: a crash meanwhile leaves those messages
      // unrecorded, to be sent again.
      const slowRecording: Database = {
        kind: db.kind,
        query: async (sql, params) => {
          if (/provider_message_id = COALESCE/.test(sql)) await new Promise((r) => setTimeout(r, 300));
          return db.query(sql, params);
        },
        exec: (sql) => db.exec(sql),
        transaction: (fn) => db.transaction(fn),
        close: async () => {},
      };
      const w = worker(slowRecording);
      w.start();
      let most = 0;
      let recorded = 0;
      await until(
        () => `12 recorded (${recorded} are)`,
        async () => {
          const [counted] = await db.query<{ recorded: number }>("SELECT count(*)::int AS recorded FROM outbox WHERE status = 'sent'");
          recorded = counted!.recorded;
          most = Math.max(most, smtp.messages.length - recorded);
          return recorded === 12;
        },
        { timeoutMs: 15_000, everyMs: 10 },
      );
      await w.stop();
      assert.ok(most <= SMTP_POOL_SIZE, `${most} messages were accepted by the server and not recorded at one moment`);
      assert.equal(smtp.messages.length, 12);
    });

    test('a send slower than the lease keeps its message: the lease is renewed and no other worker takes it', async () => {
      const { outboxId } = await queue('olaf@example.com');
      smtp.holdNext(1);
      // A lease of 2 s, renewed every 2/3 s: a loaded machine delaying a renewal does not lose it.
      const slow = worker(db, { leaseMs: 2000 });
      const slowRound = slow.runOnce();
      await until('the send to reach the server', () => smtp.held() >= 1, { everyMs: 10 });
      const firstLeaseEnd: Date = (await row(outboxId)).lease_expires_at;
      const other = worker();
      // Until the database's clock is past the end of the first lease (and for two rounds after).
      for (let rounds = 0; rounds < 2; await new Promise((r) => setTimeout(r, 50))) {
        assert.equal(await other.runOnce(), 0, 'the message is still its first worker\'s');
        const [clock] = await db.query<{ past: boolean }>('SELECT now() > $1::timestamptz AS past', [firstLeaseEnd]);
        if (clock!.past) rounds++;
      }
      await other.stop();
      smtp.releaseHeld();
      assert.equal(await slowRound, 1);
      await slow.stop();
      const sent = await row(outboxId);
      assert.equal(sent.status, 'sent');
      assert.equal(sent.attempts, 1);
      assert.equal(smtp.messages.length, 1);
    });

    test('a worker stopped with a message claimed but not yet handed to its transport gives it back at once', async () => {
      // The logo server holds the first request: the message is claimed, its email still being composed.
      let logoRequested!: () => void;
      const requested = new Promise<void>((resolve) => (logoRequested = resolve));
      const stalled: http.ServerResponse[] = [];
      const logos = http.createServer((_req, res) => {
        stalled.push(res);
        logoRequested();
      });
      await new Promise<void>((resolve) => logos.listen(0, '127.0.0.1', resolve));
      try {
        const logoUrl = `http://127.0.0.1:${(logos.address() as AddressInfo).port}/logo.png`;
        const { outboxId } = await queue('pam@example.com', { logoUrl } as Partial<OutboxMessage>);
        const stopping = worker(db, { logo: { allowHttp: true, allowPrivate: true, timeoutMs: 10_000 } });
        const round = stopping.runOnce();
        await requested;
        assert.equal((await row(outboxId)).status, 'sending');
        const stopped = stopping.stop();

        // Another worker sends it now, not when the lease ends (its logo is refused: http).
        // Waiting far less than the lease (60 s): the message was given back, its lease did not run out.
        const other = worker();
        await until('the message given back to another worker', async () => (await other.runOnce()) > 0, { timeoutMs: 30_000 });
        await other.stop();
        await smtp.waitFor(1);
        const sent = await row(outboxId);
        assert.equal(sent.status, 'sent');
        assert.equal(sent.attempts, 1, 'the given-back claim did not count as an attempt');

        for (const res of stalled) res.writeHead(404).end();
        assert.equal(await round, 1);
        await stopped;
        await new Promise((r) => setTimeout(r, 100));
        assert.equal(smtp.messages.length, 1, 'the stopped worker did not send it too');
        assert.equal((await row(outboxId)).attempts, 1);
      } finally {
        logos.closeAllConnections();
        logos.close();
      }
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

    test('maintenance: one worker per period deletes finished messages past retention, idle rate windows and expired token uses, keeps the rest', async () => {
      const keep = await queue('kept@example.com');
      const old = await queue('old@example.com');
      const recent = await queue('recent@example.com');
      await db.query("UPDATE outbox SET status = 'sent', updated_at = now() - interval '8 days' WHERE id = $1", [old.outboxId]);
      await db.query("UPDATE outbox SET status = 'failed', updated_at = now() - interval '6 days' WHERE id = $1", [recent.outboxId]);
      await db.query("UPDATE outbox SET updated_at = now() - interval '30 days' WHERE id = $1", [keep.outboxId]); // still queued
      await db.query(
        `INSERT INTO otp_rate_windows (scope, sent_at) VALUES ('idle-scope', ARRAY[now() - interval '2 hours']),
                                                              ('busy-scope', ARRAY[now() - interval '2 hours', now() - interval '1 minute'])`,
      );
      const organizationId = randomUUID();
      await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, 'maintenance']);
      // The uses name the activity that used the tokens (a foreign key says so).
      const activityId = randomUUID();
      await db.query(
        `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent, result, created_at, updated_at)
         VALUES ($1, $2, 'ACTIVITY_TYPE_OTP_LOGIN', 'ACTIVITY_STATUS_COMPLETED', 'sha256:maintenance', '1', '{}', 'stamp', '{}', '{}', now(), now())`,
        [activityId, organizationId],
      );
      await db.query(
        `INSERT INTO verification_token_uses (token_id, usage, organization_id, activity_id, expires_at, used_at)
         VALUES ('expired-token', 'login', $1, $2, now() - interval '2 hours', now() - interval '3 hours'),
                ('expired-token', 'signup', $1, $2, now() - interval '2 hours', now() - interval '3 hours'),
                ('live-token', 'login', $1, $2, now() + interval '1 hour', now())`,
        [organizationId, activityId],
      );
      const lines: string[] = [];
      const logging: DeliveryLogger = { info: (_o, message) => lines.push(message ?? ''), warn: (o) => lines.push(JSON.stringify(o)), error() {} };
      const maintenance = { db, logger: logging, retentionDays: 7, longestRateWindowSeconds: 3600, periodMs: 60_000 };
      const [first, second] = [new Housekeeping(maintenance), new Housekeeping(maintenance)];
      await first.run();
      await second.run(); // the same period: not elected
      assert.deepEqual(lines, ['outbox maintenance done']);

      const ids = (await db.query<{ id: string }>('SELECT id FROM outbox WHERE id = ANY($1::uuid[])', [[keep.outboxId, old.outboxId, recent.outboxId]])).map((r) => r.id);
      assert.deepEqual(ids.sort(), [keep.outboxId, recent.outboxId].sort());
      const scopes = (await db.query<{ scope: string }>('SELECT scope FROM otp_rate_windows WHERE scope LIKE $1', ['%-scope'])).map((r) => r.scope);
      assert.deepEqual(scopes, ['busy-scope']);
      // A used token that expired can be forgotten: it is refused as expired before its use is looked at.
      const tokens = (await db.query<{ token_id: string }>('SELECT token_id FROM verification_token_uses WHERE token_id LIKE $1', ['%-token'])).map((r) => r.token_id);
      assert.deepEqual(tokens, ['live-token']);
    });

    test('housekeeping, started, runs at once and again each period, and not after stop()', async () => {
      await db.query('DELETE FROM maintenance');
      const lines: string[] = [];
      const logging: DeliveryLogger = { info: (_o, message) => lines.push(message ?? ''), warn: (o) => lines.push(JSON.stringify(o)), error() {} };
      const job = new Housekeeping({ db, logger: logging, retentionDays: 7, longestRateWindowSeconds: 3600, periodMs: 50 });
      job.start();
      await until(() => `two runs (${lines.length} so far)`, () => lines.length >= 2, { everyMs: 10 });
      await job.stop();
      const ran = lines.length;
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(lines.length, ran);
      assert.deepEqual([...new Set(lines)], ['outbox maintenance done']);
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
