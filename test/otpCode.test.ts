// OTP codes: the alphabet and length of every code, an unbiased distribution of symbols, the two
// groups a code is shown in, a hash bound to its secret and its OTP id, and how a typed code is read back.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  CROCKFORD_ALPHABET,
  DIGIT_ALPHABET,
  generateOtpCode,
  groupOtpCode,
  hashOtpCode,
  normalizeOtpCode,
} from '../src/otp/code.ts';

describe('generateOtpCode', () => {
  test('every length from 6 to 9 in both modes has that many symbols of the right alphabet', () => {
    for (const length of [6, 7, 8, 9]) {
      for (let i = 0; i < 200; i++) {
        assert.match(generateOtpCode(length, true), new RegExp(`^[0-9A-HJKMNP-TV-Z]{${length}}$`));
        assert.match(generateOtpCode(length, false), new RegExp(`^[0-9]{${length}}$`));
      }
    }
  });

  test('the Crockford alphabet is 0-9 and A-Z without I, L, O and U', () => {
    assert.equal(CROCKFORD_ALPHABET.length, 32);
    assert.equal(new Set(CROCKFORD_ALPHABET).size, 32);
    for (const excluded of 'ILOU') assert.ok(!CROCKFORD_ALPHABET.includes(excluded));
    assert.equal(DIGIT_ALPHABET, '0123456789');
  });

  test('refuses a length that is not a positive whole number', () => {
    for (const bad of [0, -1, 6.5, Number.NaN, 65]) {
      assert.throws(() => generateOtpCode(bad, true), RangeError);
    }
  });

  // Pearson's chi-square over 200k symbols. The bounds sit near the 1e-6 tail (Wilson–Hilferty):
  // a correct generator essentially never fails, and a byte-modulo-10 bias (chi-square ≈ 73 on
  // 200k digits) does.
  for (const [alphanumeric, alphabet, bound] of [
    [true, CROCKFORD_ALPHABET, 85],
    [false, DIGIT_ALPHABET, 46],
  ] as const) {
    test(`symbols are uniform (${alphanumeric ? 'alphanumeric' : 'digits'})`, () => {
      const counts = new Map<string, number>([...alphabet].map((symbol) => [symbol, 0]));
      const symbols = 200_000;
      let drawn = 0;
      while (drawn < symbols) {
        for (const symbol of generateOtpCode(8, alphanumeric)) counts.set(symbol, counts.get(symbol)! + 1);
        drawn += 8;
      }
      assert.equal(counts.size, alphabet.length, 'no symbol outside the alphabet');
      const expected = drawn / alphabet.length;
      let chiSquare = 0;
      for (const [symbol, count] of counts) {
        assert.ok(count > 0, `symbol ${symbol} never drawn`);
        chiSquare += (count - expected) ** 2 / expected;
      }
      assert.ok(chiSquare < bound, `chi-square ${chiSquare.toFixed(1)} over ${alphabet.length - 1} degrees of freedom`);
    });
  }

  test('codes do not repeat', () => {
    const codes = new Set(Array.from({ length: 10_000 }, () => generateOtpCode(9, true)));
    assert.equal(codes.size, 10_000);
  });
});

describe('groupOtpCode', () => {
  test('splits every length from 6 to 9 in two, the second group the longer', () => {
    assert.equal(groupOtpCode('30FMDAGXE'), '30FM-DAGXE');
    assert.equal(groupOtpCode('30FMDAGX'), '30FM-DAGX');
    assert.equal(groupOtpCode('1234567'), '123-4567');
    assert.equal(groupOtpCode('123456'), '123-456');
    assert.equal(groupOtpCode('7'), '7');
  });

  test('a grouped code reads back as the code, in both modes and every length', () => {
    for (const length of [6, 7, 8, 9]) {
      for (const alphanumeric of [true, false]) {
        const code = generateOtpCode(length, alphanumeric);
        assert.equal(normalizeOtpCode(groupOtpCode(code), alphanumeric), code);
        assert.equal(normalizeOtpCode(groupOtpCode(code).toLowerCase().replace('-', ' '), alphanumeric), code);
      }
    }
  });
});

describe('hashOtpCode', () => {
  const secret = randomBytes(32);
  const otpId = randomUUID();

  test('is hex HMAC-SHA-256, stable for the same inputs, and does not contain the code', () => {
    const hash = hashOtpCode(secret, otpId, 'ABC123XYZ');
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(hashOtpCode(secret, otpId, 'ABC123XYZ'), hash);
    assert.ok(!hash.includes('ABC123XYZ'.toLowerCase()));
  });

  test('binds the code, the OTP id and the secret', () => {
    const hash = hashOtpCode(secret, otpId, 'ABC123XYZ');
    assert.notEqual(hashOtpCode(secret, otpId, 'ABC123XY0'), hash, 'another code');
    assert.notEqual(hashOtpCode(secret, randomUUID(), 'ABC123XYZ'), hash, 'another OTP row');
    assert.notEqual(hashOtpCode(randomBytes(32), otpId, 'ABC123XYZ'), hash, 'another secret');
  });

  test('reads the OTP id case-insensitively, as PostgreSQL prints uuids in lower case', () => {
    assert.equal(hashOtpCode(secret, otpId.toUpperCase(), '123456'), hashOtpCode(secret, otpId, '123456'));
  });

  test('refuses an empty secret', () => {
    assert.throws(() => hashOtpCode(Buffer.alloc(0), otpId, '123456'));
  });
});

describe('normalizeOtpCode', () => {
  test('upper-cases, drops separators and decodes Crockford look-alikes', () => {
    assert.equal(normalizeOtpCode(' abc-def ghj ', true), 'ABCDEFGHJ');
    assert.equal(normalizeOtpCode('iLoO1', true), '11001');
  });

  test('leaves digit codes as digits, only without separators', () => {
    assert.equal(normalizeOtpCode('123 456', false), '123456');
    assert.equal(normalizeOtpCode('12-34-56', false), '123456');
  });

  test('a generated code reads back as itself', () => {
    for (let i = 0; i < 100; i++) {
      const code = generateOtpCode(9, true);
      assert.equal(normalizeOtpCode(code.toLowerCase(), true), code);
    }
  });
});
