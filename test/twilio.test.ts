// SMS through Twilio's REST API, against a loopback server that speaks it: what is sent, how each
// of Twilio's answers is judged (sent, retry, permanent), and end to end from init_otp_auth to a
// verified code, with the delivery state visible in the admin API and the CLI.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { DeliveryError } from '../src/delivery/deliveryError.ts';
import { createSmsProvider } from '../src/delivery/sms/createSmsProvider.ts';
import { createTwilioProvider, parseRetryAfter, type TwilioSettings } from '../src/delivery/sms/twilio.ts';
import { testDatabases } from './support/databases.ts';
import { freePort, signet } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { until } from './support/until.ts';
import {
  startTwilioServer,
  TWILIO_ACCOUNT_SID,
  TWILIO_AUTH_TOKEN,
  TWILIO_FROM,
  type TwilioServer,
} from './support/twilioServer.ts';

const silent = { info() {}, warn() {}, error() {} };

function twilioEnv(twilio: TwilioServer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SIGNET_SMS_PROVIDER: 'twilio',
    SIGNET_TWILIO_ACCOUNT_SID: TWILIO_ACCOUNT_SID,
    SIGNET_TWILIO_AUTH_TOKEN: TWILIO_AUTH_TOKEN,
    SIGNET_TWILIO_FROM: TWILIO_FROM,
    SIGNET_TWILIO_BASE_URL: twilio.baseUrl,
    ...extra,
  };
}

async function rejection(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DeliveryError, `a DeliveryError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the send to fail');
}

describe('Twilio settings', () => {
  const base = { SIGNET_SMS_PROVIDER: 'twilio', SIGNET_TWILIO_ACCOUNT_SID: TWILIO_ACCOUNT_SID, SIGNET_TWILIO_AUTH_TOKEN: TWILIO_AUTH_TOKEN };

  test('are read and checked, naming the variable at fault', () => {
    const config = loadConfig({ ...base, SIGNET_TWILIO_FROM: '+14155550100' });
    assert.deepEqual(config.sms, {
      provider: 'twilio', accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, from: '+14155550100', baseUrl: 'https://api.twilio.com',
    });
    const service = loadConfig({ ...base, SIGNET_TWILIO_MESSAGING_SERVICE_SID: `MG${'ab'.repeat(16)}`, SIGNET_TWILIO_BASE_URL: 'http://127.0.0.1:9/' });
    assert.equal(service.sms.provider === 'twilio' && service.sms.messagingServiceSid, `MG${'ab'.repeat(16)}`);
    assert.equal(service.sms.provider === 'twilio' && service.sms.baseUrl, 'http://127.0.0.1:9');
    assert.deepEqual(loadConfig({}).sms, { provider: 'development' });

    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ SIGNET_SMS_PROVIDER: 'nexmo' }, /SIGNET_SMS_PROVIDER must be one of twilio/],
      [{ SIGNET_SMS_PROVIDER: 'twilio' }, /SIGNET_TWILIO_ACCOUNT_SID is required/],
      [{ ...base, SIGNET_TWILIO_ACCOUNT_SID: 'AC123' }, /SIGNET_TWILIO_ACCOUNT_SID must be AC followed by 32 hex digits/],
      [{ ...base, SIGNET_TWILIO_AUTH_TOKEN: '' }, /SIGNET_TWILIO_AUTH_TOKEN is required/],
      [base, /exactly one of SIGNET_TWILIO_FROM .* and SIGNET_TWILIO_MESSAGING_SERVICE_SID/],
      [{ ...base, SIGNET_TWILIO_FROM: '+14155550100', SIGNET_TWILIO_MESSAGING_SERVICE_SID: `MG${'ab'.repeat(16)}` }, /exactly one of/],
      [{ ...base, SIGNET_TWILIO_FROM: '4155550100\r\nX: y' }, /SIGNET_TWILIO_FROM must be an E\.164 number/],
      [{ ...base, SIGNET_TWILIO_MESSAGING_SERVICE_SID: 'MG1' }, /SIGNET_TWILIO_MESSAGING_SERVICE_SID must be MG/],
      [{ ...base, SIGNET_TWILIO_FROM: '+14155550100', SIGNET_TWILIO_BASE_URL: 'ftp://x' }, /SIGNET_TWILIO_BASE_URL must start with https:\/\/ or http:\/\//],
    ];
    for (const [env, message] of cases) assert.throws(() => loadConfig(env), message);
    // A bad token is refused without being echoed.
    assert.throws(() => loadConfig({ ...base, SIGNET_TWILIO_AUTH_TOKEN: 'has space inside', SIGNET_TWILIO_FROM: '+14155550100' }), (error: Error) =>
      /SIGNET_TWILIO_AUTH_TOKEN must be/.test(error.message) && !error.message.includes('has space inside'));
  });

  test('Retry-After is read as seconds or an HTTP date, and bounded', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7000);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('999999', now), 3600_000);
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now), undefined);
  });
});

describe('Twilio provider', () => {
  let twilio: TwilioServer;
  let settings: TwilioSettings;

  before(async () => {
    twilio = await startTwilioServer();
    settings = { provider: 'twilio', accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, from: TWILIO_FROM, baseUrl: twilio.baseUrl };
  });
  after(() => twilio.close());

  test('posts To, From and Body form-encoded with Basic auth, and returns the message sid', async () => {
    const provider = createSmsProvider(loadConfig(twilioEnv(twilio)), silent);
    assert.equal(provider.name, 'twilio');
    const text = 'Ünïcode & = + signs: 123456';
    const { messageId } = await provider.send({ to: '+14155552671', text });
    const request = twilio.requests.at(-1)!;
    assert.equal(request.accountSid, TWILIO_ACCOUNT_SID);
    assert.equal(request.credentials, `${TWILIO_ACCOUNT_SID}:${TWILIO_AUTH_TOKEN}`);
    assert.equal(request.contentType, 'application/x-www-form-urlencoded');
    assert.deepEqual(request.form, { To: '+14155552671', From: TWILIO_FROM, Body: text });
    assert.match(messageId, /^SM[0-9a-f]{32}$/);
    assert.equal(twilio.accepted.at(-1)!.sid, messageId);
  });

  test('sends through a Messaging Service instead of a number when so configured', async () => {
    const { from: _from, ...rest } = settings;
    const provider = createTwilioProvider({ ...rest, messagingServiceSid: `MG${'cd'.repeat(16)}` });
    await provider.send({ to: '+14155552671', text: 'hi' });
    assert.deepEqual(twilio.requests.at(-1)!.form, { To: '+14155552671', MessagingServiceSid: `MG${'cd'.repeat(16)}`, Body: 'hi' });
  });

  test("refusals of the recipient or the text are permanent, with Twilio's code and words", async () => {
    const provider = createTwilioProvider(settings);
    for (const [to, code] of [['+15005550001', 21211], ['+15005550002', 21612], ['+15005550003', 21408], ['+15005550004', 21610], ['+15005550009', 21614]] as const) {
      const error = await rejection(provider.send({ to, text: 'code' }));
      assert.equal(error.permanent, true, `${to} (${code})`);
      assert.match(error.message, new RegExp(`^Twilio answered HTTP 400 \\(error ${code}\\): `));
    }
    const tooLong = await rejection(provider.send({ to: '+14155552671', text: 'x'.repeat(1601) }));
    assert.equal(tooLong.permanent, true);
    assert.match(tooLong.message, /21617/);
  });

  test('server faults, throttling and the account set-up are temporary; Retry-After is kept', async () => {
    const provider = createTwilioProvider(settings);
    twilio.script({ status: 500, code: 20500, message: 'Internal Server Error' }, { status: 503 }, { status: 429, code: 20429, message: 'Too Many Requests', retryAfter: '7' });
    const internal = await rejection(provider.send({ to: '+14155552671', text: 'a' }));
    assert.equal(internal.permanent, false);
    assert.match(internal.message, /HTTP 500 \(error 20500\): Internal Server Error/);
    assert.equal((await rejection(provider.send({ to: '+14155552671', text: 'b' }))).permanent, false);
    const throttled = await rejection(provider.send({ to: '+14155552671', text: 'c' }));
    assert.equal(throttled.permanent, false);
    assert.equal(throttled.retryAfterMs, 7000);

    const wrongToken = await rejection(createTwilioProvider({ ...settings, authToken: 'not-the-token' }).send({ to: '+14155552671', text: 'd' }));
    assert.equal(wrongToken.permanent, false, 'a credentials problem is the deployment\'s: retried while it is fixed');
    assert.match(wrongToken.message, /HTTP 401 \(error 20003\)/);
  });

  test('no answer in time, or no server at all, is temporary', async () => {
    twilio.script({ hang: true });
    const slow = await rejection(createTwilioProvider(settings, { timeoutMs: 200 }).send({ to: '+14155552671', text: 'e' }));
    assert.equal(slow.permanent, false);
    assert.equal(slow.message, 'Twilio did not answer: no answer within 200 ms');

    const closed = await rejection(createTwilioProvider({ ...settings, baseUrl: `http://127.0.0.1:${await freePort()}` }).send({ to: '+14155552671', text: 'f' }));
    assert.equal(closed.permanent, false);
    assert.match(closed.message, /^Twilio did not answer: ECONNREFUSED/);
  });

  test('an accepted message with an unreadable answer counts as sent, never to be sent again', async () => {
    twilio.script({ status: 201, raw: '<not json' });
    const { messageId } = await createTwilioProvider(settings).send({ to: '+14155552671', text: 'g' });
    assert.equal(messageId, 'twilio:unknown-sid');
  });
});

for (const tdb of testDatabases) {
  describe(`SMS OTP through Twilio (${tdb.name})`, () => {
    let twilio: TwilioServer;
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      twilio = await startTwilioServer();
      server = await startTestServer(tdb, twilioEnv(twilio));
      org = await server.createOrganization('Twilio Org');
    });
    after(async () => {
      await server.close();
      await twilio.close();
    });

    async function sendOtp(contact: string, extra: Record<string, unknown> = {}): Promise<string> {
      const { activity } = (await server.client(org).initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpType: 'OTP_TYPE_SMS', contact, appName: 'Acme Wallet', ...extra },
      } as any)) as any;
      return activity.result.initOtpAuthResultV2.otpId;
    }

    async function deliveryOf(otpId: string) {
      const { deliveries } = await server.admin('GET', `/organizations/${org.organizationId}/deliveries?otpId=${otpId}`);
      assert.equal(deliveries.length, 1);
      return deliveries[0];
    }

    async function settled(otpId: string, status: string, timeoutMs = 10_000) {
      let now = '';
      return until(
        () => `delivery of ${otpId} to be ${status} (it is ${now})`,
        async () => {
          const delivery = await deliveryOf(otpId);
          now = delivery.status;
          return now === status && delivery;
        },
        { timeoutMs, everyMs: 25 },
      );
    }

    test('the SMS carries the template with the code, and that code verifies', async () => {
      const before = twilio.accepted.length;
      const otpId = await sendOtp('+1 (415) 555-2671', { smsCustomization: { template: '{{.AppName}}: your code is {{.OtpCode}}' }, alphanumeric: false, otpLength: 6 });
      const [sms] = (await twilio.waitForAccepted(before + 1)).slice(before);
      assert.equal(sms!.to, '+14155552671');
      assert.equal(sms!.from, TWILIO_FROM);
      const code = /^Acme Wallet: your code is (\d{6})$/.exec(sms!.body)?.[1];
      assert.ok(code, sms!.body);

      const delivery = await settled(otpId, 'sent');
      assert.equal(delivery.channel, 'sms');
      assert.equal(delivery.to, '+14155552671');
      assert.equal(delivery.providerMessageId, sms!.sid);
      assert.equal(delivery.attempts, 1);
      assert.equal(delivery.lastError, null);

      const { activity } = (await server.client(org).verifyOtp({
        type: 'ACTIVITY_TYPE_VERIFY_OTP',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpId, otpCode: code },
      } as any)) as any;
      assert.match(activity.result.verifyOtpResult.verificationToken, /^ey/);
    });

    test('without a template the text names the app and the code', async () => {
      const before = twilio.accepted.length;
      await sendOtp('+14155552672');
      const [sms] = (await twilio.waitForAccepted(before + 1)).slice(before);
      assert.match(sms!.body, /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5} is your Acme Wallet verification code\. It expires in 5 minutes\.$/);
    });

    test('a number Twilio refuses fails for good after one request, and says why', async () => {
      const requests = twilio.requests.length;
      const otpId = await sendOtp('+15005550001');
      const delivery = await settled(otpId, 'failed');
      assert.equal(delivery.attempts, 1);
      assert.match(delivery.lastError, /HTTP 400 \(error 21211\).*\(permanent: retrying cannot help\)$/);
      assert.equal(delivery.providerMessageId, null);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(twilio.requests.filter((r) => r.form.To === '+15005550001').length, 1, 'never retried');
      assert.ok(twilio.requests.length > requests);

      const failed = await server.admin('GET', `/organizations/${org.organizationId}/deliveries?status=failed`);
      assert.ok(failed.deliveries.some((d: any) => d.otpId === otpId), 'listed among the failed');
      assert.ok(failed.deliveries.every((d: any) => d.status === 'failed'));
    });

    test('a Twilio outage is retried with backoff until it is delivered once', async () => {
      twilio.script({ status: 503, code: 20503, message: 'Service Unavailable' });
      const before = twilio.accepted.length;
      const otpId = await sendOtp('+14155552673');
      const retrying = await settled(otpId, 'retrying');
      assert.match(retrying.lastError, /HTTP 503 \(error 20503\)/);
      assert.ok(retrying.nextAttemptAt, 'says when it is tried next');
      const sent = await settled(otpId, 'sent');
      assert.equal(sent.attempts, 2);
      assert.equal(sent.lastError, null);
      assert.equal(twilio.accepted.slice(before).filter((m) => m.to === '+14155552673').length, 1);
    });

    test("throttling waits at least Twilio's Retry-After", async () => {
      twilio.script({ status: 429, code: 20429, message: 'Too Many Requests', retryAfter: '60' });
      const otpId = await sendOtp('+14155552674');
      const retrying = await settled(otpId, 'retrying');
      const wait = Date.parse(retrying.nextAttemptAt) - Date.parse(retrying.updatedAt);
      assert.ok(wait >= 59_000 && wait <= 61_000, `next attempt in ${wait} ms`);
    });

    test('the admin API refuses a bad filter, and another organization sees none of these', async () => {
      await assert.rejects(server.admin('GET', `/organizations/${org.organizationId}/deliveries?status=lost`), /400.*status/);
      await assert.rejects(server.admin('GET', `/organizations/${org.organizationId}/deliveries?limit=0`), /400.*limit/);
      const other = await server.createOrganization('Other');
      const { deliveries } = await server.admin('GET', `/organizations/${other.organizationId}/deliveries`);
      assert.deepEqual(deliveries, []);
    });

    if (tdb.name === 'pglite') {
      test('signet delivery list shows the state of each message', async () => {
        const env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
        const listed = await signet(['delivery', 'list', '--org', org.organizationId, '--status', 'failed'], env);
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /^CREATED +STATUS +CHANNEL +TO +OTP ID +ATTEMPTS +DETAIL\n/);
        assert.match(listed.stdout, /failed {2}sms +\+15005550001 +\S+ +1 +error: Twilio answered HTTP 400 \(error 21211\)/);
        assert.doesNotMatch(listed.stdout, / sent /);
        const json = await signet(['delivery', 'list', '--org', org.organizationId, '--limit', '2', '--json'], env);
        assert.equal(JSON.parse(json.stdout).length, 2);
        const bad = await signet(['delivery', 'list', '--org', org.organizationId, '--status', 'lost'], env);
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /400: .*--status: must be one of queued, sending, retrying, sent, failed/);
      });
    }
  });
}
