// API-key stamp verification: every Wycheproof ECDSA P-256/SHA-256 vector, stamps made by the real
// @turnkey/api-key-stamper, both public key forms, and strict DER.
import assert from 'node:assert/strict';
import { ECDH } from 'node:crypto';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { parseStamp, type ApiKeyStamp } from '../src/auth/parseStamp.ts';
import { verifyApiKeyStamp } from '../src/auth/verifyApiKeyStamp.ts';
import { SignetError } from '../src/errors.ts';

interface WycheproofFile {
  numberOfTests: number;
  testGroups: {
    publicKey: { curve: string; uncompressed: string };
    sha: string;
    tests: { tcId: number; comment: string; msg: string; sig: string; result: 'valid' | 'invalid' | 'acceptable' }[];
  }[];
}

const vectors = JSON.parse(
  fs.readFileSync(new URL('./vectors/wycheproof/ecdsa_secp256r1_sha256_test.json', import.meta.url), 'utf8'),
) as WycheproofFile;

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

function stampOf(publicKey: string, signature: string): ApiKeyStamp {
  return { kind: 'apiKey', publicKey, signature, scheme: 'SIGNATURE_SCHEME_TK_API_P256' };
}

async function accepts(body: Buffer, stamp: ApiKeyStamp): Promise<boolean> {
  try {
    await verifyApiKeyStamp(body, stamp);
    return true;
  } catch (error) {
    assert.ok(error instanceof SignetError, `not a SignetError: ${String(error)}`);
    assert.equal(error.status, 401);
    return false;
  }
}

function unauthenticatedMatching(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SignetError);
    assert.equal(error.status, 401);
    assert.match(error.message, pattern);
    return true;
  };
}

function compress(uncompressedHex: string): string {
  return ECDH.convertKey(uncompressedHex, 'prime256v1', 'hex', 'hex', 'compressed') as string;
}

function uncompress(compressedHex: string): string {
  return ECDH.convertKey(compressedHex, 'prime256v1', 'hex', 'hex', 'uncompressed') as string;
}

/** r and s of a DER signature (assumed well-formed), for building variants of it. */
function derIntegers(hex: string): [bigint, bigint] {
  const der = Buffer.from(hex, 'hex');
  const rLength = der[3]!;
  const r = der.subarray(4, 4 + rLength);
  const s = der.subarray(6 + rLength);
  return [BigInt(`0x${r.toString('hex')}`), BigInt(`0x${s.toString('hex')}`)];
}

function derEncode(r: bigint, s: bigint): string {
  const integer = (value: bigint) => {
    let hex = value.toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
    return `02${(hex.length / 2).toString(16).padStart(2, '0')}${hex}`;
  };
  const content = integer(r) + integer(s);
  return `30${(content.length / 2).toString(16).padStart(2, '0')}${content}`;
}

describe('Wycheproof ecdsa_secp256r1_sha256_test.json', () => {
  const all = vectors.testGroups.flatMap((group) => group.tests.map((vector) => ({ group, vector })));

  test('the file loads completely: 484 vectors, 174 valid and 310 invalid, all P-256 with SHA-256', () => {
    assert.equal(all.length, vectors.numberOfTests);
    assert.equal(all.length, 484);
    assert.equal(all.filter(({ vector }) => vector.result === 'valid').length, 174);
    assert.equal(all.filter(({ vector }) => vector.result === 'invalid').length, 310);
    // This file has no "acceptable" vectors; if a newer one adds some, decide on them here.
    assert.equal(all.filter(({ vector }) => vector.result === 'acceptable').length, 0);
    for (const { group } of all) {
      assert.equal(group.publicKey.curve, 'secp256r1');
      assert.equal(group.sha, 'SHA-256');
    }
  });

  test('every valid vector is accepted and every invalid one rejected (uncompressed key)', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { group, vector } of all) {
      const accepted = await accepts(Buffer.from(vector.msg, 'hex'), stampOf(group.publicKey.uncompressed, vector.sig));
      if (accepted !== (vector.result === 'valid')) wrong.push(`tcId ${vector.tcId} (${vector.result}, ${vector.comment})`);
      checked++;
    }
    assert.equal(checked, 484);
    assert.deepEqual(wrong, []);
  });

  test('every vector gives the same answer with the compressed form of its key', async () => {
    const wrong: string[] = [];
    for (const { group, vector } of all) {
      const accepted = await accepts(Buffer.from(vector.msg, 'hex'), stampOf(compress(group.publicKey.uncompressed), vector.sig));
      if (accepted !== (vector.result === 'valid')) wrong.push(`tcId ${vector.tcId}`);
    }
    assert.deepEqual(wrong, []);
  });
});

describe('stamps from @turnkey/api-key-stamper', () => {
  const pair = generateApiKeyPair();
  const stamper = new ApiKeyStamper({ apiPublicKey: pair.apiPublicKey, apiPrivateKey: pair.apiPrivateKey });
  const body = Buffer.from(
    JSON.stringify({
      type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
      timestampMs: '1767225600000',
      organizationId: 'b5f0a5b8-3f55-4a8a-9a43-0c9e1a3c7d11',
      parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'ünïcode@example.com' },
    }),
  );

  async function stamped(): Promise<ApiKeyStamp> {
    const { stampHeaderName, stampHeaderValue } = await stamper.stamp(body.toString('utf8'));
    assert.equal(stampHeaderName, 'X-Stamp');
    const stamp = parseStamp({ [stampHeaderName.toLowerCase()]: stampHeaderValue });
    assert.equal(stamp.kind, 'apiKey');
    return stamp as ApiKeyStamp;
  }

  test('a real stamp verifies and yields the compressed key', async () => {
    const stamp = await stamped();
    assert.deepEqual(await verifyApiKeyStamp(body, stamp), { publicKey: pair.apiPublicKey });
  });

  test('the same signature verifies with the uncompressed form of the key, which maps to the compressed one', async () => {
    const stamp = await stamped();
    const uncompressed = uncompress(pair.apiPublicKey);
    assert.equal(uncompressed.length, 130);
    assert.deepEqual(await verifyApiKeyStamp(body, { ...stamp, publicKey: uncompressed }), { publicKey: pair.apiPublicKey });
  });

  test('a flipped body byte fails', async () => {
    const stamp = await stamped();
    for (const index of [0, body.length >> 1, body.length - 1]) {
      const tampered = Buffer.from(body);
      tampered[index]! ^= 0x01;
      await assert.rejects(() => verifyApiKeyStamp(tampered, stamp), unauthenticatedMatching(/does not verify/));
    }
  });

  test('another key does not verify the signature', async () => {
    const stamp = await stamped();
    const other = generateApiKeyPair().apiPublicKey;
    await assert.rejects(() => verifyApiKeyStamp(body, { ...stamp, publicKey: other }), unauthenticatedMatching(/does not verify/));
  });

  test('the high-S twin of a signature is accepted (ECDSA does not require low S)', async () => {
    const stamp = await stamped();
    const [r, s] = derIntegers(stamp.signature);
    const twin = derEncode(r, N - s);
    assert.notEqual(twin, stamp.signature);
    assert.deepEqual(await verifyApiKeyStamp(body, { ...stamp, signature: twin }), { publicKey: pair.apiPublicKey });
  });

  test('a BER encoding of a good signature is rejected as not strict DER', async () => {
    const stamp = await stamped();
    const content = stamp.signature.slice(4);
    const longFormLength = `3081${stamp.signature.slice(2, 4)}${content}`;
    await assert.rejects(
      () => verifyApiKeyStamp(body, { ...stamp, signature: longFormLength }),
      unauthenticatedMatching(/not a strict DER ECDSA signature \(the SEQUENCE length must be in short form\)/),
    );
    const trailing = `30${(content.length / 2 + 1).toString(16)}${content}00`;
    await assert.rejects(() => verifyApiKeyStamp(body, { ...stamp, signature: trailing }), unauthenticatedMatching(/bytes after s/));
    const [r, s] = derIntegers(stamp.signature);
    const paddedR = derEncode(r, s).replace(/^30(..)02(..)/, (_, total: string, length: string) =>
      `30${(parseInt(total, 16) + 1).toString(16).padStart(2, '0')}02${(parseInt(length, 16) + 1).toString(16).padStart(2, '0')}00`,
    );
    await assert.rejects(
      () => verifyApiKeyStamp(body, { ...stamp, signature: paddedR }),
      unauthenticatedMatching(/r has a superfluous leading zero|r is longer than 33 bytes/),
    );
  });

  test('a key that is not a point on the curve is rejected', async () => {
    const offCurve = `04${'11'.repeat(64)}`;
    await assert.rejects(
      () => verifyApiKeyStamp(body, stampOf(offCurve, '3006020101020101')),
      unauthenticatedMatching(/not a point on the P-256 curve/),
    );
    const noSuchX = `02${'ff'.repeat(32)}`; // x ≥ p
    await assert.rejects(
      () => verifyApiKeyStamp(body, stampOf(noSuchX, '3006020101020101')),
      unauthenticatedMatching(/not a point on the P-256 curve/),
    );
  });
});
