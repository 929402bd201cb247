// Stamp headers: what the real stampers send (base64url X-Stamp, plain JSON X-Stamp-Webauthn), both
// encodings in both headers, and a 401 naming the problem for every malformed case.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { parseStamp, type ApiKeyStamp, type WebAuthnStamp } from '../src/auth/parseStamp.ts';
import { SignetError } from '../src/errors.ts';
import { createSoftwareAuthenticator, webauthnStamperFor } from './support/softwareAuthenticator.ts';

const body = '{"type":"ACTIVITY_TYPE_INIT_OTP_AUTH_V3","parameters":{}}';

function rejected(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SignetError, `not a SignetError: ${String(error)}`);
    assert.equal(error.status, 401);
    assert.equal(error.code, 16);
    assert.match(error.message, pattern);
    return true;
  };
}

const b64 = (json: unknown) => Buffer.from(typeof json === 'string' ? json : JSON.stringify(json)).toString('base64url');

describe('parseStamp', () => {
  let apiKeyHeader: string;
  let apiKeyJson: { publicKey: string; scheme: string; signature: string };
  let webauthnHeader: string;
  let webauthnJson: Record<string, string>;

  before(async () => {
    const pair = generateApiKeyPair();
    const apiStamp = await new ApiKeyStamper({ apiPublicKey: pair.apiPublicKey, apiPrivateKey: pair.apiPrivateKey }).stamp(body);
    assert.equal(apiStamp.stampHeaderName, 'X-Stamp');
    apiKeyHeader = apiStamp.stampHeaderValue;
    apiKeyJson = JSON.parse(Buffer.from(apiKeyHeader, 'base64url').toString('utf8'));

    const authenticator = createSoftwareAuthenticator({ rpId: 'localhost', origin: 'http://localhost:8080' });
    const webStamp = await webauthnStamperFor(authenticator).stamp(body);
    assert.equal(webStamp.stampHeaderName, 'X-Stamp-Webauthn');
    webauthnHeader = webStamp.stampHeaderValue;
    webauthnJson = JSON.parse(webauthnHeader);
  });

  describe('accepted', () => {
    test('the API key stamper header: base64url JSON in X-Stamp', () => {
      assert.ok(!apiKeyHeader.startsWith('{'));
      const stamp = parseStamp({ 'x-stamp': apiKeyHeader }) as ApiKeyStamp;
      assert.deepEqual(stamp, {
        kind: 'apiKey',
        publicKey: apiKeyJson.publicKey,
        signature: apiKeyJson.signature,
        scheme: 'SIGNATURE_SCHEME_TK_API_P256',
      });
    });

    test('plain JSON in X-Stamp, and base64url with padding', () => {
      const expected = parseStamp({ 'x-stamp': apiKeyHeader });
      assert.deepEqual(parseStamp({ 'x-stamp': JSON.stringify(apiKeyJson) }), expected);
      // Pad the JSON so that its base64url needs "=" padding.
      for (const extra of ['', ' ', '  ']) {
        const text = `${JSON.stringify(apiKeyJson)}${extra}`;
        const padded = Buffer.from(text).toString('base64');
        const url = padded.replace(/\+/g, '-').replace(/\//g, '_');
        assert.deepEqual(parseStamp({ 'x-stamp': url }), expected);
      }
    });

    test('header names in any case; hex in upper case is normalised to lower case', () => {
      const upper = { ...apiKeyJson, publicKey: apiKeyJson.publicKey.toUpperCase(), signature: apiKeyJson.signature.toUpperCase() };
      const stamp = parseStamp({ 'X-Stamp': b64(upper) }) as ApiKeyStamp;
      assert.equal(stamp.publicKey, apiKeyJson.publicKey);
      assert.equal(stamp.signature, apiKeyJson.signature);
    });

    test('an uncompressed public key', () => {
      const uncompressed = `04${'ab'.repeat(64)}`; // shape only; the curve check is the verifier's
      const stamp = parseStamp({ 'x-stamp': b64({ ...apiKeyJson, publicKey: uncompressed }) }) as ApiKeyStamp;
      assert.equal(stamp.publicKey, uncompressed);
    });

    test('the WebAuthn stamper header: plain JSON in X-Stamp-Webauthn', () => {
      assert.ok(webauthnHeader.startsWith('{'));
      const stamp = parseStamp({ 'x-stamp-webauthn': webauthnHeader }) as WebAuthnStamp;
      assert.deepEqual(stamp, { kind: 'webauthn', ...webauthnJson });
    });

    test('a WebAuthn stamp base64url-encoded, and inside X-Stamp in both encodings', () => {
      const expected = parseStamp({ 'x-stamp-webauthn': webauthnHeader });
      assert.deepEqual(parseStamp({ 'x-stamp-webauthn': b64(webauthnHeader) }), expected);
      assert.deepEqual(parseStamp({ 'x-stamp': webauthnHeader }), expected);
      assert.deepEqual(parseStamp({ 'x-stamp': b64(webauthnHeader) }), expected);
    });

    test('padded base64url WebAuthn fields are accepted and returned unpadded', () => {
      const credentialId = Buffer.from('abcd').toString('base64url'); // "YWJjZA" → "YWJjZA=="
      const stamp = parseStamp({
        'x-stamp-webauthn': JSON.stringify({ ...webauthnJson, credentialId: `${credentialId}==` }),
      }) as WebAuthnStamp;
      assert.equal(stamp.credentialId, credentialId);
    });

    test('other headers are ignored', () => {
      assert.equal(parseStamp({ 'x-stamp': apiKeyHeader, 'content-type': 'application/json', host: undefined }).kind, 'apiKey');
    });
  });

  describe('rejected with 401', () => {
    test('no stamp', () => {
      assert.throws(() => parseStamp({}), rejected(/^missing stamp: send X-Stamp or X-Stamp-WebAuthn$/));
      assert.throws(() => parseStamp({ 'x-stamp': undefined }), rejected(/^missing stamp/));
    });

    test('two stamps', () => {
      assert.throws(
        () => parseStamp({ 'x-stamp': apiKeyHeader, 'x-stamp-webauthn': webauthnHeader }),
        rejected(/both X-Stamp and X-Stamp-WebAuthn/),
      );
    });

    test('the same header twice', () => {
      assert.throws(() => parseStamp({ 'x-stamp': [apiKeyHeader, apiKeyHeader] }), rejected(/X-Stamp was sent 2 times/));
      assert.throws(() => parseStamp({ 'x-stamp': apiKeyHeader, 'X-STAMP': apiKeyHeader }), rejected(/sent 2 times/));
    });

    test('an empty or oversized header', () => {
      assert.throws(() => parseStamp({ 'x-stamp': '' }), rejected(/X-Stamp is empty/));
      const huge = b64({ ...apiKeyJson, padding: 'x'.repeat(9000) });
      assert.throws(() => parseStamp({ 'x-stamp': huge }), rejected(/X-Stamp is \d+ bytes; a stamp header is at most 8192 bytes/));
    });

    test('neither JSON nor base64url', () => {
      for (const value of ['not a stamp!', 'eyJ+', 'eyJ/', 'a', 'YQ===', 'YWJ=', '=']) {
        assert.throws(() => parseStamp({ 'x-stamp': value }), rejected(/neither a JSON object .* nor base64url-encoded JSON/), value);
      }
    });

    test('base64url with non-zero trailing bits (a second encoding of the same bytes)', () => {
      // JSON text of 3k+1 bytes: its last base64url character carries 2 bits of data and 4 spare bits.
      let text = JSON.stringify(apiKeyJson);
      while (text.length % 3 !== 1) text += ' ';
      const canonical = b64(text);
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const twin = canonical.slice(0, -1) + alphabet[alphabet.indexOf(canonical.at(-1)!) + 1];
      assert.equal(Buffer.from(twin, 'base64url').toString(), text);
      assert.deepEqual(parseStamp({ 'x-stamp': canonical }), parseStamp({ 'x-stamp': apiKeyHeader }));
      assert.throws(() => parseStamp({ 'x-stamp': twin }), rejected(/nor base64url-encoded JSON/));
    });

    test('bytes that are not UTF-8, or text that is not JSON', () => {
      assert.throws(() => parseStamp({ 'x-stamp': Buffer.from([0x7b, 0xff, 0xfe]).toString('base64url') }), rejected(/not UTF-8/));
      assert.throws(() => parseStamp({ 'x-stamp': '{"publicKey":' }), rejected(/^X-Stamp is not valid JSON$/));
      assert.throws(() => parseStamp({ 'x-stamp': b64('{oops}') }), rejected(/not valid JSON after base64url decoding/));
    });

    test('JSON that is not an object', () => {
      for (const json of ['[1]', 'null', '"stamp"', '42']) {
        assert.throws(() => parseStamp({ 'x-stamp': b64(json) }), rejected(/must hold a JSON object/), json);
      }
    });

    test('a missing field is named', () => {
      const { signature: _, ...rest } = apiKeyJson;
      assert.throws(() => parseStamp({ 'x-stamp': b64(rest) }), rejected(/X-Stamp is missing signature; an API key stamp has exactly publicKey, scheme, signature/));
    });

    test('unknown fields are named', () => {
      assert.throws(
        () => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, extra: 1, another: true }) }),
        rejected(/X-Stamp has unknown fields "extra", "another"/),
      );
      assert.throws(
        () => parseStamp({ 'x-stamp-webauthn': JSON.stringify({ ...webauthnJson, userHandle: 'x' }) }),
        rejected(/X-Stamp-WebAuthn has unknown field "userHandle"; a WebAuthn stamp has exactly/),
      );
      // Fields of both kinds: a WebAuthn field selects the WebAuthn shape, the API key fields are unknown there.
      assert.throws(
        () => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, credentialId: 'abcd' }) }),
        rejected(/unknown fields "publicKey", "scheme", "signature"|unknown fields "publicKey", "scheme"/),
      );
    });

    test('a field that is not a string', () => {
      assert.throws(() => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, publicKey: 42 }) }), rejected(/X-Stamp publicKey must be a string, got a number/));
      assert.throws(() => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, signature: null }) }), rejected(/signature must be a string, got null/));
      assert.throws(
        () => parseStamp({ 'x-stamp-webauthn': JSON.stringify({ ...webauthnJson, authenticatorData: ['x'] }) }),
        rejected(/authenticatorData must be a string, got an array/),
      );
    });

    test('a public key that is not hex, or has the wrong length or prefix', () => {
      const cases: [string, RegExp][] = [
        [`02${'zz'.repeat(32)}`, /publicKey must be hex/],
        [`02${'ab'.repeat(31)}`, /publicKey must be a P-256 public key in hex: .* got 64 characters/],
        [`05${'ab'.repeat(32)}`, /publicKey must be a P-256 public key in hex/],
        [`04${'ab'.repeat(32)}`, /got 66 characters/],
        [`02${'ab'.repeat(64)}`, /got 130 characters/],
        ['', /got 0 characters/],
      ];
      for (const [publicKey, pattern] of cases) {
        assert.throws(() => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, publicKey }) }), rejected(pattern), publicKey);
      }
    });

    test('a scheme other than SIGNATURE_SCHEME_TK_API_P256', () => {
      for (const scheme of ['SIGNATURE_SCHEME_TK_API_SECP256K1', 'signature_scheme_tk_api_p256', '']) {
        assert.throws(
          () => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, scheme }) }),
          rejected(/X-Stamp scheme must be "SIGNATURE_SCHEME_TK_API_P256", got ".*"/),
        );
      }
    });

    test('a signature that is not bounded, even-length hex', () => {
      for (const signature of ['30440220zz', `${apiKeyJson.signature}0`, '3006020101', 'ab'.repeat(73), '']) {
        assert.throws(
          () => parseStamp({ 'x-stamp': b64({ ...apiKeyJson, signature }) }),
          rejected(/signature must be a DER-encoded ECDSA signature in hex: an even number of hex characters, 16 to 144/),
          signature,
        );
      }
    });

    test('WebAuthn fields that are not base64url, or out of bounds', () => {
      const cases: [Record<string, string>, RegExp][] = [
        [{ credentialId: 'ab+/' }, /credentialId must be base64url/],
        [{ signature: 'ab=c' }, /signature must be base64url/],
        [{ clientDataJson: '' }, /clientDataJson must be base64url/],
        [{ authenticatorData: Buffer.alloc(36).toString('base64url') }, /authenticatorData decodes to 36 bytes; it must be 37 to 2048 bytes/],
        [{ credentialId: Buffer.alloc(1024).toString('base64url') }, /credentialId decodes to 1024 bytes; it must be 1 to 1023 bytes/],
        [{ signature: Buffer.alloc(7).toString('base64url') }, /signature decodes to 7 bytes/],
      ];
      for (const [change, pattern] of cases) {
        assert.throws(
          () => parseStamp({ 'x-stamp-webauthn': JSON.stringify({ ...webauthnJson, ...change }) }),
          rejected(pattern),
          JSON.stringify(change).slice(0, 40),
        );
      }
    });
  });
});
