// The auth handlers' rules, read from their effects as plain data (no store): init_otp_auth's checks,
// the rate windows it takes a send from (per channel, in order), its OTP row and queued message; the
// OTP's and the verification token's one use; the session plans' checks, rows and lock; and which
// result fields are bearer secrets. Handlers that read an OTP or a user first are given those rows by
// a stand-in store answering the one query each makes (`rowsStore`); every other query fails.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { initOtp } from '../src/activities/handlers/auth/initOtp.ts';
import { initOtpAuth } from '../src/activities/handlers/auth/initOtpAuth.ts';
import { otpAuth } from '../src/activities/handlers/auth/otpAuth.ts';
import { claimGate, MAX_FAILED_ATTEMPTS } from '../src/activities/handlers/auth/otpCheck.ts';
import { otpLogin } from '../src/activities/handlers/auth/otpLogin.ts';
import { stampLogin } from '../src/activities/handlers/auth/stampLogin.ts';
import { verifyOtp } from '../src/activities/handlers/auth/verifyOtp.ts';
import { createReadOnlySession } from '../src/activities/handlers/auth/createReadOnlySession.ts';
import { createReadWriteSession } from '../src/activities/handlers/auth/createReadWriteSession.ts';
import { emailAuth } from '../src/activities/handlers/auth/emailAuth.ts';
import type { ActivityPlan, ExecutionContext } from '../src/activities/handler.ts';
import type { ServiceKeys } from '../src/activities/lifecycle/serviceKeys.ts';
import type { Principal } from '../src/auth/principal.ts';
import { loadConfig } from '../src/config.ts';
import { SignetError } from '../src/errors.ts';
import { p256PointHex, uncompressedPublicKeyHex } from '../src/keys/p256.ts';
import { hashOtpCode } from '../src/otp/code.ts';
import type { StoredPayload } from '../src/otp/messages.ts';
import { readReadOnlySession } from '../src/otp/readOnlySession.ts';
import { decryptCode } from '../src/otp/sealedCode.ts';
import { signSession } from '../src/otp/session.ts';
import { signVerificationToken } from '../src/otp/verificationToken.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf, rulesContext, USER_ID } from './support/handlerRules.ts';

const SECRET = Buffer.alloc(32, 7);
const EMAIL = { otpType: 'OTP_TYPE_EMAIL', contact: 'Alice@Example.com', appName: 'Acme Wallet' } as const;
const SMS = { otpType: 'OTP_TYPE_SMS', contact: '+1 415 555 2671', appName: 'Acme Wallet' } as const;
const TEMPLATE = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const OTP_ID = '3c9a1e2b-7d4f-4a6b-8c2d-1e0f9a8b7c6d';
const ALICE = '0c9a3f5e-7b1d-4c2e-8f6a-5d4e3c2b1a09';
// Real points: the curve's generator (compressed and uncompressed) and its double.
const SESSION_KEY = '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296';
const SESSION_KEY_UNCOMPRESSED = p256PointHex(SESSION_KEY)!.uncompressed;
const TARGET_KEY = '037cf27b188d034f7e8a52380304b51ac3c08969e277f21b35a60b48fc47669978';

/** The service's keys, one P-256 key for every purpose. */
const signer = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keys = {
  get: async () => ({ kid: 'rules', privateKey: signer.privateKey, publicJwk: {}, publicKeyHex: uncompressedPublicKeyHex(signer.privateKey) }),
  verifiers: async () => [{ kid: 'rules', publicKey: signer.publicKey }],
} as unknown as ServiceKeys;

/** A store answering each query whose text matches a key with its rows; any other query fails. */
function rowsStore(answers: Record<string, Array<Record<string, unknown>>>): ExecutionContext['db'] {
  return {
    async query(text: string) {
      const hit = Object.keys(answers).find((key) => text.includes(key));
      if (!hit) throw new Error(`unexpected query: ${text}`);
      return answers[hit] as never;
    },
    exec: () => Promise.reject(new Error('no scripts')),
  };
}

/** An unused OTP of the organization for `contact` whose code is `code`. */
function otpRow(contact: string, code: string, otpType = 'OTP_TYPE_EMAIL') {
  return {
    id: OTP_ID,
    otp_type: otpType,
    contact,
    code_hash: hashOtpCode(SECRET, OTP_ID, code),
    otp_length: code.length,
    alphanumeric: false,
    expires_at: new Date(NOW.getTime() + 60_000),
    failed_attempts: 0,
    used_at: null,
    target_private_key: null,
  };
}

const takeRefusal = (plan: ActivityPlan, index: number, detail: unknown): SignetError => effectsOf(plan, 'take')[index]!.error(detail);

describe('init_otp_auth', () => {
  test('an email code: no check unless asked, one send from the address\'s window, the OTP row and its message', async () => {
    const plan = await planOf(initOtpAuth, EMAIL);
    const otpId = (plan.result as { otpId: string }).otpId;
    assert.deepEqual(checksOf(plan), []);
    assert.deepEqual(
      effectsOf(plan, 'take').map((t) => [t.name, t.args]),
      [['rateWindow', [`contact:OTP_TYPE_EMAIL:${ORGANIZATION_ID}:alice@example.com`, { count: 10, windowSeconds: 3600 }]]],
    );
    assert.equal(plan.secretFields, undefined, 'the otpId is no secret');

    const [insert] = effectsOf(plan, 'write');
    assert.equal(insert?.name, 'insertOtp');
    const row = insert!.args[0] as Record<string, unknown>;
    assert.deepEqual({ ...row, codeHash: undefined }, {
      id: otpId,
      organizationId: ORGANIZATION_ID,
      otpType: 'OTP_TYPE_EMAIL',
      contact: 'alice@example.com',
      codeHash: undefined,
      otpLength: 9,
      alphanumeric: true,
      userIdentifier: undefined,
      expiresAt: new Date(NOW.getTime() + 300_000),
      createdAt: NOW,
    });

    const [queued] = effectsOf(plan, 'queue');
    const message = queued!.message;
    assert.deepEqual({ ...message, id: undefined, payload: undefined }, {
      id: undefined,
      organizationId: ORGANIZATION_ID,
      otpId,
      channel: 'email',
      payload: undefined,
      emailTemplate: { organizationId: ORGANIZATION_ID, templateId: undefined },
    });
    const payload = message.payload as StoredPayload;
    assert.deepEqual({ ...payload, encryptedCode: undefined }, {
      channel: 'email',
      to: 'alice@example.com',
      appName: 'Acme Wallet',
      fromName: 'Notifications',
      expirationSeconds: 300,
      encryptedCode: undefined,
    });
    // The code sent is the code whose hash the OTP row keeps.
    const code = decryptCode(SECRET, message.id, payload.encryptedCode!);
    assert.match(code, /^[0-9A-Z]{9}$/);
    assert.equal(row.codeHash, hashOtpCode(SECRET, otpId, code));
  });

  test('a sender address needs its domain registered, a template id the template, in that order; the message takes that template', async () => {
    const plan = await planOf(initOtpAuth, { ...EMAIL, sendFromEmailAddress: 'Hello@Acme.Example', emailCustomization: { templateId: TEMPLATE } });
    assert.deepEqual(checksOf(plan), [
      {
        name: 'senderDomainRegistered',
        args: [ORGANIZATION_ID, 'acme.example'],
        message:
          `parameters.sendFromEmailAddress: domain acme.example is not registered for this organization; register it with ` +
          `\`signet sender-domain add --org ${ORGANIZATION_ID} --domain acme.example\` (POST /admin/v1/organizations/{id}/sender-domains) or omit sendFromEmailAddress`,
      },
      {
        name: 'emailTemplateExists',
        args: [ORGANIZATION_ID, TEMPLATE],
        message: `parameters.emailCustomization.templateId: no email template with id ${TEMPLATE} exists for this organization; list them with "signet template list --org ID", or omit templateId to use the most recent one`,
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'check').map((c) => c.error.fieldViolations.map((v) => v.field)), [['parameters.sendFromEmailAddress'], ['parameters.emailCustomization.templateId']]);
    assert.deepEqual(effectsOf(plan, 'queue')[0]!.message.emailTemplate, { organizationId: ORGANIZATION_ID, templateId: TEMPLATE });
  });

  test('an SMS takes from the userIdentifier\'s window first, then the phone number\'s; the message takes no email template', async () => {
    const plan = await planOf(initOtpAuth, { ...SMS, userIdentifier: 'client-ip-hash', otpLength: 6, alphanumeric: false });
    assert.deepEqual(
      effectsOf(plan, 'take').map((t) => t.args),
      [
        [`user_identifier:OTP_TYPE_SMS:${ORGANIZATION_ID}:client-ip-hash`, { count: 5, windowSeconds: 600 }],
        [`contact:OTP_TYPE_SMS:${ORGANIZATION_ID}:+14155552671`, { count: 5, windowSeconds: 3600 }],
      ],
    );
    const [queued] = effectsOf(plan, 'queue');
    assert.equal(queued!.message.channel, 'sms');
    assert.equal('emailTemplate' in queued!.message, false);
    assert.equal((queued!.message.payload as StoredPayload).to, '+14155552671');
    assert.equal((effectsOf(plan, 'write')[0]!.args[0] as { userIdentifier?: string }).userIdentifier, 'client-ip-hash');

    const alone = await planOf(initOtpAuth, SMS);
    assert.deepEqual(effectsOf(alone, 'take').map((t) => t.args[0]), [`contact:OTP_TYPE_SMS:${ORGANIZATION_ID}:+14155552671`]);
  });

  test('a window names the organization in lowercase; a spent one is a 429 naming its limit, retry at least 1 s', async () => {
    const plan = await planOf(initOtpAuth, { ...SMS, userIdentifier: 'u' }, { organizationId: ORGANIZATION_ID.toUpperCase() });
    assert.deepEqual(effectsOf(plan, 'take').map((t) => t.args[0]), [`user_identifier:OTP_TYPE_SMS:${ORGANIZATION_ID}:u`, `contact:OTP_TYPE_SMS:${ORGANIZATION_ID}:+14155552671`]);
    const spent = takeRefusal(plan, 0, 42);
    assert.equal(spent.status, 429);
    assert.equal(spent.reason, 'OTP_RATE_LIMITED');
    assert.equal(spent.retryAfterSeconds, 42);
    assert.equal(spent.message, 'Max number of OTPs have been initiated: too many SMS codes for this userIdentifier: at most 5 every 600 seconds; retry in 42 seconds');
    assert.match(takeRefusal(plan, 1, null).message, /this phone number: at most 5 every 3600 seconds; retry in 1 seconds$/);
    assert.equal(takeRefusal(plan, 1, null).retryAfterSeconds, 1);
  });

  test('an http logo is refused before anything is planned, unless SIGNET_ALLOW_HTTP_LOGOS', async () => {
    const http = { ...EMAIL, emailCustomization: { logoUrl: 'http://acme.example/logo.png' } };
    await assert.rejects(planOf(initOtpAuth, http), (error: SignetError) => error.fieldViolations[0]?.field === 'parameters.emailCustomization.logoUrl');
    const allowed = await planOf(initOtpAuth, http, { config: { ...rulesContext(initOtpAuth).config, allowHttpLogos: true } });
    assert.equal((effectsOf(allowed, 'queue')[0]!.message.payload as StoredPayload & { logoUrl?: string }).logoUrl, 'http://acme.example/logo.png');
  });

  test("init_otp plans init_otp_auth's effects, its OTP row keeping the target key", async () => {
    const plan = await planOf(initOtp, { ...EMAIL, sendFromEmailAddress: 'a@acme.example' }, { keys, secret: SECRET });
    assert.deepEqual(checksOf(plan).map((c) => c.name), ['senderDomainRegistered']);
    assert.deepEqual(effectsOf(plan, 'take').map((t) => t.args[0]), [`contact:OTP_TYPE_EMAIL:${ORGANIZATION_ID}:alice@example.com`]);
    const row = effectsOf(plan, 'write')[0]!.args[0] as { targetPrivateKey?: { hex: string; secret: Buffer } };
    assert.match(row.targetPrivateKey!.hex, /^[0-9a-f]{64}$/);
    assert.equal(row.targetPrivateKey!.secret, SECRET);
    assert.equal(effectsOf(plan, 'queue').length, 1);
  });
});

describe("an OTP's one use (verify_otp, otp_auth)", () => {
  const field = 'parameters.otpCode';
  const take = claimGate(rulesContext(verifyOtp), OTP_ID, field) as Extract<ReturnType<typeof claimGate>, { kind: 'take' }>;
  const refusal = (state: unknown) => take.error(state);

  test('takes the OTP while unused, unexpired and under five wrong codes', () => {
    assert.equal(take.name, 'otp');
    assert.deepEqual(take.args, [ORGANIZATION_ID, OTP_ID, NOW, MAX_FAILED_ATTEMPTS]);
    assert.equal(MAX_FAILED_ATTEMPTS, 5);
  });

  test("a refusal says why from the OTP's state then, naming the field", () => {
    const later = new Date(NOW.getTime() + 1000).toISOString();
    const reasons = [
      refusal({ usedAt: NOW.toISOString(), expiresAt: later, failedAttempts: 0 }),
      refusal({ usedAt: null, expiresAt: NOW.toISOString(), failedAttempts: 0 }),
      refusal({ usedAt: null, expiresAt: later, failedAttempts: 5 }),
      // Usable as read: a concurrent right code used it first.
      refusal({ usedAt: null, expiresAt: later, failedAttempts: 1 }),
    ];
    assert.deepEqual(reasons.map((r) => r.reason), ['OTP_ALREADY_USED', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXHAUSTED', 'OTP_ALREADY_USED']);
    assert.ok(reasons.every((r) => r.status === 400 && r.fieldViolations[0]?.field === field));
  });
});

describe('verify_otp V1 (the OTP read first)', () => {
  const db = rowsStore({ 'FROM otps': [otpRow('alice@example.com', '123456')] });

  test('the right code takes the OTP; a token bound to no key is a secret of this answer, one bound to a key is not', async () => {
    const bearer = await planOf(verifyOtp, { otpId: OTP_ID, otpCode: '123 456' }, { db, keys, secret: SECRET });
    assert.deepEqual(bearer.effects.map((e) => e.kind), ['take']);
    assert.deepEqual(effectsOf(bearer, 'take')[0]!.args, [ORGANIZATION_ID, OTP_ID, NOW, MAX_FAILED_ATTEMPTS]);
    assert.deepEqual(bearer.secretFields, ['verificationToken']);
    const bound = await planOf(verifyOtp, { otpId: OTP_ID, otpCode: '123456', publicKey: SESSION_KEY }, { db, keys, secret: SECRET });
    assert.equal(bound.secretFields, undefined);
  });
});

describe('otp_auth (the OTP and the user read first)', () => {
  const db = rowsStore({ 'FROM otps': [otpRow('alice@example.com', '123456')], 'FROM users': [{ id: ALICE, user_name: 'alice' }] });
  const context = { db, keys, secret: SECRET };

  test("the user must still be active; the OTP is taken; the key is written, the contact marked verified; the bundle is secret", async () => {
    const plan = await planOf(otpAuth, { otpId: OTP_ID, otpCode: '123456', targetPublicKey: TARGET_KEY }, context);
    const result = plan.result as { userId: string; apiKeyId: string };
    assert.equal(result.userId, ALICE);
    assert.deepEqual(plan.secretFields, ['credentialBundle']);
    assert.deepEqual(checksOf(plan), [
      { name: 'userActive', args: [ORGANIZATION_ID, ALICE], message: 'the user with the email address alice@example.com was removed; create the user again, then send a new code' },
    ]);
    assert.deepEqual(effectsOf(plan, 'take').map((t) => [t.name, t.args]), [['otp', [ORGANIZATION_ID, OTP_ID, NOW, MAX_FAILED_ATTEMPTS]]]);
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['markUserContactVerified', 'insertApiKeys']);
    const [organizationId, [key], now] = writes[1]!.args as unknown as [string, Array<Record<string, unknown>>, Date];
    assert.deepEqual([organizationId, now], [ORGANIZATION_ID, NOW]);
    assert.deepEqual({ ...key, publicKey: undefined }, {
      id: result.apiKeyId,
      userId: ALICE,
      name: `OTP Auth - ${NOW.toISOString()}`,
      publicKey: undefined,
      expiresAt: new Date(NOW.getTime() + 900_000),
      kind: 'otp_auth',
    });
    assert.deepEqual(writes[0]!.args, [ORGANIZATION_ID, ALICE, { email: 'alice@example.com' }, NOW]);
    assert.deepEqual(effectsOf(plan, 'lock'), []);
  });

  test("invalidateExisting revokes the user's other otp_auth keys, the new one kept, under the lock of the user's keys", async () => {
    const plan = await planOf(otpAuth, { otpId: OTP_ID, otpCode: '123456', targetPublicKey: TARGET_KEY, invalidateExisting: true }, context);
    const writes = effectsOf(plan, 'write');
    const newKey = (writes[1]!.args[1] as Array<{ publicKey: string }>)[0]!.publicKey;
    assert.deepEqual(writes.map((w) => w.name), ['markUserContactVerified', 'insertApiKeys', 'revokeOtherOtpAuthKeys']);
    assert.deepEqual(writes[2]!.args, [{ organizationId: ORGANIZATION_ID, userId: ALICE, keepPublicKey: newKey, now: NOW }]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, ALICE]]]);
  });
});

describe('stamp_login (the session plans)', () => {
  test('the stamping user must be active and the key free (checked compressed); the session key is registered until the session ends', async () => {
    const plan = await planOf(stampLogin, { publicKey: SESSION_KEY_UNCOMPRESSED, expirationSeconds: '60' }, { keys });
    assert.deepEqual(checksOf(plan), [
      { name: 'userActive', args: [ORGANIZATION_ID, USER_ID], message: `user ${USER_ID} was removed; it can no longer log in` },
      {
        name: 'sessionKeyAvailable',
        args: [ORGANIZATION_ID, USER_ID, SESSION_KEY],
        message:
          "parameters.publicKey: is already a key of this organization, its parent or one of their sub-organizations (an API key, or another user's session key); create a new key pair for the session",
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'check').map((c) => c.error.reason), ['USER_NOT_FOUND', 'PUBLIC_KEY_TAKEN']);
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['registerSessionKey']);
    const { id, ...registered } = writes[0]!.args[0] as { id: string };
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(registered, { organizationId: ORGANIZATION_ID, userId: USER_ID, publicKey: SESSION_KEY, expiresAt: new Date(NOW.getTime() + 60_000), now: NOW });
    assert.deepEqual(effectsOf(plan, 'take'), []);
    assert.deepEqual(effectsOf(plan, 'lock'), []);
    // The session names the key as it was sent; it is no bearer secret (the key's holder alone can stamp).
    const claims = JSON.parse(Buffer.from((plan.result as { session: string }).session.split('.')[1]!, 'base64url').toString('utf8'));
    assert.equal(claims.public_key, SESSION_KEY_UNCOMPRESSED);
    assert.equal(plan.secretFields, undefined);
  });

  test("invalidateExisting ends the user's other sessions, this key kept, under the lock of the user's keys", async () => {
    const plan = await planOf(stampLogin, { publicKey: SESSION_KEY, invalidateExisting: true }, { keys });
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['registerSessionKey', 'revokeOtherSessionKeys']);
    assert.deepEqual(writes[1]!.args, [{ organizationId: ORGANIZATION_ID, userId: USER_ID, keepPublicKey: SESSION_KEY, now: NOW }]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, USER_ID]]]);
  });

  test('a session profile is refused before anything is planned', async () => {
    await assert.rejects(planOf(stampLogin, { publicKey: SESSION_KEY, sessionProfileId: 'p' }, { keys }), (error: SignetError) => error.fieldViolations[0]?.field === 'parameters.sessionProfileId');
  });

  test("an attested stamp takes its token's one login use and proves its contact for the user", async () => {
    const tokenId = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
    const expiresAt = new Date(NOW.getTime() + 3_600_000);
    const context = rulesContext(stampLogin, { keys });
    const principal: Principal = {
      ...context.principal,
      scheme: 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN',
      attestedContact: { email: 'alice@example.com' },
      credential: { kind: 'verificationToken', tokenId, expiresAt, now: NOW },
    };
    const plan = await stampLogin.execute({ ...context, principal }, stampLogin.parameters.parse({ publicKey: SESSION_KEY }), undefined);
    const [used] = effectsOf(plan, 'take');
    assert.equal(used!.name, 'verificationToken');
    assert.deepEqual(used!.args, [{ id: tokenId, organizationId: ORGANIZATION_ID, expiresAt }, 'login', context.activityId, NOW]);
    const replayed = used!.error(NOW.toISOString());
    assert.deepEqual([replayed.status, replayed.reason], [401, 'VERIFICATION_TOKEN_USED']);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.name === 'markUserContactVerified' ? w.args : undefined]), [
      ['registerSessionKey', undefined],
      ['markUserContactVerified', [ORGANIZATION_ID, USER_ID, { email: 'alice@example.com' }, NOW]],
    ]);
  });
});

describe('otp_login (the user read first)', () => {
  test("the token's contact's user must be active and the key free; the token's one login use is taken; the contact is proven for that user", async () => {
    const verificationToken = await signVerificationToken(await keys.get('verification-token'), {
      otpId: OTP_ID,
      contact: 'alice@example.com',
      otpType: 'OTP_TYPE_EMAIL',
      organizationId: ORGANIZATION_ID,
      issuedAt: NOW,
      expirationSeconds: 600,
    });
    const tokenId = JSON.parse(Buffer.from(verificationToken.split('.')[1]!, 'base64url').toString('utf8')).id as string;
    const db = rowsStore({ 'FROM users': [{ id: ALICE, user_name: 'alice' }] });
    const context = rulesContext(otpLogin, { db, keys });
    const plan = await otpLogin.execute(context, otpLogin.parameters.parse({ verificationToken, publicKey: SESSION_KEY, invalidateExisting: true }), undefined);
    assert.deepEqual(checksOf(plan).map((c) => [c.name, c.args]), [
      ['userActive', [ORGANIZATION_ID, ALICE]],
      ['sessionKeyAvailable', [ORGANIZATION_ID, ALICE, SESSION_KEY]],
    ]);
    assert.match(checksOf(plan)[0]!.message, /^the user with the email address alice@example.com was removed/);
    const [used] = effectsOf(plan, 'take');
    assert.deepEqual(used!.args, [{ id: tokenId, organizationId: ORGANIZATION_ID, expiresAt: new Date(NOW.getTime() + 600_000) }, 'login', context.activityId, NOW]);
    assert.equal(used!.error(null).fieldViolations[0]?.field, 'parameters.verificationToken');
    assert.deepEqual(effectsOf(plan, 'write').map((w) => w.name), ['registerSessionKey', 'revokeOtherSessionKeys', 'markUserContactVerified']);
    assert.deepEqual(effectsOf(plan, 'write')[2]!.args, [ORGANIZATION_ID, ALICE, { email: 'alice@example.com' }, NOW]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, ALICE]]]);
    assert.equal(plan.secretFields, undefined);
  });
});

describe('create_read_write_session and create_read_only_session (the names read first)', () => {
  // What findWhoamiFor's statement answers: the credential usable, then the organization's and the user's names.
  const db = rowsStore({ 'WITH credential AS': [{ credential_ok: true, body_row: true, organization_name: 'Acme', user_name: 'rules' }] });

  test("a session key of the stamping user by default, expiring with the session, its bundle secret; invalidateExisting ends the user's other sessions under the lock of its keys", async () => {
    const plan = await planOf(createReadWriteSession, { targetPublicKey: TARGET_KEY, expirationSeconds: '60' }, { db, keys });
    const result = plan.result as { userId: string; apiKeyId: string; organizationName: string; username: string };
    assert.deepEqual([result.userId, result.organizationName, result.username], [USER_ID, 'Acme', 'rules']);
    assert.deepEqual(plan.secretFields, ['credentialBundle']);
    assert.deepEqual(checksOf(plan).map((c) => [c.name, c.args]), [['userActive', [ORGANIZATION_ID, USER_ID]]]);
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['insertApiKeys']);
    const [, [key]] = writes[0]!.args as unknown as [string, Array<Record<string, unknown>>];
    assert.deepEqual({ ...key, publicKey: undefined }, {
      id: result.apiKeyId,
      userId: USER_ID,
      name: `Read Write Session - ${NOW.toISOString()}`,
      publicKey: undefined,
      expiresAt: new Date(NOW.getTime() + 60_000),
      kind: 'session',
    });
    assert.deepEqual(effectsOf(plan, 'lock'), []);

    const other = '5d2c8e4a-1b3f-4a6c-9e7d-2f1a0b9c8d7e';
    const ending = await planOf(createReadWriteSession, { targetPublicKey: TARGET_KEY, userId: other, invalidateExisting: true }, { db, keys });
    const endingWrites = effectsOf(ending, 'write');
    assert.deepEqual(endingWrites.map((w) => w.name), ['insertApiKeys', 'revokeOtherSessionKeys']);
    const newKey = (endingWrites[0]!.args[1] as Array<{ publicKey: string }>)[0]!.publicKey;
    assert.deepEqual(endingWrites[1]!.args, [{ organizationId: ORGANIZATION_ID, userId: other, keepPublicKey: newKey, now: NOW }]);
    assert.deepEqual(effectsOf(ending, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, other]]]);
  });

  test('a read-only session is a token of the stamping user for an hour, secret, that reads back only unchanged and unexpired', async () => {
    const plan = await planOf(createReadOnlySession, {}, { db, keys });
    const result = plan.result as { session: string; sessionExpiry: string; userId: string };
    assert.deepEqual(plan.secretFields, ['session']);
    assert.deepEqual(checksOf(plan).map((c) => [c.name, c.args]), [['userActive', [ORGANIZATION_ID, USER_ID]]]);
    assert.equal(result.sessionExpiry, String(NOW.getTime() / 1000 + 3600));
    const verifiers = await keys.verifiers('session');
    assert.deepEqual(readReadOnlySession(result.session, verifiers, NOW), {
      claims: { userId: USER_ID, organizationId: ORGANIZATION_ID, expiresAt: new Date(NOW.getTime() + 3_600_000) },
    });
    const [header, payload, signature] = result.session.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const otherUser = Buffer.from(JSON.stringify({ ...claims, user_id: ALICE })).toString('base64url');
    assert.equal((readReadOnlySession(`${header}.${otherUser}.${signature}`, verifiers, NOW) as { kind: string }).kind, 'signature');
    assert.equal((readReadOnlySession(result.session, verifiers, new Date(NOW.getTime() + 3_600_000)) as { kind: string }).kind, 'expired');
    // A read-write session's JWT (no kid, another signature) is no read-only session.
    const readWrite = signSession(await keys.get('session'), { publicKey: SESSION_KEY, userId: USER_ID, organizationId: ORGANIZATION_ID, expiresAt: new Date(NOW.getTime() + 60_000) });
    assert.equal((readReadOnlySession(readWrite, verifiers, NOW) as { kind: string }).kind, 'malformed');
  });
});

describe('email_auth (the user read first)', () => {
  const db = rowsStore({ 'FROM users': [{ id: ALICE, user_name: 'alice' }] });

  test("the user must be active; a send taken from the address's OTP email window; the key written; the bundle only in the sealed email", async () => {
    const plan = await planOf(
      emailAuth,
      { email: 'Alice@Example.com', targetPublicKey: TARGET_KEY, emailCustomization: { appName: 'Acme Wallet' }, invalidateExisting: true },
      { db, keys, secret: SECRET },
    );
    assert.deepEqual(plan.result, { userId: ALICE, apiKeyId: (plan.result as { apiKeyId: string }).apiKeyId });
    assert.equal(plan.secretFields, undefined);
    assert.deepEqual(checksOf(plan).map((c) => [c.name, c.args]), [['userActive', [ORGANIZATION_ID, ALICE]]]);
    const [window] = effectsOf(plan, 'take');
    assert.deepEqual(window!.args, [`contact:OTP_TYPE_EMAIL:${ORGANIZATION_ID}:alice@example.com`, loadConfig({}).otpRateLimits.emailPerContact]);
    assert.equal(window!.error('30').reason, 'OTP_RATE_LIMITED');
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(writes.map((w) => w.name), ['insertApiKeys', 'revokeOtherEmailAuthKeys']);
    const [, [key]] = writes[0]!.args as unknown as [string, Array<{ kind: string; name: string; expiresAt: Date }>];
    assert.deepEqual([key!.kind, key!.name, key!.expiresAt], ['email_auth', `Email Auth - ${NOW.toISOString()}`, new Date(NOW.getTime() + 900_000)]);
    assert.deepEqual(effectsOf(plan, 'lock').map((l) => [l.name, l.args]), [['userApiKeys', [ORGANIZATION_ID, ALICE]]]);

    const [queued] = effectsOf(plan, 'queue');
    const payload = queued!.message.payload as StoredPayload;
    assert.equal(queued!.message.emailTemplate, undefined);
    assert.deepEqual({ ...payload, encryptedCode: undefined }, {
      channel: 'email',
      purpose: 'email_auth',
      to: 'alice@example.com',
      appName: 'Acme Wallet',
      fromName: 'Notifications',
      expirationSeconds: 900,
      encryptedCode: undefined,
    });
    // What is sealed is a credential bundle: base58check, far longer than any code.
    assert.match(decryptCode(SECRET, queued!.message.id, payload.encryptedCode!), /^[1-9A-HJ-NP-Za-km-z]{100,}$/);
  });
});
