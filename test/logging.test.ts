// The JSON log of a real server, captured while @turnkey/http sends and verifies a real OTP: every
// request line carries its request id (the load balancer's X-Request-Id when well-formed), the
// activity line its id, type, organization and latency, and no line a code, stamp, key or token.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from './support/databases.ts';
import { logCapture } from './support/logCapture.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

const CODE = /\b([0-9A-HJKMNP-TV-Z]{9})\b/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const tdb of testDatabases) {
  describe(`at info, one line per activity (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    const log = logCapture();
    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'info', stream: log.stream } });
      org = await server.createOrganization('Quiet');
    });
    after(() => server.close());

    test('a submission writes its activity line and no request lines; the request id is on it', async () => {
      const before = log.lines().length;
      const { activity } = (await server.client(org).createSmartContractInterface({
        type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'quiet' },
      })) as any;
      const lines = log.lines().slice(before);
      assert.deepEqual(lines.map((line) => line.msg), ['activity created']);
      assert.equal(lines[0]!.activityId, activity.id);
      assert.match(lines[0]!.reqId, UUID);
    });
  });

  describe(`structured logs, at debug (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    const log = logCapture();

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    test('an OTP sent and verified: request ids, the activity line, and no secret anywhere', async () => {
      const client = server.client(org);
      const contact = `log-${randomUUID().slice(0, 8)}@example.com`;

      // Through a load balancer: its request id is kept, answered and logged.
      const signed = await client.stampInitOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Log Wallet' },
      } as any);
      const stampValue = signed.stamp.stampHeaderValue;
      const response = await fetch(signed.url, {
        method: 'POST',
        body: signed.body,
        headers: { 'content-type': 'application/json', 'x-request-id': 'lb-7f3a:0001', [signed.stamp.stampHeaderName]: stampValue },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-request-id'), 'lb-7f3a:0001');
      const { activity } = await response.json();
      const otpId = activity.result.initOtpAuthResultV2.otpId;

      const [mail] = await smtp.waitFor(1);
      const code = CODE.exec(mail!.text ?? '')?.[1];
      assert.ok(code, 'the email carries the code');
      const verified = (await client.verifyOtp({
        type: 'ACTIVITY_TYPE_VERIFY_OTP',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpId, otpCode: code },
      } as any)) as any;
      const token: string = verified.activity.result.verifyOtpResult.verificationToken;
      assert.ok(token.length > 100);

      // Let the worker log its line for the sent message before reading the log.
      await until('the worker to log the sent message', () => log.text().includes('message sent'));
      const lines = log.lines();

      const created = lines.filter((line) => line.msg === 'activity created');
      assert.equal(created.length, 2, 'init_otp_auth and verify_otp');
      const first = created.find((line) => line.activityType === 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3')!;
      assert.equal(first.reqId, 'lb-7f3a:0001');
      assert.equal(first.activityId, activity.id);
      assert.equal(first.organizationId, org.organizationId);
      assert.equal(typeof first.latencyMs, 'number');
      assert.ok(first.latencyMs > 0 && first.latencyMs < 60_000, `latencyMs ${first.latencyMs}`);
      const second = created.find((line) => line.activityType === 'ACTIVITY_TYPE_VERIFY_OTP')!;
      assert.match(second.reqId, UUID, 'without X-Request-Id the server makes a UUID');
      assert.equal(second.activityId, verified.activity.id);

      // Every request line carries reqId; every completed request its status and responseTime.
      const requestLines = lines.filter((line) => line.req || line.res);
      assert.ok(requestLines.length >= 6, `${requestLines.length} request lines`);
      for (const line of requestLines) assert.equal(typeof line.reqId, 'string', JSON.stringify(line));
      const completed = lines.filter((line) => line.msg === 'request completed');
      for (const line of completed) {
        assert.equal(typeof line.responseTime, 'number', JSON.stringify(line));
        assert.equal(typeof line.res.statusCode, 'number');
      }
      const ours = completed.filter((line) => line.reqId === 'lb-7f3a:0001');
      assert.equal(ours.length, 1);
      assert.equal(ours[0]!.res.statusCode, 200);

      // What must never be logged.
      const text = log.text();
      const secrets: Record<string, string> = {
        'the OTP code': code,
        'the stamp header': stampValue,
        'the admin token': ADMIN_TOKEN,
        'the API private key': org.apiPrivateKey,
        'the verification token': token,
        'the verification token signature': token.split('.')[2]!,
      };
      for (const [what, secret] of Object.entries(secrets)) assert.ok(!text.includes(secret), `${what} is in the log`);
      assert.ok(!text.toLowerCase().includes(code.toLowerCase()), 'the code, in any case, is in the log');
      const stampJson = Buffer.from(stampValue, 'base64url').toString('utf8');
      assert.ok(!text.includes(JSON.parse(stampJson).signature), 'the stamp signature is in the log');
    });

    test('a refused stamp logs its reason, not the stamp', async () => {
      const body = JSON.stringify({ type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: {} });
      const forged = Buffer.from(JSON.stringify({ publicKey: org.apiPublicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: '3006020101020101' })).toString('base64url');
      const response = await fetch(`${server.baseUrl}/public/v1/submit/init_otp_auth`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-stamp': forged, 'x-request-id': 'forged-stamp-1' },
      });
      assert.equal(response.status, 401);
      const refused = log.lines().filter((line) => line.reqId === 'forged-stamp-1' && line.msg === 'stamp refused');
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.stampFailure, 'bad_signature');
      assert.equal(refused[0]!.statusCode, 401);
      assert.ok(!log.text().includes(forged), 'the stamp is in the log');
    });

    test('a request id that is too long or has odd characters is replaced, not trusted', async () => {
      for (const given of ['x'.repeat(129), 'two words', 'quote"d', 'a,b']) {
        const response = await fetch(`${server.baseUrl}/healthz`, { headers: { 'x-request-id': given } });
        assert.equal(response.status, 200);
        const answered = response.headers.get('x-request-id')!;
        assert.match(answered, UUID, `"${given}" was replaced`);
        assert.ok(log.lines().some((line) => line.reqId === answered && line.msg === 'request completed'));
        assert.ok(!log.text().includes(given), `"${given}" reached the log`);
      }
      const kept = await fetch(`${server.baseUrl}/no/such/route`, { headers: { 'x-request-id': 'Root=1-67891233-abcdef012345678912345678' } });
      assert.equal(kept.status, 404);
      assert.equal(kept.headers.get('x-request-id'), 'Root=1-67891233-abcdef012345678912345678', 'also on errors');
    });

    test('credential headers are redacted should a line ever carry them', () => {
      server.server.app.log.info(
        { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-stamp': 'stamp-value-1', 'x-stamp-webauthn': 'stamp-value-2' } },
        'headers probe',
      );
      const probe = log.lines().find((line) => line.msg === 'headers probe')!;
      assert.deepEqual(probe.headers, { authorization: '[redacted]', 'x-stamp': '[redacted]', 'x-stamp-webauthn': '[redacted]' });
    });
  });
}
