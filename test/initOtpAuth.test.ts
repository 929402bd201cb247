// init_otp_auth end to end: submitted with @turnkey/http, delivered by the outbox worker to a real
// SMTP server on loopback; one email per activity even under concurrent identical submissions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

const SUBMIT_OTP = '/public/v1/submit/init_otp_auth';

function otpBody(organizationId: string, parameters: Record<string, unknown>) {
  return {
    type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'alice@example.com', appName: 'Acme Wallet', ...parameters },
  };
}

async function submit(server: TestServer, credentials: Credentials, body: string) {
  const stamp = await new ApiKeyStamper(credentials).stamp(body);
  const response = await fetch(`${server.baseUrl}${SUBMIT_OTP}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
    body,
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), json: (await response.json()) as any };
}

for (const tdb of testDatabases) {
  describe(`init_otp_auth (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, {
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_EMAIL_FROM: 'otp@signet.test',
        SIGNET_RATE_LIMIT_SMS_PER_USER: '3/600',
        SIGNET_RATE_LIMIT_SMS_PER_CONTACT: '2/600',
        SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT: '2/600',
      });
      org = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    test('the client library gets an otpId and the email arrives naming the app', async () => {
      const client = server.client(org);
      const { activity } = (await client.initOtpAuth(
        otpBody(org.organizationId, { contact: 'bob@example.com' }) as any,
      )) as any;
      assert.equal(activity.type, 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3');
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const otpId = activity.result.initOtpAuthResultV2.otpId;
      assert.match(otpId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(activity.result.activity.result, { initOtpAuthResultV2: { otpId } });
      // Defaults are filled in the echoed intent.
      const intent = activity.intent.initOtpAuthIntentV3;
      assert.equal(intent.otpLength, 9);
      assert.equal(intent.alphanumeric, true);
      assert.equal(intent.expirationSeconds, '300');
      assert.equal(intent.sendFromEmailSenderName, 'Notifications');
      assert.equal(intent.contact, 'bob@example.com');

      const [mail] = await smtp.waitFor(1);
      assert.equal(mail!.to && !Array.isArray(mail!.to) ? mail!.to.value[0]!.address : undefined, 'bob@example.com');
      assert.equal(mail!.from!.value[0]!.name, 'Notifications');
      assert.equal(mail!.from!.value[0]!.address, 'otp@signet.test');
      assert.match(mail!.subject ?? '', /Acme Wallet/);
      assert.match(mail!.text ?? '', /Acme Wallet/);
      const code = /\b([0-9A-HJKMNP-TV-Z]{9})\b/.exec(mail!.text ?? '')?.[1];
      assert.ok(code, 'the text part shows a 9-character Crockford code');
      assert.match(String(mail!.html), new RegExp(code));

      // The code is stored only as a keyed hash: it appears in no column of any row.
      const rows = await server.db.query<Record<string, unknown>>('SELECT * FROM otps WHERE id = $1', [otpId]);
      assert.equal(rows.length, 1);
      assert.ok(!JSON.stringify(rows).includes(code!));
      const outbox = await server.db.query<Record<string, unknown>>('SELECT * FROM outbox WHERE otp_id = $1', [otpId]);
      assert.equal(outbox.length, 1);
      assert.ok(!JSON.stringify(outbox).includes(code!));
    });

    test('twelve concurrent submissions of one body: one activity, one OTP, one email', async () => {
      const before = smtp.messages.length;
      const body = JSON.stringify(otpBody(org.organizationId, { contact: 'carol@example.com' }));
      const results = await Promise.all(Array.from({ length: 12 }, () => submit(server, org, body)));
      for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(new Set(results.map((r) => r.json.activity.id)).size, 1);
      const otps = await server.db.query("SELECT id FROM otps WHERE contact = 'carol@example.com'");
      assert.equal(otps.length, 1);
      await smtp.waitFor(before + 1);
      // Give a duplicate every chance to show up before asserting there is none.
      await new Promise((r) => setTimeout(r, 300));
      const toCarol = smtp.messages.filter((m) => JSON.stringify(m.to).includes('carol@example.com'));
      assert.equal(toCarol.length, 1);
    });

    test('sendFromEmailAddress must be on a registered sender domain', async () => {
      const rejected = await submit(
        server,
        org,
        JSON.stringify(otpBody(org.organizationId, { sendFromEmailAddress: 'hello@acme.example' })),
      );
      assert.equal(rejected.status, 400, JSON.stringify(rejected.json));
      assert.equal(rejected.json.details[0].fieldViolations[0].field, 'parameters.sendFromEmailAddress');
      const before = await server.db.query('SELECT id FROM activities');

      await server.admin('POST', `/organizations/${org.organizationId}/sender-domains`, { domain: 'Acme.example' });
      const accepted = await submit(
        server,
        org,
        JSON.stringify(
          otpBody(org.organizationId, {
            contact: 'dave@example.com',
            sendFromEmailAddress: 'hello@acme.example',
            sendFromEmailSenderName: 'Acme Security',
            replyToEmailAddress: 'support@acme.example',
          }),
        ),
      );
      assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
      assert.equal((await server.db.query('SELECT id FROM activities')).length, before.length + 1);
      const mail = await smtp.waitForMailTo('dave@example.com');
      assert.equal(mail.from!.value[0]!.address, 'hello@acme.example');
      assert.equal(mail.from!.value[0]!.name, 'Acme Security');
      assert.equal(mail.replyTo!.value[0]!.address, 'support@acme.example');
    });

    test('rule violations are 400 with the field named, and create nothing', async () => {
      const before = (await server.db.query('SELECT id FROM otps')).length;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ appName: undefined }, 'parameters.appName'],
        [{ otpLength: 5 }, 'parameters.otpLength'],
        [{ expirationSeconds: '601' }, 'parameters.expirationSeconds'],
        [{ contact: '+14155550123' }, 'parameters.contact'],
        [{ otpType: 'OTP_TYPE_SMS', contact: 'alice@example.com' }, 'parameters.contact'],
        [{ sendFromEmailSenderName: 'Evil\r\nBcc: victim@example.com' }, 'parameters.sendFromEmailSenderName'],
        [{ emailCustomization: { magicLinkTemplate: 'https://app.example/login' } }, 'parameters.emailCustomization.magicLinkTemplate'],
      ];
      for (const [parameters, field] of cases) {
        const sent = await submit(server, org, JSON.stringify(otpBody(org.organizationId, parameters)));
        assert.equal(sent.status, 400, `${JSON.stringify(parameters)} → ${JSON.stringify(sent.json)}`);
        assert.ok(
          sent.json.details[0].fieldViolations.some((v: { field: string }) => v.field === field),
          `${field} named in ${JSON.stringify(sent.json)}`,
        );
      }
      assert.equal((await server.db.query('SELECT id FROM otps')).length, before);
    });

    test('SMS codes per userIdentifier are limited: 429 with Retry-After, and no OTP created', async () => {
      const sms = (n: number) =>
        JSON.stringify(
          otpBody(org.organizationId, { otpType: 'OTP_TYPE_SMS', contact: `+1415555${String(1000 + n)}`, userIdentifier: 'ip-hash-1' }),
        );
      // The limit under test is SIGNET_RATE_LIMIT_SMS_PER_USER=3/600, set for this server below.
      const results = await Promise.all([0, 1, 2, 3].map((n) => submit(server, org, sms(n))));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 429]);
      const limited = results.find((r) => r.status === 429)!;
      assert.equal(limited.json.code, 8);
      assert.match(limited.json.message, /at most 3 every 600 seconds/);
      const again = await submit(server, org, sms(4));
      assert.equal(again.status, 429);
      const retryAfter = Number(again.retryAfter);
      assert.ok(retryAfter >= 1 && retryAfter <= 600, `Retry-After ${retryAfter}`);
      const rows = await server.db.query("SELECT id FROM otps WHERE user_identifier = 'ip-hash-1'");
      assert.equal(rows.length, 3);
      // Another user identifier, or email, is not affected.
      const other = await submit(server, org, JSON.stringify(otpBody(org.organizationId, { otpType: 'OTP_TYPE_SMS', contact: '+14155559999', userIdentifier: 'ip-hash-2' })));
      assert.equal(other.status, 200);
    });

    test('codes per phone number and per email address are limited too', async () => {
      for (const [otpType, contact, label] of [
        ['OTP_TYPE_SMS', '+14155550100', /this phone number/],
        ['OTP_TYPE_EMAIL', 'erin@example.com', /this email address/],
      ] as const) {
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const sent = await submit(server, org, JSON.stringify(otpBody(org.organizationId, { otpType, contact, appName: `App ${i}` })));
          statuses.push(sent.status);
          if (sent.status === 429) assert.match(sent.json.message, label);
        }
        assert.deepEqual(statuses, [200, 200, 429], contact);
      }
    });

    test('an SMS OTP normalises the number to E.164 and is logged by the development SMS transport', async () => {
      const sent = await submit(
        server,
        org,
        JSON.stringify(
          otpBody(org.organizationId, {
            otpType: 'OTP_TYPE_SMS',
            contact: '+1 (415) 555-2671',
            otpLength: 6,
            alphanumeric: false,
            smsCustomization: { template: 'Your {{.AppName}} code: {{.OtpCode}}' },
          }),
        ),
      );
      assert.equal(sent.status, 200, JSON.stringify(sent.json));
      assert.equal(sent.json.activity.intent.initOtpAuthIntentV3.contact, '+14155552671');
      const otpId = sent.json.activity.result.initOtpAuthResultV2.otpId;
      let status = '';
      await until(
        () => `the SMS to be sent (its outbox row is ${status})`,
        async () => {
          const [row] = await server.db.query<{ status: string }>('SELECT status FROM outbox WHERE otp_id = $1', [otpId]);
          status = row!.status;
          return status === 'sent';
        },
      );
      const fs = await import('node:fs');
      const log = fs.readFileSync(`${server.dataDir}/sms.log`, 'utf8');
      assert.match(log, /\+14155552671/);
      assert.match(log, /Your Acme Wallet code: \d{6}/);
    });
  });
}
