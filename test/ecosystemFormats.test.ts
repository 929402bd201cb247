// The OTP login formats judged by the unmodified @turnkey libraries: the target bundle by
// encryptOtpCodeToBundle (and its encrypted code decrypted back), verification tokens by
// verifyOtpVerificationToken and core's decoder, sessions by verifySessionJwtSignature and the
// clients' decoders, client signatures made by @turnkey/api-key-stamper.
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import {
  encryptOtpCodeToBundle,
  formatHpkeBuf,
  generateP256KeyPair,
  hpkeEncrypt,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { atob as turnkeyAtob } from '@turnkey/encoding';
import { SignJWT } from 'jose';
import { compressedPublicKeyHex, uncompressedPublicKeyHex } from '../src/keys/p256.ts';
import { clientSignatureProblem } from '../src/otp/clientSignature.ts';
import { signSession } from '../src/otp/session.ts';
import { createTargetKey, decryptOtpBundle, OtpBundleError, targetBundle } from '../src/otp/targetBundle.ts';
import { readVerificationToken, signEcosystemVerificationToken, signVerificationToken } from '../src/otp/verificationToken.ts';

function serviceKey(): { privateKey: KeyObject; publicKey: KeyObject; hex: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey, hex: uncompressedPublicKeyHex(publicKey) };
}

/** Flips the last hex digit (or base64url letter) of `text`. */
function changeLast(text: string): string {
  return text.replace(/.$/, (c) => (c === 'A' ? 'B' : c === '0' ? '1' : c === 'a' ? 'b' : c === '1' ? '0' : 'A'));
}

/** core's decodeVerificationToken / parseSession read a segment with @turnkey/encoding's atob (which drops - and _). */
const coreDecode = (segment: string) => JSON.parse(turnkeyAtob(segment));
/** sdk-browser's parseSession reads it with the global atob (which throws on - and _). */
const browserDecode = (segment: string) => JSON.parse(atob(segment));

describe('OTP target bundle and encrypted code', () => {
  const signer = serviceKey();
  const bundleSigner = { privateKey: signer.privateKey, publicKey: signer.hex };

  test('encryptOtpCodeToBundle accepts the bundle with Signet\'s key as override, and decryptOtpBundle returns the code and client key', async () => {
    const target = createTargetKey();
    assert.match(target.privateKey, /^[0-9a-f]{64}$/);
    assert.match(target.publicKey, /^04[0-9a-f]{128}$/);
    const otpId = randomUUID();
    const bundle = targetBundle(bundleSigner, { publicKey: target.publicKey, extra: { otpId, organizationId: 'org' } });
    const parsed = JSON.parse(bundle);
    assert.deepEqual(Object.keys(parsed), ['enclaveQuorumPublic', 'dataSignature', 'data']);
    assert.equal(parsed.enclaveQuorumPublic, signer.hex);
    assert.deepEqual(JSON.parse(Buffer.from(parsed.data, 'hex').toString('utf8')), { targetPublic: target.publicKey, otpId, organizationId: 'org' });

    const client = generateP256KeyPair();
    const encrypted = await encryptOtpCodeToBundle('K7Q2M9XH4', bundle, client.publicKey, signer.hex);
    assert.deepEqual(await decryptOtpBundle(encrypted, target.privateKey), { otpCode: 'K7Q2M9XH4', publicKey: client.publicKey });
  });

  test('a compressed target key goes into the bundle uncompressed, so the client\'s encryption decrypts', async () => {
    const target = createTargetKey();
    const compressed = compressedPublicKeyHex({
      x: Buffer.from(target.publicKey.slice(2, 66), 'hex').toString('base64url'),
      y: Buffer.from(target.publicKey.slice(66), 'hex').toString('base64url'),
    });
    const bundle = targetBundle(bundleSigner, { publicKey: compressed.toUpperCase() });
    assert.equal(JSON.parse(Buffer.from(JSON.parse(bundle).data, 'hex').toString()).targetPublic, target.publicKey);
    const client = generateP256KeyPair();
    const encrypted = await encryptOtpCodeToBundle('123456', bundle, client.publicKey, signer.hex);
    assert.equal((await decryptOtpBundle(encrypted, target.privateKey)).otpCode, '123456');
  });

  test('encryptOtpCodeToBundle refuses a bundle signed by another key', async () => {
    const target = createTargetKey();
    const other = serviceKey();
    const client = generateP256KeyPair();
    const foreign = targetBundle({ privateKey: other.privateKey, publicKey: other.hex }, { publicKey: target.publicKey });
    await assert.rejects(encryptOtpCodeToBundle('123456', foreign, client.publicKey, signer.hex), /does not match signer key/);
    // The same bundle claiming to come from Signet's key: its signature gives it away.
    const claimed = JSON.stringify({ ...JSON.parse(foreign), enclaveQuorumPublic: signer.hex });
    await assert.rejects(encryptOtpCodeToBundle('123456', claimed, client.publicKey, signer.hex), /signature verification failed/);
    // Without the override the library expects the hosted service's key.
    await assert.rejects(encryptOtpCodeToBundle('123456', targetBundle(bundleSigner, { publicKey: target.publicKey }), client.publicKey), /does not match signer key/);
  });

  test('targetBundle refuses a signer publicKey that is not the lowercase uncompressed hex of its private key', () => {
    const { publicKey } = createTargetKey();
    assert.throws(() => targetBundle({ privateKey: signer.privateKey, publicKey: compressedPublicKeyHex(signer.publicKey) }, { publicKey }), /lowercase uncompressed hex/);
    assert.throws(() => targetBundle({ privateKey: signer.privateKey, publicKey: signer.hex.toUpperCase() }, { publicKey }), /lowercase uncompressed hex/);
    assert.throws(() => targetBundle({ privateKey: signer.privateKey, publicKey: serviceKey().hex }, { publicKey }), /lowercase uncompressed hex/);
    assert.throws(() => targetBundle(bundleSigner, { publicKey: '04' + '00'.repeat(64) }), /not a P-256 public key/);
    assert.throws(() => targetBundle(bundleSigner, { publicKey, extra: { targetPublic: publicKey } }), /cannot replace targetPublic/);
  });

  async function encryptedFor(target: { publicKey: string }, code = 'ABCDEF123') {
    return encryptOtpCodeToBundle(code, targetBundle(bundleSigner, target), generateP256KeyPair().publicKey, signer.hex);
  }

  async function bundleError(bundle: string, privateKey: string): Promise<OtpBundleError> {
    try {
      await decryptOtpBundle(bundle, privateKey);
    } catch (error) {
      assert.ok(error instanceof OtpBundleError, `expected an OtpBundleError, got ${error}`);
      return error;
    }
    assert.fail('decryptOtpBundle accepted the bundle');
  }

  test('a changed ciphertext or another OTP\'s key cannot decrypt, and the error does not repeat the code', async () => {
    const target = createTargetKey();
    const encrypted = await encryptedFor(target, 'SECRET999');
    const parsed = JSON.parse(encrypted);
    for (const [what, bundle, key] of [
      ['changed ciphertext', JSON.stringify({ ...parsed, ciphertext: changeLast(parsed.ciphertext) }), target.privateKey],
      ['changed encappedPublic', JSON.stringify({ ...parsed, encappedPublic: createTargetKey().publicKey }), target.privateKey],
      ["another OTP's key", encrypted, createTargetKey().privateKey],
    ] as const) {
      const error = await bundleError(bundle, key);
      assert.equal(error.kind, 'undecryptable', what);
      assert.match(error.message, /cannot be decrypted with this OTP's key/, what);
      assert.doesNotMatch(error.message, /SECRET999/);
    }
  });

  test('odd bundles are refused as malformed, each with its reason', async () => {
    const target = createTargetKey();
    const { encappedPublic, ciphertext } = JSON.parse(await encryptedFor(target));
    const offCurve = '04' + '11'.repeat(64);
    const cases: Array<[string, unknown, RegExp]> = [
      ['empty', '', /non-empty string/],
      ['not a string', 42, /non-empty string/],
      ['oversized', JSON.stringify({ encappedPublic, ciphertext: ciphertext + '0'.repeat(5000) }), /longer than 4096/],
      ['not JSON', 'encappedPublic=04', /not JSON/],
      ['an array', '[]', /JSON object/],
      ['an extra field', JSON.stringify({ encappedPublic, ciphertext, otpId: 'x' }), /exactly the fields/],
      ['a missing field', JSON.stringify({ encappedPublic }), /exactly the fields/],
      ['a compressed encappedPublic', JSON.stringify({ encappedPublic: '02' + encappedPublic.slice(2, 66), ciphertext }), /uncompressed P-256 point/],
      ['an encappedPublic off the curve', JSON.stringify({ encappedPublic: offCurve, ciphertext }), /uncompressed P-256 point/],
      ['odd-length ciphertext', JSON.stringify({ encappedPublic, ciphertext: ciphertext + '0' }), /ciphertext must be hex/],
      ['non-hex ciphertext', JSON.stringify({ encappedPublic, ciphertext: 'zz' + ciphertext.slice(2) }), /ciphertext must be hex/],
      ['a ciphertext shorter than a tag and the shortest plaintext', JSON.stringify({ encappedPublic, ciphertext: ciphertext.slice(0, 60) }), /ciphertext must be hex of 47 to 1024 bytes/],
      ['a ciphertext longer than 1 KiB', JSON.stringify({ encappedPublic, ciphertext: 'ab'.repeat(1025) }), /ciphertext must be hex of 47 to 1024 bytes/],
    ];
    for (const [what, bundle, message] of cases) {
      const error = await bundleError(bundle as string, target.privateKey);
      assert.equal(error.kind, 'malformed', what);
      assert.match(error.message, message, what);
    }
  });

  test('a decrypted plaintext that is not {otp_code, public_key} is refused', async () => {
    const target = createTargetKey();
    const client = generateP256KeyPair().publicKey;
    const encrypt = (plaintext: string) =>
      formatHpkeBuf(hpkeEncrypt({ plainTextBuf: new TextEncoder().encode(plaintext), targetKeyBuf: Buffer.from(target.publicKey, 'hex') }));
    const cases: Array<[string, string, RegExp]> = [
      ['not JSON', `otp_code=123456&public_key=${client}xxxxxxxxx`, /not JSON/],
      ['no public_key', JSON.stringify({ otp_code: '123456', publicKey: client }), /exactly the fields otp_code and public_key/],
      ['an extra field', JSON.stringify({ otp_code: '123456', public_key: client, x: 1 }), /exactly the fields/],
      ['a numeric code', JSON.stringify({ otp_code: 123456, public_key: client }), /otp_code must be a string of 1 to 64/],
      ['a 65-character code', JSON.stringify({ otp_code: '1'.repeat(65), public_key: client }), /otp_code must be a string of 1 to 64/],
      ['a key that is not a point', JSON.stringify({ otp_code: '123456', public_key: '02' + 'ff'.repeat(32) }), /public_key must be a P-256 public key/],
    ];
    for (const [what, plaintext, message] of cases) {
      const error = await bundleError(encrypt(plaintext), target.privateKey);
      assert.equal(error.kind, 'plaintext', what);
      assert.match(error.message, message, what);
    }
    // The encoding the library writes itself is read back.
    assert.deepEqual(await decryptOtpBundle(encrypt(JSON.stringify({ otp_code: '1'.repeat(64), public_key: client })), target.privateKey), {
      otpCode: '1'.repeat(64),
      publicKey: client,
    });
  });
});

describe('verification tokens', () => {
  const key = { kid: randomUUID(), ...serviceKey() };
  const keys: Array<{ kid: string; publicKey: KeyObject }> = [{ kid: key.kid, publicKey: key.publicKey }];
  const now = new Date();
  const claims = (overrides: Partial<Parameters<typeof signEcosystemVerificationToken>[1]> = {}) => ({
    id: randomUUID(),
    verificationType: 'OTP_TYPE_EMAIL',
    contact: 'user@example.com',
    organizationId: randomUUID(),
    publicKey: generateP256KeyPair().publicKey,
    expiresAt: new Date(now.getTime() + 3_600_000),
    otpId: randomUUID(),
    issuedAt: now,
    ...overrides,
  });

  test('verifyOtpVerificationToken accepts the ecosystem format with Signet\'s key in either form', async () => {
    const c = claims();
    const token = signEcosystemVerificationToken(key, c);
    const expected = {
      id: c.id,
      verification_type: 'OTP_TYPE_EMAIL',
      contact: 'user@example.com',
      organization_id: c.organizationId,
      public_key: c.publicKey,
      exp: String(c.expiresAt.getTime()),
      otp_id: c.otpId,
      iat: Math.floor(now.getTime() / 1000),
    };
    assert.deepEqual(await verifyOtpVerificationToken(token, key.hex), expected);
    assert.deepEqual(await verifyOtpVerificationToken(token, compressedPublicKeyHex(key.publicKey)), expected);
    assert.deepEqual(coreDecode(token.split('.')[0]!), { alg: 'ES256', typ: 'JWT', kid: key.kid });
    await assert.rejects(verifyOtpVerificationToken(token, serviceKey().hex), /signature is invalid/);
    const expired = signEcosystemVerificationToken(key, claims({ expiresAt: new Date(Date.now() - 1000) }));
    await assert.rejects(verifyOtpVerificationToken(expired, key.hex), /expired/);
  });

  test('claims with > ? ~ and non-ASCII characters read the same through core\'s and the browser\'s base64 decoders', async () => {
    // Each awkward character once at every offset of a base64 group of three.
    for (const prefix of ['', 'a', 'ab']) {
      const c = claims({ contact: `${prefix}~?>\u007fé名😀@example.com` });
      const token = signEcosystemVerificationToken(key, c);
      const [header, payload] = token.split('.') as [string, string];
      assert.doesNotMatch(header + payload, /[-_]/);
      assert.equal(coreDecode(payload).contact, c.contact);
      assert.equal(browserDecode(payload).contact, c.contact);
      assert.equal((await verifyOtpVerificationToken(token, key.hex)).contact, c.contact);
      const read = readVerificationToken(token, keys, now);
      assert.ok('claims' in read, JSON.stringify(read));
      assert.equal(read.claims.contact, c.contact);
    }
  });

  test('readVerificationToken reads both formats into the same claims', async () => {
    const c = claims();
    assert.deepEqual(readVerificationToken(signEcosystemVerificationToken(key, c), keys, now), {
      format: 'ecosystem',
      claims: { id: c.id, otpId: c.otpId, verificationType: c.verificationType, contact: c.contact, organizationId: c.organizationId, publicKey: c.publicKey, expiresAt: c.expiresAt },
    });

    for (const publicKey of [c.publicKey, undefined]) {
      const first = await signVerificationToken(key, {
        otpId: c.otpId,
        contact: c.contact,
        otpType: 'OTP_TYPE_SMS',
        organizationId: c.organizationId,
        ...(publicKey === undefined ? {} : { publicKey }),
        issuedAt: now,
        expirationSeconds: 600,
      });
      const read = readVerificationToken(first, keys, now);
      assert.ok('claims' in read, JSON.stringify(read));
      assert.equal(read.format, 'signet');
      // Why the ecosystem format exists: the library refuses Signet's first one (exp in seconds).
      await assert.rejects(verifyOtpVerificationToken(first, key.hex), publicKey === undefined ? /missing required 'public_key' claim/ : /missing required 'exp' claim/);
      const jti = coreDecode(first.split('.')[1]!).jti;
      assert.deepEqual(read.claims, {
        id: jti,
        otpId: c.otpId,
        verificationType: 'OTP_TYPE_SMS',
        contact: c.contact,
        organizationId: c.organizationId,
        ...(publicKey === undefined ? {} : { publicKey }),
        expiresAt: new Date((Math.floor(now.getTime() / 1000) + 600) * 1000),
      });
    }
  });

  test('readVerificationToken refuses a changed byte, an expired token, an unknown key and odd tokens', async () => {
    const token = signEcosystemVerificationToken(key, claims());
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const otherPayload = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('OTP_TYPE_EMAIL', 'OTP_TYPE_SMS')).toString('base64url');
    const first = await signVerificationToken(key, { otpId: randomUUID(), contact: 'a@b.c', otpType: 'OTP_TYPE_EMAIL', organizationId: 'o', issuedAt: now, expirationSeconds: 60 });
    const problem = (t: unknown, at = now, k: typeof keys = keys) => {
      const read = readVerificationToken(t, k, at);
      assert.ok('problem' in read, `accepted: ${JSON.stringify(read)}`);
      return read.problem;
    };
    assert.match(problem(`${header}.${otherPayload}.${signature}`), /does not verify/);
    assert.match(problem(`${header}.${payload}.${changeLast(signature.slice(0, 40)) + signature.slice(40)}`), /does not verify/);
    assert.match(problem(`${header}.${payload}.${signature.slice(0, -2)}`), /64 bytes/);
    assert.match(problem(token, new Date(now.getTime() + 3_600_000)), /expired/);
    assert.match(problem(first, new Date(now.getTime() + 60_000)), /expired/);
    assert.ok('claims' in readVerificationToken(first, keys, new Date(now.getTime() + 59_000)));
    assert.match(problem(token, now, [{ kid: 'another', publicKey: key.publicKey }]), /key this service does not know/);
    assert.match(problem(token, now, [{ kid: key.kid, publicKey: serviceKey().publicKey }]), /does not verify/);
    assert.match(problem(token + 'A'.repeat(8192)), /longer than 8192/);
    assert.match(problem(`${header}.${payload}`), /three base64url parts/);
    assert.match(problem(`${header}.${payload}.${signature}=`), /three base64url parts/);
    assert.match(problem(42), /non-empty string/);
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid: key.kid })).toString('base64url');
    assert.match(problem(`${none}.${payload}.${signature}`), /alg ES256 and typ JWT/);
  });

  test('a token without kid is checked with each given key', async () => {
    const other = serviceKey();
    const unnamed = await new SignJWT({ otp_id: 'otp', contact: 'a@b.c', otp_type: 'OTP_TYPE_EMAIL', organization_id: 'o' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer('signet')
      .setJti('token')
      .setExpirationTime(Math.floor(now.getTime() / 1000) + 60)
      .sign(key.privateKey);
    const read = readVerificationToken(unnamed, [{ kid: 'x', publicKey: other.publicKey }, ...keys], now);
    assert.ok('claims' in read, JSON.stringify(read));
    assert.equal(read.claims.id, 'token');
    assert.ok('problem' in readVerificationToken(unnamed, [{ kid: 'x', publicKey: other.publicKey }], now));
  });
});

describe('session JWTs', () => {
  const notarizer = serviceKey();
  const expiresAt = new Date(Date.now() + 900_000);

  test('verifySessionJwtSignature accepts the session with Signet\'s session key in either form, and no other', async () => {
    const session = signSession(notarizer, { publicKey: generateP256KeyPair().publicKey, userId: randomUUID(), organizationId: randomUUID(), expiresAt });
    assert.equal(await verifySessionJwtSignature(session, notarizer.hex), true);
    assert.equal(await verifySessionJwtSignature(session, compressedPublicKeyHex(notarizer.publicKey)), true);
    assert.equal(await verifySessionJwtSignature(session, serviceKey().hex), false);
    const [header, payload, signature] = session.split('.') as [string, string, string];
    const changed = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('READ_WRITE', 'READ_ONLY')).toString('base64url');
    assert.equal(await verifySessionJwtSignature(`${header}.${changed}.${signature}`, notarizer.hex), false);
    // What it checks is the double hash: a standard ES256 signature over the same input fails.
    const standard = sign('sha256', Buffer.from(`${header}.${payload}`), { key: notarizer.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    assert.equal(await verifySessionJwtSignature(`${header}.${payload}.${standard}`, notarizer.hex), false);
  });

  test('the clients\' decoders read the claims: exp in seconds, public_key exactly as sent', () => {
    const publicKey = generateP256KeyPair().publicKey.replace(/^(..)(.*)$/, (_, p, rest) => p + rest.toUpperCase());
    const userId = randomUUID();
    const organizationId = randomUUID();
    const readWrite = signSession(notarizer, { publicKey, userId, organizationId, expiresAt });
    const readOnly = signSession(notarizer, { publicKey, userId, organizationId, expiresAt, sessionType: 'SESSION_TYPE_READ_ONLY' });
    const expected = { exp: Math.floor(expiresAt.getTime() / 1000), public_key: publicKey, session_type: 'SESSION_TYPE_READ_WRITE', user_id: userId, organization_id: organizationId };
    for (const decode of [coreDecode, browserDecode]) {
      assert.deepEqual(decode(readWrite.split('.')[0]!), { alg: 'ES256', typ: 'JWT' });
      assert.deepEqual(decode(readWrite.split('.')[1]!), expected);
      assert.deepEqual(decode(readOnly.split('.')[1]!), { ...expected, session_type: 'SESSION_TYPE_READ_ONLY' });
    }
  });

  test('awkward characters in the ids still read the same in both decoders', () => {
    for (const prefix of ['', 'a', 'ab']) {
      const userId = `${prefix}~?>é`;
      const session = signSession(notarizer, { publicKey: '02' + 'ab'.repeat(32), userId, organizationId: 'o', expiresAt });
      const payload = session.split('.')[1]!;
      assert.doesNotMatch(session.split('.').slice(0, 2).join('.'), /[-_]/);
      assert.equal(coreDecode(payload).user_id, userId);
      assert.equal(browserDecode(payload).user_id, userId);
    }
  });
});

describe('otp_login client signatures', () => {
  const tokenKey = { kid: 'k', ...serviceKey() };
  const client = generateP256KeyPair();
  const stamper = new ApiKeyStamper({ apiPublicKey: client.publicKey, apiPrivateKey: client.privateKey });
  const token = signEcosystemVerificationToken(tokenKey, {
    id: randomUUID(),
    verificationType: 'OTP_TYPE_EMAIL',
    contact: 'user@example.com',
    organizationId: randomUUID(),
    publicKey: client.publicKey,
    expiresAt: new Date(Date.now() + 60_000),
    otpId: randomUUID(),
  });
  const tokenId = coreDecode(token.split('.')[1]!).id as string;

  /** The message core's getClientSignatureMessageForLogin builds: the token decoded as core decodes it. */
  function loginMessage(sessionPublicKey?: string, overrides: object = {}): string {
    const decoded = coreDecode(token.split('.')[1]!);
    return JSON.stringify({ login: { publicKey: sessionPublicKey || decoded.public_key }, tokenId: decoded.id, type: 'USAGE_TYPE_LOGIN', ...overrides });
  }
  async function signed(message: string, format = SignatureFormat.Raw, by: ApiKeyStamper = stamper, publicKey = client.publicKey) {
    return { publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature: await by.sign(message, format) };
  }
  const expected = (sessionPublicKey = client.publicKey, id = tokenId) => ({ tokenId: id, tokenPublicKey: client.publicKey, sessionPublicKey });

  test('the api-key-stamper\'s raw and DER signatures over the login message are accepted', async () => {
    const raw = await signed(loginMessage());
    assert.match(raw.signature, /^[0-9a-f]{128}$/);
    assert.equal(clientSignatureProblem(raw, expected()), undefined);
    const der = await signed(loginMessage(), SignatureFormat.Der);
    assert.match(der.signature, /^30/);
    assert.equal(clientSignatureProblem(der, expected()), undefined);
    // Another session key, named in the message.
    const session = generateP256KeyPair().publicKey;
    assert.equal(clientSignatureProblem(await signed(loginMessage(session)), expected(session)), undefined);
    // The token's key in another spelling is the same key.
    assert.equal(clientSignatureProblem({ ...raw, publicKey: client.publicKey.toUpperCase() }, expected()), undefined);
    assert.equal(clientSignatureProblem({ ...raw, publicKey: client.publicKeyUncompressed }, expected()), undefined);
  });

  test('a wrong token id, usage type, login key or signer is refused, naming the check', async () => {
    const other = generateP256KeyPair();
    const otherStamper = new ApiKeyStamper({ apiPublicKey: other.publicKey, apiPrivateKey: other.privateKey });
    const raw = await signed(loginMessage());
    const cases: Array<[string, unknown, ReturnType<typeof expected>, RegExp]> = [
      ['another token', raw, expected(client.publicKey, randomUUID()), /tokenId must be the verification token's id/],
      ['a signup message', await signed(loginMessage(undefined, { type: 'USAGE_TYPE_SIGNUP' })), expected(), /type must be USAGE_TYPE_LOGIN/],
      ['another session key', raw, expected(other.publicKey), /login.publicKey must be the publicKey this login asks/],
      ['another signer claiming the token key', await signed(loginMessage(), SignatureFormat.Raw, otherStamper), expected(), /does not verify/],
      ['another signer under its own key', await signed(loginMessage(), SignatureFormat.Raw, otherStamper, other.publicKey), expected(), /must be the key the verification token is bound to/],
      ['a changed message', { ...raw, message: raw.message.replace('"type"', ' "type"') }, expected(), /does not verify/],
      ['another scheme', { ...raw, scheme: 'SIGNATURE_SCHEME_TK_API_P256' }, expected(), /scheme must be CLIENT_SIGNATURE_SCHEME_API_P256/],
      ['an extra field', { ...raw, extra: 1 }, expected(), /unknown field "extra"/],
      ['a missing signature', { ...raw, signature: undefined }, expected(), /signature must be a non-empty string/],
      ['not an object', 'signature', expected(), /must be an object/],
      ['a signature that is not hex', { ...raw, signature: 'zz'.repeat(64) }, expected(), /must be hex: raw r‖s \(128 characters\) or DER/],
      ['an extra field in the message', await signed(loginMessage(undefined, { scope: 'all' })), expected(), /fields besides login, tokenId and type/],
      ['a message that is not JSON', await signed('login please'), expected(), /not JSON/],
      ['an oversized message', await signed(loginMessage() + ' '.repeat(1024)), expected(), /longer than 1024/],
      ['a token bound to no key', raw, { ...expected(), tokenPublicKey: '' }, /bound to no P-256 key/],
    ];
    for (const [what, signature, want, message] of cases) {
      assert.match(clientSignatureProblem(signature, want) ?? 'accepted', message, what);
    }
  });

  test('a DER signature must be strict DER', async () => {
    const der = await signed(loginMessage(), SignatureFormat.Der);
    const bytes = Buffer.from(der.signature, 'hex');
    // The same r and s with a superfluous leading zero on r: BER, not DER.
    const rLength = bytes[3]!;
    const r = bytes.subarray(4, 4 + rLength);
    const rest = bytes.subarray(4 + rLength);
    const loose = Buffer.concat([Buffer.from([0x30, bytes[1]! + 1, 0x02, rLength + 1, 0x00]), r, rest]);
    assert.match(clientSignatureProblem({ ...der, signature: loose.toString('hex') }, expected()) ?? 'accepted', /neither raw r‖s \(64 bytes\) nor valid DER: r has a superfluous leading zero/);
  });
});
