// verify_otp end to end: a code sent by init_otp_auth and read from the email a real SMTP server
// received, verified with @turnkey/http; the token checked with jose against the served JWKS; and
// every way a verification is refused, on each store.
import assert from 'node:assert/strict';
import { createECDH, createHash, createPrivateKey, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { p256 } from '@noble/curves/p256';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { loadDeploymentSecret } from '../src/admin/localSecrets.ts';
import { hashOtpCode } from '../src/otp/code.ts';
import { startServer } from '../src/server.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const VERIFY_OTP = '/public/v1/submit/verify_otp';
const CODE = /\b([0-9A-HJKMNP-TV-Z]{9})\b/;

for (const tdb of testDatabases) {
  describe(`verify_otp (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    let contacts = 0;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      org = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    /** Sends an email OTP to a fresh address and reads the code from the email that arrives. */
    async function sendCode(
      credentials: Credentials = org,
      target: TestServer = server,
    ): Promise<{ otpId: string; code: string; contact: string }> {
      const contact = `user${++contacts}-${randomUUID().slice(0, 8)}@example.com`;
      const { activity } = (await target.client(credentials).initOtpAuth({
        type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
        timestampMs: String(Date.now()),
        organizationId: credentials.organizationId,
        parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Acme Wallet' },
      } as any)) as any;
      const otpId: string = activity.result.initOtpAuthResultV2.otpId;
      const mail = await smtp.waitForMailTo(contact);
      const code = CODE.exec(mail.text ?? '')?.[1];
      assert.ok(code, 'the email shows a 9-character Crockford code');
      return { otpId, code, contact };
    }

    let sequence = 0;
    /** A verify_otp body; each call gets its own timestampMs, so no two are the same activity by accident. */
    function verifyBody(parameters: Record<string, unknown>, credentials: Credentials = org) {
      return JSON.stringify({
        type: 'ACTIVITY_TYPE_VERIFY_OTP',
        timestampMs: String(Date.now() + ++sequence),
        organizationId: credentials.organizationId,
        parameters,
      });
    }

    async function submit(body: string, credentials: Credentials = org, baseUrl = server.baseUrl) {
      const stamp = await new ApiKeyStamper(credentials).stamp(body);
      const response = await fetch(`${baseUrl}${VERIFY_OTP}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body,
      });
      return { status: response.status, json: (await response.json()) as any };
    }

    const verify = (parameters: Record<string, unknown>, credentials: Credentials = org) =>
      submit(verifyBody(parameters, credentials), credentials);

    async function failedAttempts(otpId: string): Promise<number> {
      const [row] = await server.db.query<{ failed_attempts: number }>('SELECT failed_attempts FROM otps WHERE id = $1', [otpId]);
      return row!.failed_attempts;
    }

    /** The same length and alphabet as `code`, but another code. */
    function wrongCode(code: string, variant = 0): string {
      const symbols = 'ABCDEFGHJK';
      const last = symbols[variant % symbols.length]!;
      return code.slice(0, 8) + (code[8] === last ? symbols[(variant + 1) % symbols.length]! : last);
    }

    function assertRefused(result: { status: number; json: any }, status: number, pattern: RegExp) {
      assert.equal(result.status, status, JSON.stringify(result.json));
      assert.match(result.json.message, pattern);
    }

    test('the client library verifies the emailed code; jose verifies the token against the served JWKS', async () => {
      const startedAt = server.clock.now().getTime();
      const { otpId, code, contact } = await sendCode();
      const { activity } = (await server.client(org).verifyOtp({
        type: 'ACTIVITY_TYPE_VERIFY_OTP',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpId, otpCode: code },
      } as any)) as any;
      assert.equal(activity.type, 'ACTIVITY_TYPE_VERIFY_OTP');
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      // The code is not kept: the intent and the vote's message hold a redaction instead.
      assert.deepEqual(activity.intent.verifyOtpIntent, { otpId, otpCode: '[redacted]', expirationSeconds: '3600' });
      assert.equal(JSON.stringify(activity).includes(code), false);
      const [vote] = activity.votes;
      assert.equal(JSON.parse(vote.message).parameters.otpCode, '[redacted]');
      // The vote's signature still checks: it signs the SHA-256 of the bytes as sent, which the fingerprint holds.
      const digest = Buffer.from(activity.fingerprint.slice('sha256:'.length), 'hex');
      assert.equal(p256.verify(vote.signature, digest, vote.publicKey), true);
      assert.equal(p256.verify(vote.signature, createHash('sha256').update(vote.message).digest(), vote.publicKey), false);
      const token: string = activity.result.verifyOtpResult.verificationToken;

      const jwks = createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`));
      const { payload, protectedHeader } = await jwtVerify(token, jwks, { issuer: 'signet', algorithms: ['ES256'] });
      assert.equal(protectedHeader.alg, 'ES256');
      assert.equal(typeof protectedHeader.kid, 'string');
      assert.equal(payload.sub, otpId);
      assert.equal(payload.otp_id, otpId);
      assert.equal(payload.contact, contact);
      assert.equal(payload.otp_type, 'OTP_TYPE_EMAIL');
      assert.equal(payload.organization_id, org.organizationId);
      assert.equal(payload.exp! - payload.iat!, 3600);
      assert.ok(payload.iat! >= Math.floor(startedAt / 1000) && payload.iat! <= Math.ceil(server.clock.now().getTime() / 1000), `iat ${payload.iat}`);
      assert.match(String(payload.jti), /^[0-9a-f-]{36}$/);
      // The ecosystem's names for the token id and the channel, so its clients read them too.
      assert.equal(payload.id, payload.jti);
      assert.equal(payload.verification_type, 'OTP_TYPE_EMAIL');
      assert.equal('public_key' in payload, false);

      const document = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as any;
      assert.equal(document.keys.length, 1);
      const [key] = document.keys;
      assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      assert.equal(key.kid, protectedHeader.kid);
      assert.equal(key.alg, 'ES256');
      assert.equal(key.use, 'sig');

      // The private key is stored only sealed: the column is not a PKCS#8 key.
      const [stored] = await server.db.query<{ encrypted_private_key: string }>('SELECT encrypted_private_key FROM signing_keys');
      assert.throws(() =>
        createPrivateKey({ key: Buffer.from(stored!.encrypted_private_key, 'base64url'), format: 'der', type: 'pkcs8' }),
      );
    });

    test('publicKey and expirationSeconds reach the token; the public key is validated', async () => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const compressed = ecdh.getPublicKey('hex', 'compressed');
      const { otpId, code } = await sendCode();
      const body = verifyBody({ otpId, otpCode: code, expirationSeconds: '60', publicKey: compressed.toUpperCase() });
      const result = await submit(body);
      assert.equal(result.status, 200, JSON.stringify(result.json));
      assert.equal(result.json.activity.intent.verifyOtpIntent.publicKey, compressed);
      const jwks = createRemoteJWKSet(new URL(`${server.baseUrl}/.well-known/jwks.json`));
      const { payload } = await jwtVerify(result.json.activity.result.verifyOtpResult.verificationToken, jwks);
      assert.equal(payload.public_key, compressed);
      assert.equal(payload.exp! - payload.iat!, 60);
      // Bound to a key, the token logs in only with that key's signature: it is kept, and the same body again answers it.
      const again = await submit(body);
      assert.equal(again.json.activity.id, result.json.activity.id);
      assert.equal(again.json.activity.result.verifyOtpResult.verificationToken, result.json.activity.result.verifyOtpResult.verificationToken);

      // Uncompressed keys are accepted too; a point off the curve or a non-key is refused.
      const second = await sendCode();
      const uncompressed = ecdh.getPublicKey('hex', 'uncompressed');
      const accepted = await verify({ otpId: second.otpId, otpCode: second.code, publicKey: uncompressed });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
      const third = await sendCode();
      for (const publicKey of [`02${'ff'.repeat(32)}`, 'not-a-key', `04${'00'.repeat(64)}`]) {
        const refused = await verify({ otpId: third.otpId, otpCode: third.code, publicKey });
        assert.equal(refused.status, 400, JSON.stringify(refused.json));
        assert.equal(refused.json.details[0].fieldViolations[0].field, 'parameters.publicKey');
      }
      // A refused parameter spends no attempt.
      assert.equal(await failedAttempts(third.otpId), 0);
    });

    test('token lifetime is bounded to 24 hours', async () => {
      const { otpId, code } = await sendCode();
      for (const expirationSeconds of ['86401', '0', '-1', '3600.5', '1e3']) {
        const refused = await verify({ otpId, otpCode: code, expirationSeconds });
        assert.equal(refused.status, 400, JSON.stringify(refused.json));
        assert.equal(refused.json.details[0].fieldViolations[0].field, 'parameters.expirationSeconds');
      }
      const accepted = await verify({ otpId, otpCode: code, expirationSeconds: '86400' });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
    });

    test('lower case and the Crockford look-alikes I, L and O are read as 1, 1 and 0', async () => {
      const lower = await sendCode();
      const result = await verify({ otpId: lower.otpId, otpCode: lower.code.toLowerCase() });
      assert.equal(result.status, 200, JSON.stringify(result.json));

      // A code with ones and zeros, planted with the server's own secret, typed with look-alikes.
      const { otpId } = await sendCode();
      const secret = loadDeploymentSecret(server.config);
      await server.db.query('UPDATE otps SET code_hash = $2 WHERE id = $1', [otpId, hashOtpCode(secret, otpId, '10A1B0C1D')]);
      const lookAlikes = await verify({ otpId, otpCode: 'lOa-IbocLd' });
      assert.equal(lookAlikes.status, 200, JSON.stringify(lookAlikes.json));
    });

    test('a wrong code is a 400 and the attempt is counted although the request was refused', async () => {
      const { otpId, code } = await sendCode();
      const first = await verify({ otpId, otpCode: wrongCode(code) });
      assertRefused(first, 400, /is not the code that was sent; 4 attempts left/);
      assert.equal(first.json.details[0].fieldViolations[0].field, 'parameters.otpCode');
      assert.ok(!JSON.stringify(first.json).includes(code), 'the error does not reveal the code');
      assert.equal(await failedAttempts(otpId), 1);
      // The refused request left no activity behind.
      const activities = await server.db.query("SELECT id FROM activities WHERE type = 'ACTIVITY_TYPE_VERIFY_OTP' AND intent::jsonb->>'otpId' = $1", [otpId]);
      assert.equal(activities.length, 0);

      // A code of the wrong length cannot be the code: pointed out without spending an attempt.
      assertRefused(await verify({ otpId, otpCode: code.slice(0, 8) }), 400, /must be the 9 letters and digits/);
      assert.equal(await failedAttempts(otpId), 1);

      const right = await verify({ otpId, otpCode: code });
      assert.equal(right.status, 200, JSON.stringify(right.json));
    });

    test('after five wrong codes even the right one is refused', async () => {
      const { otpId, code } = await sendCode();
      for (let i = 0; i < 5; i++) {
        const result = await verify({ otpId, otpCode: wrongCode(code, i) });
        assertRefused(result, 400, i < 4 ? /is not the code that was sent/ : /that was the last attempt/);
      }
      assert.equal(await failedAttempts(otpId), 5);
      assertRefused(await verify({ otpId, otpCode: code }), 400, /too many wrong attempts; request a new code/);
      assert.equal(await failedAttempts(otpId), 5);
    });

    test('ten concurrent wrong codes: exactly five are checked, the rest refused, the OTP is dead', async () => {
      const { otpId, code } = await sendCode();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => verify({ otpId, otpCode: wrongCode(code, i) })));
      for (const r of results) assert.equal(r.status, 400, JSON.stringify(r.json));
      const checked = results.filter((r) => /is not the code that was sent/.test(r.json.message));
      assert.equal(checked.length, 5);
      assert.equal(results.filter((r) => /too many wrong attempts/.test(r.json.message)).length, 5);
      assert.equal(await failedAttempts(otpId), 5);
      assertRefused(await verify({ otpId, otpCode: code }), 400, /too many wrong attempts/);
    });

    test('a code is used once: a second verification is refused, the same body again returns the same activity', async () => {
      const { otpId, code } = await sendCode();
      const body = verifyBody({ otpId, otpCode: code });
      const first = await submit(body);
      assert.equal(first.status, 200, JSON.stringify(first.json));

      // The same bytes again is a client polling: the stored activity, whose token bound to no key
      // (a bearer secret) was not kept: the field is there, empty.
      const again = await submit(body);
      assert.equal(again.status, 200, JSON.stringify(again.json));
      assert.equal(again.json.activity.id, first.json.activity.id);
      assert.notEqual(first.json.activity.result.verifyOtpResult.verificationToken, '');
      assert.equal(again.json.activity.result.verifyOtpResult.verificationToken, '');

      // A new request with the same code is a second use.
      assertRefused(await verify({ otpId, otpCode: code }), 400, /already used; request a new code/);
    });

    test('an expired OTP is refused', async () => {
      const { otpId, code } = await sendCode();
      await server.db.query("UPDATE otps SET expires_at = now() - interval '1 second' WHERE id = $1", [otpId]);
      assertRefused(await verify({ otpId, otpCode: code }), 400, /expired; request a new code/);
      assert.equal(await failedAttempts(otpId), 0);
    });

    test("another organization's OTP and an unknown one are both not found", async () => {
      const { otpId, code } = await sendCode();
      const other = await server.createOrganization('Other');
      const foreign = await verify({ otpId, otpCode: code }, other);
      assertRefused(foreign, 404, /no OTP with id/);
      assert.equal(foreign.json.code, 5);
      assert.equal(await failedAttempts(otpId), 0);

      assertRefused(await verify({ otpId: randomUUID(), otpCode: code }), 404, /no OTP with id/);
      // The OTP is untouched by the other organization's attempt.
      assert.equal((await verify({ otpId, otpCode: code })).status, 200);
    });

    test('the parameters are checked: otpId a UUID, otpCode present and bounded, no unknown fields', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ otpId: 'otp-1', otpCode: '123456' }, 'parameters.otpId'],
        [{ otpId: randomUUID() }, 'parameters.otpCode'],
        [{ otpId: randomUUID(), otpCode: '   ' }, 'parameters.otpCode'],
        [{ otpId: randomUUID(), otpCode: 'A'.repeat(65) }, 'parameters.otpCode'],
        // Both shapes at once: taken as V2 (it has the bundle), where a code in clear has no place.
        [{ otpId: randomUUID(), otpCode: '123456', encryptedOtpBundle: 'x' }, 'parameters.otpCode'],
      ];
      for (const [parameters, field] of cases) {
        const result = await verify(parameters);
        assert.equal(result.status, 400, JSON.stringify(result.json));
        assert.ok(
          result.json.details[0].fieldViolations.some((v: { field: string }) => v.field === field),
          `${field} in ${JSON.stringify(result.json)}`,
        );
      }
    });

    test('another process on the same store serves the same JWKS and signs with the same key', async () => {
      const first = await sendCode();
      const firstResult = await verify({ otpId: first.otpId, otpCode: first.code });
      assert.equal(firstResult.status, 200, JSON.stringify(firstResult.json));
      const second = await startServer({ ...server.config, outboxWorker: false }, { db: server.db });
      try {
        const served = async (baseUrl: string) => (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as any;
        assert.deepEqual(await served(second.url), await served(server.baseUrl));
        const jwks = createRemoteJWKSet(new URL(`${second.url}/.well-known/jwks.json`));
        const token = firstResult.json.activity.result.verifyOtpResult.verificationToken;
        await jwtVerify(token, jwks, { issuer: 'signet' });

        const other = await sendCode();
        const result = await submit(verifyBody({ otpId: other.otpId, otpCode: other.code }), org, second.url);
        assert.equal(result.status, 200, JSON.stringify(result.json));
        const secondToken = result.json.activity.result.verifyOtpResult.verificationToken;
        assert.equal(decodeProtectedHeader(secondToken).kid, decodeProtectedHeader(token).kid);
      } finally {
        await second.close();
      }
    });

    test('two processes signing their first tokens at once create one key', async () => {
      const fresh = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      const second = await startServer({ ...fresh.config, outboxWorker: false }, { db: fresh.db });
      try {
        const freshOrg = await fresh.createOrganization('Race');
        const codes = await Promise.all(Array.from({ length: 6 }, () => sendCode(freshOrg, fresh)));
        const results = await Promise.all(
          codes.map(({ otpId, code }, i) =>
            submit(verifyBody({ otpId, otpCode: code }, freshOrg), freshOrg, i % 2 === 0 ? fresh.baseUrl : second.url),
          ),
        );
        for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.json));
        const kids = new Set(results.map((r) => decodeProtectedHeader(r.json.activity.result.verifyOtpResult.verificationToken).kid));
        assert.equal(kids.size, 1);
        assert.equal((await fresh.db.query('SELECT kid FROM signing_keys')).length, 1);
      } finally {
        await second.close();
        await fresh.close();
      }
    });
  });
}
