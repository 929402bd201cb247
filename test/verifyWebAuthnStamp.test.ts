// WebAuthn stamps and registrations against a software passkey and the real
// @turnkey/webauthn-stamper: the happy paths, and a 401 (400 for registration) naming each failed check.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { parseStamp, type WebAuthnStamp } from '../src/auth/parseStamp.ts';
import { verifiedRegistration } from '../src/activities/handlers/credentials/passkeyRegistration.ts';
import { verifyWebAuthnStamp, type RegisteredAuthenticator } from '../src/auth/verifyWebAuthnStamp.ts';
import { SignetError, type StampFailureReason } from '../src/errors.ts';
import { hasEveryShape, nonCanonicalEncodings } from './support/derEncodings.ts';
import {
  createSoftwareAuthenticator,
  v1Attestation,
  webauthnStamperFor,
  type SoftwareAuthenticator,
} from './support/softwareAuthenticator.ts';

const rpId = 'signet.example';
const origin = 'https://signet.example';
const options = { origins: ['https://other.example', origin], rpId };
const body = Buffer.from('{"type":"ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE","timestampMs":"1767225600000"}');

/** The challenge a WebAuthn stamp signs: the UTF-8 bytes of the body's lowercase hex SHA-256. */
function challengeOf(bytes: Buffer): Uint8Array {
  return new TextEncoder().encode(createHash('sha256').update(bytes).digest('hex'));
}

function stampOf(assertion: Omit<WebAuthnStamp, 'kind'>): WebAuthnStamp {
  return { kind: 'webauthn', ...assertion };
}

/** The refusal expected; `reason` is what signet_stamp_failures_total counts it as. */
function rejected(status: number, pattern: RegExp, reason?: StampFailureReason) {
  return (error: unknown) => {
    assert.ok(error instanceof SignetError, `not a SignetError: ${String(error)}`);
    assert.equal(error.status, status);
    assert.match(error.message, pattern);
    if (reason !== undefined) assert.equal(error.stampFailure, reason);
    return true;
  };
}

/** A pattern matching `text` as it is. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An assertion over `body` whose DER signature has the shape the test needs (ECDSA signatures vary). */
function assertionWhere(authenticator: SoftwareAuthenticator, shape: (der: Buffer) => boolean): WebAuthnStamp {
  for (let attempt = 0; attempt < 200; attempt++) {
    const stamp = stampOf(authenticator.assert(challengeOf(body)));
    if (shape(Buffer.from(stamp.signature, 'base64url'))) return stamp;
  }
  throw new Error('no assertion of the wanted shape in 200 attempts');
}

async function registered(authenticator: SoftwareAuthenticator): Promise<RegisteredAuthenticator> {
  const challenge = Buffer.from('registration challenge 0123456789').toString('base64url');
  const credential = await verifiedRegistration(authenticator.register(challenge), {
    expectedChallenge: challenge,
    origins: options.origins,
    rpId,
  });
  return { credentialId: credential.credentialId, publicKey: credential.publicKey, signCount: credential.signCount };
}

describe('verifyWebAuthnStamp', () => {
  let authenticator: SoftwareAuthenticator;
  let stored: RegisteredAuthenticator;

  before(async () => {
    authenticator = createSoftwareAuthenticator({ rpId, origin });
    stored = await registered(authenticator);
  });

  test('an assertion by the software authenticator verifies and reports its counter', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(body)));
    const { newSignCount } = await verifyWebAuthnStamp(body, stamp, stored, options);
    assert.equal(newSignCount, authenticator.counter);
    assert.ok(newSignCount > 0);
  });

  test('a stamp made by the real WebauthnStamper verifies', async () => {
    const { stampHeaderName, stampHeaderValue } = await webauthnStamperFor(authenticator, rpId).stamp(body.toString('utf8'));
    assert.equal(stampHeaderName, 'X-Stamp-Webauthn');
    const stamp = parseStamp({ [stampHeaderName.toLowerCase()]: stampHeaderValue }) as WebAuthnStamp;
    assert.equal(stamp.kind, 'webauthn');
    assert.equal(stamp.credentialId, stored.credentialId);
    const { newSignCount } = await verifyWebAuthnStamp(body, stamp, stored, options);
    assert.equal(newSignCount, authenticator.counter);
  });

  test('the navigator stand-in is gone once the stamp is made', () => {
    assert.equal((globalThis as { navigator?: { credentials?: unknown } }).navigator?.credentials, undefined);
  });

  test('wrong challenge: an assertion over another body', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(Buffer.from('{"other":"body"}'))));
    const expected = createHash('sha256').update(body).digest('hex');
    await assert.rejects(
      verifyWebAuthnStamp(body, stamp, stored, options),
      rejected(401, new RegExp(`^wrong challenge: .*lowercase hex SHA-256 of the request body \\(${expected}\\)`), 'webauthn_challenge'),
    );
  });

  test('wrong challenge: the raw digest bytes instead of their hex text', async () => {
    const stamp = stampOf(authenticator.assert(createHash('sha256').update(body).digest()));
    await assert.rejects(verifyWebAuthnStamp(body, stamp, stored, options), rejected(401, /^wrong challenge/, 'webauthn_challenge'));
  });

  test('wrong origin', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(body), { origin: 'https://evil.example' }));
    await assert.rejects(
      verifyWebAuthnStamp(body, stamp, stored, options),
      rejected(401, /^wrong origin: clientDataJSON.origin "https:\/\/evil.example" is not an accepted origin \(https:\/\/other.example, https:\/\/signet.example\)/, 'webauthn_origin'),
    );
  });

  test('wrong RP ID, from the software authenticator and from a WebauthnStamper configured for another RP', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(body), { rpId: 'evil.example' }));
    await assert.rejects(verifyWebAuthnStamp(body, stamp, stored, options), rejected(401, /^wrong RP ID: .*"signet.example"/, 'webauthn_rp_id'));

    const { stampHeaderValue } = await webauthnStamperFor(authenticator, 'evil.example').stamp(body.toString('utf8'));
    const fromStamper = parseStamp({ 'x-stamp-webauthn': stampHeaderValue }) as WebAuthnStamp;
    await assert.rejects(verifyWebAuthnStamp(body, fromStamper, stored, options), rejected(401, /^wrong RP ID/, 'webauthn_rp_id'));
  });

  test('wrong type: a registration-type clientDataJSON', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(body), { type: 'webauthn.create' }));
    await assert.rejects(
      verifyWebAuthnStamp(body, stamp, stored, options),
      rejected(401, /^wrong type: clientDataJSON.type is "webauthn.create", expected "webauthn.get"/, 'webauthn_type'),
    );
  });

  test('user not present: the UP flag is missing', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(body), { userPresent: false }));
    await assert.rejects(verifyWebAuthnStamp(body, stamp, stored, options), rejected(401, /^user not present/, 'webauthn_user_not_present'));
  });

  test('counter went backwards, or did not move', async () => {
    const seen = { ...stored, signCount: 7 };
    for (const counter of [3, 7]) {
      const stamp = stampOf(authenticator.assert(challengeOf(body), { counter }));
      await assert.rejects(
        verifyWebAuthnStamp(body, stamp, seen, options),
        rejected(401, new RegExp(`^counter went backwards: the authenticator's signature counter is ${counter} but 7`), 'replayed'),
      );
    }
    const zero = stampOf(authenticator.assert(challengeOf(body), { counter: 0 }));
    await assert.rejects(verifyWebAuthnStamp(body, zero, seen, options), rejected(401, /^counter went backwards/, 'replayed'));
    const next = stampOf(authenticator.assert(challengeOf(body), { counter: 8 }));
    assert.deepEqual(await verifyWebAuthnStamp(body, next, seen, options), { newSignCount: 8 });
  });

  test('an authenticator without a counter (always 0) is accepted while the stored counter is 0', async () => {
    const stamp = stampOf(authenticator.assert(challengeOf(body), { counter: 0 }));
    assert.deepEqual(await verifyWebAuthnStamp(body, stamp, { ...stored, signCount: 0 }, options), { newSignCount: 0 });
    assert.deepEqual(await verifyWebAuthnStamp(body, stamp, { ...stored, signCount: 0 }, options), { newSignCount: 0 });
  });

  test('the counter is only judged once the signature holds', async () => {
    const other = createSoftwareAuthenticator({ rpId, origin });
    const forged = stampOf({ ...other.assert(challengeOf(body), { counter: 1 }), credentialId: stored.credentialId });
    await assert.rejects(
      verifyWebAuthnStamp(body, forged, { ...stored, signCount: 5 }, options),
      rejected(401, /^bad signature/, 'bad_signature'),
    );
  });

  test('bad signature: another key, a flipped bit, signed data altered', async () => {
    const other = createSoftwareAuthenticator({ rpId, origin });
    const otherKey = stampOf({ ...other.assert(challengeOf(body)), credentialId: stored.credentialId });
    await assert.rejects(verifyWebAuthnStamp(body, otherKey, stored, options), rejected(401, /^bad signature: the WebAuthn signature does not verify/, 'bad_signature'));

    const good = stampOf(authenticator.assert(challengeOf(body)));
    const signature = Buffer.from(good.signature, 'base64url');
    signature[10]! ^= 0x01;
    const flipped = { ...good, signature: signature.toString('base64url') };
    await assert.rejects(verifyWebAuthnStamp(body, flipped, stored, options), rejected(401, /^bad signature/, 'bad_signature'));


    // A higher counter written into authenticatorData after signing: the signature covers it.
    const authData = Buffer.from(good.authenticatorData, 'base64url');
    authData.writeUInt32BE(authData.readUInt32BE(33) + 100, 33);
    const altered = { ...good, authenticatorData: authData.toString('base64url') };
    await assert.rejects(verifyWebAuthnStamp(body, altered, stored, options), rejected(401, /^bad signature/, 'bad_signature'));
  });

  test('an ECDSA signature in any encoding but strict DER is malformed, though it carries a valid (r, s)', async () => {
    const good = assertionWhere(authenticator, hasEveryShape);
    const encodings = nonCanonicalEncodings(Buffer.from(good.signature, 'base64url'));
    encodings.push({ name: 'not DER at all', signature: Buffer.alloc(64, 7), problem: 'it must start with a SEQUENCE' });
    for (const { name, signature, problem } of encodings) {
      await assert.rejects(
        verifyWebAuthnStamp(body, { ...good, signature: signature.toString('base64url') }, stored, options),
        rejected(401, new RegExp(`^WebAuthn signature is not a strict DER ECDSA signature \\(${literal(problem)}\\);`), 'malformed'),
        name,
      );
    }
    assert.ok((await verifyWebAuthnStamp(body, good, stored, options)).newSignCount > 0, 'the unaltered assertion verifies');
  });

  test('ES384 and ES512 passkeys: strict DER by their own curve; an EdDSA signature is not DER and is left alone', async () => {
    for (const algorithm of ['ES384', 'ES512', 'EdDSA'] as const) {
      const passkey = createSoftwareAuthenticator({ rpId, origin, algorithm });
      const key: RegisteredAuthenticator = { credentialId: passkey.credentialId, publicKey: passkey.cosePublicKey, signCount: 0 };
      const good = stampOf(passkey.assert(challengeOf(body)));
      assert.deepEqual(await verifyWebAuthnStamp(body, good, key, options), { newSignCount: 1 }, algorithm);
      if (algorithm === 'EdDSA') {
        assert.equal(Buffer.from(good.signature, 'base64url').length, 64);
        continue;
      }
      const signature = Buffer.from(good.signature, 'base64url');
      signature[0] = 0xb0;
      await assert.rejects(
        verifyWebAuthnStamp(body, { ...good, signature: signature.toString('base64url') }, key, options),
        rejected(401, /^WebAuthn signature is not a strict DER ECDSA signature \(it must start with a SEQUENCE\)/, 'malformed'),
        algorithm,
      );
    }
    // P-521 signatures are long enough to need the long-form SEQUENCE length, and get it.
    const es512 = createSoftwareAuthenticator({ rpId, origin, algorithm: 'ES512' });
    const long = assertionWhere(es512, (der) => der[1] === 0x81);
    const key = { credentialId: es512.credentialId, publicKey: es512.cosePublicKey, signCount: 0 };
    assert.ok((await verifyWebAuthnStamp(body, long, key, options)).newSignCount > 0);
  });

  test('a stamp for another credential, or with clientDataJson that is not JSON', async () => {
    const good = stampOf(authenticator.assert(challengeOf(body)));
    await assert.rejects(
      verifyWebAuthnStamp(body, { ...good, credentialId: 'AAAA' }, stored, options),
      rejected(401, /credentialId is not the credential/),
    );
    await assert.rejects(
      verifyWebAuthnStamp(body, { ...good, clientDataJson: Buffer.from('not json').toString('base64url') }, stored, options),
      rejected(401, /clientDataJson does not decode to UTF-8 JSON/),
    );
  });
});

describe('verifyAuthenticatorRegistration', () => {
  const challenge = Buffer.from('a fresh registration challenge').toString('base64url');
  const verifyOptions = { expectedChallenge: challenge, origins: [origin], rpId };

  test('attestation "none" from a passkey registers: ID, COSE key, counter, transports, AAGUID', async () => {
    const authenticator = createSoftwareAuthenticator({ rpId, origin });
    const credential = await verifiedRegistration(authenticator.register(challenge), verifyOptions);
    assert.equal(credential.credentialId, authenticator.credentialId);
    assert.ok(credential.publicKey instanceof Uint8Array);
    assert.equal(credential.publicKey[0], 0xa5); // a CBOR map of the five COSE EC2 members
    assert.equal(credential.signCount, 0);
    assert.deepEqual(credential.transports, ['internal', 'hybrid']);
    assert.equal(credential.aaguid, '00000000-0000-0000-0000-000000000000');

    // The stored key verifies the same authenticator's later assertions.
    const stamp = stampOf(authenticator.assert(challengeOf(body)));
    assert.deepEqual(await verifyWebAuthnStamp(body, stamp, { ...credential }, options), { newSignCount: 1 });
  });

  test('wrong challenge, origin and RP ID are 400 naming the check', async () => {
    const authenticator = createSoftwareAuthenticator({ rpId, origin });
    const response = authenticator.register(challenge);
    await assert.rejects(
      verifiedRegistration(response, { ...verifyOptions, expectedChallenge: 'b3RoZXItY2hhbGxlbmdl' }),
      rejected(400, /^attestation: wrong challenge/),
    );
    await assert.rejects(
      verifiedRegistration(response, { ...verifyOptions, origins: ['https://other.example'] }),
      rejected(400, /^attestation: wrong origin/),
    );
    await assert.rejects(
      verifiedRegistration(response, { ...verifyOptions, rpId: 'other.example' }),
      rejected(400, /^attestation: wrong RP ID/),
    );
  });

  test('malformed input is 400 naming the field', async () => {
    const response = createSoftwareAuthenticator({ rpId, origin }).register(challenge);
    const cases: [unknown, RegExp][] = [
      [null, /^attestation: /],
      ['a string', /^attestation: /],
      [{ ...response, response: undefined }, /^attestation\.response: /],
      [{ ...response, type: 'password' }, /^attestation\.type: must be "public-key"/],
      [{ ...response, response: { ...response.response, clientDataJSON: 'not base64url!' } }, /^attestation\.response\.clientDataJSON: must be base64url/],
      [{ ...response, response: { ...response.response, attestationObject: 'AAAA' } }, /^attestation: registration rejected/],
      [{ ...response, response: { ...response.response, clientDataJSON: Buffer.from('{').toString('base64url') } }, /^attestation: registration rejected/],
    ];
    for (const [input, pattern] of cases) {
      await assert.rejects(verifiedRegistration(input, verifyOptions), rejected(400, pattern));
    }
  });

  test('an id that is not the credential inside authenticatorData is 400', async () => {
    const response = createSoftwareAuthenticator({ rpId, origin }).register(challenge);
    const otherId = Buffer.alloc(32, 1).toString('base64url');
    await assert.rejects(
      verifiedRegistration({ ...response, id: otherId, rawId: otherId }, verifyOptions),
      rejected(400, /^attestation\.id: is not the credential ID inside authenticatorData/),
    );
  });

  test("the ecosystem's shape (createUserPasskey's attestation) registers the same credential, transports as W3C values", async () => {
    const authenticator = createSoftwareAuthenticator({ rpId, origin });
    const response = authenticator.register(challenge);
    const attestation = v1Attestation(response);
    assert.deepEqual(attestation.transports, ['AUTHENTICATOR_TRANSPORT_INTERNAL', 'AUTHENTICATOR_TRANSPORT_HYBRID']);
    const credential = await verifiedRegistration(attestation, verifyOptions);
    assert.deepEqual(credential, await verifiedRegistration(response, verifyOptions));
    assert.deepEqual(credential.transports, ['internal', 'hybrid']);

    const stamp = stampOf(authenticator.assert(challengeOf(body)));
    assert.deepEqual(await verifyWebAuthnStamp(body, stamp, { ...credential }, options), { newSignCount: 1 });

    // Every transport name maps; none or an empty list is no transport; a W3C JSON that carries the
    // ecosystem's names is stored the same way.
    const all = ['USB', 'NFC', 'BLE', 'HYBRID', 'INTERNAL'].map((name) => `AUTHENTICATOR_TRANSPORT_${name}`);
    assert.deepEqual((await verifiedRegistration({ ...attestation, transports: all }, verifyOptions)).transports, [
      'usb', 'nfc', 'ble', 'hybrid', 'internal',
    ]);
    const { transports: _, ...withoutTransports } = attestation;
    assert.deepEqual((await verifiedRegistration(withoutTransports, verifyOptions)).transports, []);
    assert.deepEqual((await verifiedRegistration({ ...attestation, transports: [] }, verifyOptions)).transports, []);
    const mixed = { ...response, response: { ...response.response, transports: ['AUTHENTICATOR_TRANSPORT_USB', 'nfc'] } };
    assert.deepEqual((await verifiedRegistration(mixed, verifyOptions)).transports, ['usb', 'nfc']);
  });

  test("the ecosystem's shape is held to the same checks, and a malformed one is 400 naming its field", async () => {
    const authenticator = createSoftwareAuthenticator({ rpId, origin });
    const attestation = v1Attestation(authenticator.register(challenge));
    await assert.rejects(
      verifiedRegistration(attestation, { ...verifyOptions, expectedChallenge: 'b3RoZXItY2hhbGxlbmdl' }),
      rejected(400, /^attestation: wrong challenge/),
    );
    await assert.rejects(
      verifiedRegistration(attestation, { ...verifyOptions, origins: ['https://other.example'] }),
      rejected(400, /^attestation: wrong origin/),
    );
    await assert.rejects(verifiedRegistration(attestation, { ...verifyOptions, rpId: 'other.example' }), rejected(400, /^attestation: wrong RP ID/));
    const otherId = Buffer.alloc(32, 1).toString('base64url');
    const cases: [unknown, RegExp][] = [
      [{ ...attestation, credentialId: otherId }, /^attestation\.credentialId: is not the credential ID inside authenticatorData/],
      [{ ...attestation, transports: ['usb'] }, /^attestation\.transports\.0: must be one of AUTHENTICATOR_TRANSPORT_INTERNAL, .*createUserPasskey/],
      [{ ...attestation, clientDataJson: undefined }, /^attestation\.clientDataJson: .*createUserPasskey\(\) or getWebAuthnAttestation\(\)/],
      [{ ...attestation, attestationObject: 'not base64url!' }, /^attestation\.attestationObject: must be base64url/],
      [{ ...attestation, credentialId: '' }, /^attestation\.credentialId: /],
      [{ ...attestation, clientDataJson: Buffer.from('{').toString('base64url') }, /^attestation: registration rejected/],
    ];
    for (const [input, pattern] of cases) {
      await assert.rejects(verifiedRegistration(input, verifyOptions), rejected(400, pattern));
    }
  });

  test('base64url padding on the challenge or the credential ID does not change them', async () => {
    const padded = Buffer.from('a 31-byte registration challenge').toString('base64url'); // 32 bytes: one '=' in base64
    const authenticator = createSoftwareAuthenticator({ rpId, origin });
    const attestation = v1Attestation(authenticator.register(padded));
    const credential = await verifiedRegistration(
      { ...attestation, credentialId: `${attestation.credentialId}=` },
      { ...verifyOptions, expectedChallenge: `${padded}=` },
    );
    assert.equal(credential.credentialId, authenticator.credentialId);
  });
});
