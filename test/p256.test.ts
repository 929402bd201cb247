// One P-256 public key parser: either SEC1 form in any case, one refusal (InvalidP256PublicKey, which
// says whether the text or the point is wrong), and no HTTP error: each caller words its own.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { compressPublicKey } from '../src/admin/organizations.ts';
import { SignetError } from '../src/errors.ts';
import { compressedPublicKeyHex, InvalidP256PublicKey, p256PointHex, parseP256PublicKey, uncompressedPublicKeyHex } from '../src/keys/p256.ts';

const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const compressed = compressedPublicKeyHex(publicKey);
const uncompressed = uncompressedPublicKeyHex(publicKey);
const OFF_CURVE = `04${'11'.repeat(64)}`;

const refusedFor = (problem: 'encoding' | 'not_on_curve') => (error: unknown) => {
  assert.ok(error instanceof InvalidP256PublicKey, String(error));
  assert.ok(!(error instanceof SignetError));
  assert.equal(error.problem, problem);
  return true;
};

test('both SEC1 forms, in either letter case, parse to the same key', () => {
  for (const hex of [compressed, uncompressed, compressed.toUpperCase(), uncompressed.toUpperCase()]) {
    const parsed = parseP256PublicKey(hex);
    assert.equal(parsed.compressed, compressed);
    assert.equal(parsed.uncompressed, uncompressed);
    assert.deepEqual(p256PointHex(hex), { compressed, uncompressed });
  }
});

test('text that is not SEC1 hex and a point off the curve are refused, each saying which', () => {
  for (const hex of ['', 'zz', compressed.slice(2), `05${compressed.slice(2)}`]) assert.throws(() => parseP256PublicKey(hex), refusedFor('encoding'));
  assert.throws(() => parseP256PublicKey(OFF_CURVE), refusedFor('not_on_curve'));
  assert.equal(p256PointHex(OFF_CURVE), undefined);
  assert.equal(p256PointHex('zz'), undefined);
});

test("the admin API's check is the same parser, worded as a 400 naming the field", () => {
  assert.equal(compressPublicKey(uncompressed.toUpperCase()), compressed);
  assert.throws(() => compressPublicKey(OFF_CURVE, 'publicKey'), (error: unknown) => {
    assert.ok(error instanceof SignetError);
    assert.equal(error.status, 400);
    assert.equal(error.message, 'publicKey: is not a point on the P-256 curve');
    return true;
  });
  assert.throws(() => compressPublicKey('zz', 'publicKey'), /^SignetError: publicKey: must be a P-256 public key in hex/);
});
