// The key-encryption key held in an HSM through PKCS#11 (src/hsm/), against SoftHSM2: a token made
// here in a temporary folder (its own SOFTHSM2_CONF), keys made with the token's own tool
// (pkcs11-tool), then wrap and unwrap in the token, the checks of the key at start, and `signet
// serve` with the SIGNET_PKCS11_* settings. Skipped, saying why, only where SoftHSM2 is not installed
// (.ci/run installs it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig, type Pkcs11Settings } from '../src/config.ts';
import { openPkcs11Kek, type Binding } from '../src/hsm/pkcs11Kek.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { KeyMaterialUnreadable } from '../src/keys/custody/keyEncryptionKey.ts';
import { keyRing } from '../src/keys/custody/keyRing.ts';
import { openKeyMaterial, resealKeyMaterial, sealedUnder, sealKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { ADMIN_TOKEN } from './support/server.ts';
import { ensureCompiled, freePort, run, serve, signet, SIGNET_BIN } from './support/processes.ts';

const MODULE = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so', '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so'].find((file) => fs.existsSync(file));
const hasTool = (tool: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const skip =
  !hasTool('softhsm2-util') || MODULE === undefined
    ? 'SoftHSM2 is not installed (apt-get install softhsm2 opensc; .ci/run installs it)'
    : !hasTool('pkcs11-tool')
      ? 'pkcs11-tool is not installed (apt-get install opensc)'
      : false;

const PIN = 'pin-7391-never-shown';
/** The optional binding (not a compile-time import: Signet compiles without it). */
const BINDING: string = 'pkcs11js';
const TOKEN = 'signet-kek';
const OTHER_TOKEN = 'signet-other';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-hsm-'));
const conf = path.join(dir, 'softhsm2.conf');
const settings = (overrides: Partial<Pkcs11Settings> = {}): Pkcs11Settings => ({ module: MODULE!, tokenLabel: TOKEN, pin: PIN, keyLabel: 'kek', ...overrides });
const env = (overrides: Partial<Pkcs11Settings> = {}) => {
  const s = settings(overrides);
  return { SOFTHSM2_CONF: conf, SIGNET_PKCS11_MODULE: s.module, SIGNET_PKCS11_TOKEN_LABEL: s.tokenLabel, SIGNET_PKCS11_PIN: s.pin, SIGNET_PKCS11_KEY_LABEL: s.keyLabel };
};
const context = { organizationId: 'org-1', rowId: 'wallet-1', kind: 'wallet_seed' };

/** An AES-256 key made with the token's tool, as an operator does (docs/operations.md). */
function keygen(token: string, label: string, ...flags: string[]) {
  execFileSync('pkcs11-tool', ['--module', MODULE!, '--token-label', token, '--login', '--pin', PIN, '--keygen', '--key-type', 'AES:32', '--label', label, ...flags], {
    env: { ...process.env, SOFTHSM2_CONF: conf },
    stdio: 'ignore',
  });
}

before(() => {
  if (skip) return;
  fs.mkdirSync(path.join(dir, 'tokens'));
  fs.writeFileSync(conf, `directories.tokendir = ${path.join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  for (const label of [TOKEN, OTHER_TOKEN]) {
    execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--so-pin', '0000', '--pin', PIN], { env: { ...process.env }, stdio: 'ignore' });
  }
  keygen(TOKEN, 'kek', '--sensitive');
  keygen(OTHER_TOKEN, 'kek', '--sensitive'); // the same label in another token: another key
  keygen(TOKEN, 'extractable', '--sensitive', '--extractable');
  keygen(TOKEN, 'twice', '--sensitive');
  keygen(TOKEN, 'twice', '--sensitive');
  keygen(TOKEN, 'kek-next', '--sensitive');
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The ConfigError that opening with these settings ends in. */
async function refusal(overrides: Partial<Pkcs11Settings>): Promise<ConfigError> {
  const error = await openPkcs11Kek(settings(overrides)).then(
    async (kek) => {
      await kek.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
  assert.ok(!error.message.includes(PIN), 'the PIN is never part of an error');
  return error;
}

test('wallet key material sealed under the HSM key opens with it; its id names token, key and check value', { skip }, async () => {
  const kek = await openPkcs11Kek(settings());
  try {
    assert.match(kek.id, /^pkcs11:signet-kek:kek:[0-9a-f]{12}$/);
    const seed = randomBytes(64);
    const sealed = await sealKeyMaterial(kek, context, seed);
    assert.ok(sealed.startsWith(`v1.${kek.id}.`));
    assert.deepEqual(await openKeyMaterial(kek, context, sealed), seed);
    // Calls at once are serialised on the one session.
    const keys = Array.from({ length: 20 }, () => randomBytes(32));
    const wrapped = await Promise.all(keys.map((key) => kek.wrap(key)));
    assert.deepEqual(await Promise.all(wrapped.map((w) => kek.unwrap(w).then(Buffer.from))), keys);
  } finally {
    await kek.close();
  }
  // Opened again, the same key has the same id and opens what was sealed before.
  const again = await openPkcs11Kek(settings());
  try {
    const first = await again.wrap(Buffer.alloc(32, 1));
    assert.equal(first.kekId, again.id);
  } finally {
    await again.close();
  }
});

test('a wrapped data key is not readable without the token: another token key of the same label and the deployment secret do not open it', { skip }, async () => {
  const dataKey = randomBytes(32);
  const kek = await openPkcs11Kek(settings());
  const wrapped = await kek.wrap(dataKey);
  const secretKek = deploymentSecretKek(randomBytes(32));
  const bySecret = await secretKek.wrap(dataKey);
  const sealed = await sealKeyMaterial(kek, context, randomBytes(64));
  const sealedBySecret = await sealKeyMaterial(secretKek, context, randomBytes(64));
  // The data key is nowhere in the wrapped bytes (GCM in the token, a random IV each time).
  assert.equal(Buffer.from(wrapped.wrapped).indexOf(dataKey), -1);
  assert.notDeepEqual(Buffer.from((await kek.wrap(dataKey)).wrapped), Buffer.from(wrapped.wrapped));
  // The HSM KEK does not open what the deployment secret's sealed, and says so.
  await assert.rejects(kek.unwrap(bySecret), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'other_kek');
  await assert.rejects(openKeyMaterial(kek, context, sealedBySecret), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'other_kek');
  // A changed wrapped key does not open (the tag is checked in the token).
  const changed = Buffer.from(wrapped.wrapped);
  changed[20]! ^= 1;
  await assert.rejects(kek.unwrap({ kekId: wrapped.kekId, wrapped: changed }), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'unwrap_failed');
  await kek.close();

  // The deployment secret's KEK does not open the HSM's.
  assert.notEqual(secretKek.id, kek.id);
  await assert.rejects(secretKek.unwrap(wrapped), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'other_kek');
  await assert.rejects(openKeyMaterial(secretKek, context, sealed), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'other_kek');
  assert.deepEqual(Buffer.from(await secretKek.unwrap(bySecret)), dataKey);

  // A key of the same label in another token is another key: another id, and it does not open it even told to.
  const other = await openPkcs11Kek(settings({ tokenLabel: OTHER_TOKEN }));
  try {
    assert.notEqual(other.id.split(':')[3], kek.id.split(':')[3]);
    await assert.rejects(other.unwrap(wrapped), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'other_kek');
    await assert.rejects(other.unwrap({ kekId: other.id, wrapped: wrapped.wrapped }), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'unwrap_failed');
  } finally {
    await other.close();
  }
});

test('a wrong PIN, a missing label, an extractable key and two keys of one label are refused, naming the setting', { skip }, async () => {
  assert.match((await refusal({ pin: 'not-the-pin' })).message, /^SIGNET_PKCS11_PIN: cannot log in to the token "signet-kek": CKR_PIN_INCORRECT/);
  assert.match((await refusal({ keyLabel: 'absent' })).message, /^SIGNET_PKCS11_KEY_LABEL: no secret key labelled "absent"/);
  assert.match((await refusal({ keyLabel: 'extractable' })).message, /^SIGNET_PKCS11_KEY_LABEL: the key "extractable" is extractable \(CKA_EXTRACTABLE\)/);
  assert.match((await refusal({ keyLabel: 'twice' })).message, /^SIGNET_PKCS11_KEY_LABEL: several secret keys are labelled "twice"/);
  assert.match((await refusal({ tokenLabel: 'absent' })).message, /^SIGNET_PKCS11_TOKEN_LABEL: no token labelled "absent"/);
  assert.match((await refusal({ module: path.join(dir, 'no-such-library.so') })).message, /^SIGNET_PKCS11_MODULE: cannot load the PKCS#11 library/);
});

test('after the token drops the session, the next call logs in again and goes on with the same key', { skip }, async () => {
  const kek = await openPkcs11Kek(settings());
  try {
    const wrapped = await kek.wrap(Buffer.alloc(32, 9));
    // What a restart of the token does to this process's sessions: every one closed.
    const pkcs11js = ((await import(BINDING)) as { default: Binding }).default;
    const pkcs11 = new pkcs11js.PKCS11();
    pkcs11.load(MODULE!);
    for (const slot of pkcs11.C_GetSlotList(true)) pkcs11.C_CloseAllSessions(slot);
    assert.deepEqual(Buffer.from(await kek.unwrap(wrapped)), Buffer.alloc(32, 9));
    assert.equal((await kek.wrap(Buffer.alloc(32, 1))).kekId, kek.id);
  } finally {
    await kek.close();
  }
});

test('the four settings come together: a partial set names what is missing; signet config masks the PIN', { skip }, async () => {
  assert.equal(loadConfig({}).pkcs11, undefined);
  assert.deepEqual(loadConfig(env()).pkcs11, settings());
  assert.throws(
    () => loadConfig({ SIGNET_PKCS11_MODULE: MODULE!, SIGNET_PKCS11_PIN: PIN }),
    (error) => error instanceof ConfigError && /^SIGNET_PKCS11_TOKEN_LABEL, SIGNET_PKCS11_KEY_LABEL are required with SIGNET_PKCS11_MODULE, SIGNET_PKCS11_PIN/.test(error.message),
  );
  // The key-encryption key's id, pkcs11:<token>:<key>:<check value>, has at most 64 characters.
  assert.throws(
    () => loadConfig(env({ tokenLabel: 't'.repeat(32), keyLabel: 'k'.repeat(12) })),
    (error) => error instanceof ConfigError && /at most 43 characters together/.test(error.message),
  );
  assert.equal(loadConfig(env({ tokenLabel: 't'.repeat(32), keyLabel: 'k'.repeat(11) })).pkcs11?.keyLabel, 'k'.repeat(11));
  assert.throws(() => loadConfig(env({ keyLabel: 'a key' })), (error) => error instanceof ConfigError && /SIGNET_PKCS11_KEY_LABEL must be the key's label/.test(error.message));
  const partial = await signet(['serve'], { SIGNET_PORT: '0', SIGNET_DATA_DIR: path.join(dir, 'partial'), SIGNET_PKCS11_KEY_LABEL: 'kek' });
  assert.equal(partial.code, 2, partial.stderr);
  assert.match(partial.stderr, /SIGNET_PKCS11_MODULE, SIGNET_PKCS11_TOKEN_LABEL, SIGNET_PKCS11_PIN are required with SIGNET_PKCS11_KEY_LABEL/);
  const config = await signet(['config'], env());
  assert.equal(config.code, 0, config.stderr);
  assert.match(config.stdout, /SIGNET_PKCS11_PIN/);
  assert.ok(!config.stdout.includes(PIN) && !config.stderr.includes(PIN), 'signet config never shows the PIN');
});

test('signet serve opens the HSM key and checks it by a round trip; a wrong PIN stops it with exit 2, the PIN in no output', { skip }, async () => {
  const port = await freePort();
  const dataDir = path.join(dir, 'serve');
  const base = { SIGNET_PORT: String(port), SIGNET_DATA_DIR: dataDir, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_LOG_LEVEL: 'trace' };
  const served = await serve({ ...base, ...env() }, `http://127.0.0.1:${port}`);
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(health.status, 200);
  // The ready line names the HSM key by its id (never the PIN).
  assert.match(served.stdout(), /"hsmKey":"pkcs11:signet-kek:kek:[0-9a-f]{12}"/);
  assert.equal(await served.stop(), 0);
  assert.ok(!served.output().includes(PIN), 'the PIN is in no log line');

  const wrongPin = await signet(['serve'], { ...base, ...env({ pin: 'another-pin-5521' }) });
  assert.equal(wrongPin.code, 2, wrongPin.stderr);
  assert.match(wrongPin.stderr, /configuration error: SIGNET_PKCS11_PIN: cannot log in to the token "signet-kek": CKR_PIN_INCORRECT/);
  assert.ok(!`${wrongPin.stdout}${wrongPin.stderr}`.includes('another-pin-5521'));

  const extractable = await signet(['serve'], { ...base, ...env({ keyLabel: 'extractable' }) });
  assert.equal(extractable.code, 2, extractable.stderr);
  assert.match(extractable.stderr, /SIGNET_PKCS11_KEY_LABEL: the key "extractable" is extractable/);
});

test('without the optional binding, SIGNET_PKCS11_MODULE stops the start with a clear error', { skip }, async () => {
  ensureCompiled();
  // A resolve hook that finds no pkcs11js, as after `npm ci --omit=optional` or a failed build.
  const hook = path.join(dir, 'hide-pkcs11js.mjs');
  fs.writeFileSync(
    hook,
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
  if (specifier === 'pkcs11js') throw Object.assign(new Error("Cannot find package 'pkcs11js'"), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}\`));
`,
  );
  const port = await freePort();
  const result = await run(process.execPath, ['--import', hook, SIGNET_BIN, 'serve'], { SIGNET_PORT: String(port), SIGNET_DATA_DIR: path.join(dir, 'unbound'), ...env() });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /SIGNET_PKCS11_MODULE is set but the PKCS#11 binding \(pkcs11js\) is not installed: /);
  // Without the setting, the same process starts (the binding is loaded only when it is set).
  const plain = await run(process.execPath, ['--import', hook, SIGNET_BIN, 'config'], { SIGNET_DATA_DIR: path.join(dir, 'unbound') });
  assert.equal(plain.code, 0, plain.stderr);
});

test('rotating in the token: with the previous key label, what the old key sealed opens and re-seals under the new key', { skip }, async () => {
  const seed = randomBytes(64);
  const old = await openPkcs11Kek(settings());
  const sealed = await sealKeyMaterial(old, context, seed);
  await old.close();

  const rotated = await openPkcs11Kek(settings({ keyLabel: 'kek-next', previousKeyLabel: 'kek' }));
  try {
    assert.match(rotated.id, /^pkcs11:signet-kek:kek-next:[0-9a-f]{12}$/);
    assert.equal(rotated.previous?.id, old.id, 'the previous key has the id it sealed under');
    // The new key alone does not open it; the ring a server holds does, and the rewrap moves it.
    await assert.rejects(openKeyMaterial(rotated, context, sealed), (error) => error instanceof KeyMaterialUnreadable && error.problem === 'other_kek');
    const ring = keyRing(rotated, rotated.previous!);
    assert.deepEqual(await openKeyMaterial(ring, context, sealed), seed);
    const moved = await resealKeyMaterial(ring, context, sealed);
    assert.equal(sealedUnder(moved), rotated.id);
    assert.deepEqual(await openKeyMaterial(rotated, context, moved), seed);
    // The previous key only opens.
    await assert.rejects(rotated.previous!.wrap(randomBytes(32)), /only opens/);
  } finally {
    await rotated.close();
  }
  // The previous label is checked like the key's, and goes with the four settings.
  assert.match((await refusal({ previousKeyLabel: 'absent' })).message, /^SIGNET_PKCS11_PREVIOUS_KEY_LABEL: no secret key labelled "absent"/);
  assert.match((await refusal({ previousKeyLabel: 'extractable' })).message, /^SIGNET_PKCS11_PREVIOUS_KEY_LABEL: the key "extractable" is extractable/);
  assert.equal(loadConfig({ ...env(), SIGNET_PKCS11_PREVIOUS_KEY_LABEL: 'kek-old' }).pkcs11?.previousKeyLabel, 'kek-old');
  assert.throws(() => loadConfig({ ...env(), SIGNET_PKCS11_PREVIOUS_KEY_LABEL: 'kek' }), (error) => error instanceof ConfigError && /names the key of SIGNET_PKCS11_KEY_LABEL/.test(error.message));
  assert.throws(() => loadConfig({ SIGNET_PKCS11_PREVIOUS_KEY_LABEL: 'kek' }), (error) => error instanceof ConfigError && /SIGNET_PKCS11_PREVIOUS_KEY_LABEL is set without an HSM/.test(error.message));
});
