// Wallet key material sealed under a key-encryption key (src/keys/custody/), pure: it opens only for
// its own organization, row and kind and under its own KEK, each failure says which, and the data key
// and the opened plaintext are zeroed after use.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { KeyMaterialUnreadable, type KeyEncryptionKey, type WrappedDataKey } from '../src/keys/custody/keyEncryptionKey.ts';
import { openKeyMaterial, sealKeyMaterial, withOpenedKeyMaterial, type SealContext } from '../src/keys/custody/sealKeyMaterial.ts';

const secret = randomBytes(32);
const kek = deploymentSecretKek(secret);
const context: SealContext = { organizationId: 'a1b2c3d4-0000-4000-8000-000000000001', rowId: 'f0e1d2c3-0000-4000-8000-000000000002', kind: 'wallet_seed' };
const seed = () => Buffer.from('5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4', 'hex');

const unreadable = (problem: KeyMaterialUnreadable['problem'], pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof KeyMaterialUnreadable, String(error));
  assert.equal(error.problem, problem);
  assert.match(error.message, pattern);
  return true;
};

/** The deployment secret's KEK, keeping the data keys it was handed and handed back. */
function recording(inner: KeyEncryptionKey) {
  const seen: Uint8Array[] = [];
  const wrapper: KeyEncryptionKey = {
    id: inner.id,
    wrap: async (dataKey) => {
      seen.push(dataKey);
      return inner.wrap(dataKey);
    },
    unwrap: async (wrapped: WrappedDataKey) => {
      const dataKey = await inner.unwrap(wrapped);
      seen.push(dataKey);
      return dataKey;
    },
  };
  return { kek: wrapper, seen };
}

test('sealed key material opens under its KEK for its row, and each sealing differs', async () => {
  const sealed = await sealKeyMaterial(kek, context, seed());
  assert.match(sealed, /^v1\.secret:[0-9a-f]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.ok(!sealed.includes(seed().toString('base64url')));
  assert.deepEqual(await openKeyMaterial(kek, context, sealed), seed());
  assert.notEqual(await sealKeyMaterial(kek, context, seed()), sealed);
  // The same secret gives the same KEK (another process of the deployment opens it).
  assert.deepEqual(await openKeyMaterial(deploymentSecretKek(Buffer.from(secret)), context, sealed), seed());
  // An id is one id in any letter case (a request may write its organization's id in capitals).
  const capitals = { ...context, organizationId: context.organizationId.toUpperCase(), rowId: context.rowId.toUpperCase() };
  assert.deepEqual(await openKeyMaterial(kek, capitals, sealed), seed());
  assert.deepEqual(await openKeyMaterial(kek, context, await sealKeyMaterial(kek, capitals, seed())), seed());
});

test('a sealed value moved to another row, organization or kind does not open', async () => {
  const sealed = await sealKeyMaterial(kek, context, seed());
  for (const moved of [
    { ...context, rowId: 'f0e1d2c3-0000-4000-8000-000000000003' },
    { ...context, organizationId: 'a1b2c3d4-0000-4000-8000-000000000009' },
    { ...context, kind: 'private_key' },
  ]) {
    await assert.rejects(openKeyMaterial(kek, moved, sealed), unreadable('not_authentic', /belongs to another row, organization or kind/));
  }
  // Nor does a changed one.
  const [version, id, wrapped, box] = sealed.split('.');
  const flipped = Buffer.from(box!, 'base64url');
  flipped[20] = flipped[20]! ^ 1;
  await assert.rejects(openKeyMaterial(kek, context, [version, id, wrapped, flipped.toString('base64url')].join('.')), unreadable('not_authentic', /was changed/));
});

test('another KEK fails clearly: another secret names both KEKs; a KEK claiming the id but holding another key cannot unwrap', async () => {
  const sealed = await sealKeyMaterial(kek, context, seed());
  const other = deploymentSecretKek(randomBytes(32));
  await assert.rejects(openKeyMaterial(other, context, sealed), unreadable('other_kek', new RegExp(`sealed under key-encryption key ${kek.id}, not ${other.id} \\(the wallet_seed of row ${context.rowId}, organization ${context.organizationId}\\)`)));
  const impostor: KeyEncryptionKey = { id: kek.id, wrap: other.wrap, unwrap: (wrapped) => other.unwrap({ ...wrapped, kekId: other.id }) };
  await assert.rejects(openKeyMaterial(impostor, context, sealed), unreadable('unwrap_failed', /does not open this data key/));
  for (const text of ['', 'v1.secret:00.AA', 'v2.secret:00.AA.AA', `v1.bad id.${'A'.repeat(80)}.${'A'.repeat(80)}`, 'v1.secret:00.AA.AA']) {
    await assert.rejects(openKeyMaterial(kek, context, text), unreadable('format', /not a sealed value|truncated/));
  }
});

test('the data key is zeroed after sealing and after opening, and the plaintext after use, even when the use throws', async () => {
  const { kek: watched, seen } = recording(kek);
  const sealed = await sealKeyMaterial(watched, context, seed());
  assert.equal(seen.length, 1);
  assert.ok(seen[0]!.every((byte) => byte === 0), 'the data key handed to wrap is zeroed');

  let kept: Buffer | undefined;
  const length = await withOpenedKeyMaterial(watched, context, sealed, (plaintext) => {
    assert.deepEqual(plaintext, seed());
    kept = plaintext;
    return plaintext.length;
  });
  assert.equal(length, 64);
  assert.ok(kept!.every((byte) => byte === 0), 'the plaintext is zeroed after use');
  assert.equal(seen.length, 2);
  assert.ok(seen[1]!.every((byte) => byte === 0), 'the unwrapped data key is zeroed');

  await assert.rejects(
    withOpenedKeyMaterial(watched, context, sealed, (plaintext) => {
      kept = plaintext;
      throw new Error('the use failed');
    }),
    /the use failed/,
  );
  assert.ok(kept!.every((byte) => byte === 0));
});

test('bounds: key material of 1 to 1024 bytes, context fields of 1 to 256 characters, a 32-byte deployment secret', async () => {
  await assert.rejects(sealKeyMaterial(kek, context, new Uint8Array()), RangeError);
  await assert.rejects(sealKeyMaterial(kek, context, new Uint8Array(1025)), RangeError);
  await assert.rejects(sealKeyMaterial(kek, { ...context, kind: '' }, seed()), RangeError);
  await assert.rejects(sealKeyMaterial(kek, { ...context, rowId: 'x'.repeat(257) }, seed()), RangeError);
  assert.throws(() => deploymentSecretKek(randomBytes(16)), RangeError);
});
