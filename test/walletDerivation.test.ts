// Mnemonics, derivation and addresses of wallet accounts (src/keys/mnemonic.ts, derivation.ts,
// addresses.ts), pure: the published vectors (BIP-39 of Trezor, BIP-32 1–3, SLIP-0010 ed25519, copied
// into test/vectors/ with their origin), well-known accounts of the ecosystem, and every refusal
// naming its field without echoing a secret.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { HDKey } from '@scure/bip32';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Keypair } from '@solana/web3.js';
import { privateKeyToAccount } from 'viem/accounts';
import { accountPublicKeyHex, addressOf, checkAddressFormat } from '../src/keys/addresses.ts';
import { accountKeyDeriver, deriveAccountKey, MAX_PATH_DEPTH, parseDerivationPath } from '../src/keys/derivation.ts';
import { generateMnemonic, MNEMONIC_WORD_COUNTS, mnemonicToSeed, parseMnemonic } from '../src/keys/mnemonic.ts';
import { ParameterRejected } from '../src/keys/parameterRejected.ts';
import { ROOT } from './support/processes.ts';

const vectors = (file: string) => JSON.parse(readFileSync(path.join(ROOT, 'test', 'vectors', file), 'utf8'));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const rejected = (field: string, pattern: RegExp, secret?: string) => (error: unknown) => {
  assert.ok(error instanceof ParameterRejected, String(error));
  assert.equal(error.field, field);
  assert.match(error.description, pattern);
  if (secret) for (const word of secret.split(' ')) assert.ok(!error.message.includes(word), `the message repeats "${word}": ${error.message}`);
  return true;
};

const JUNK = 'test test test test test test test test test test test junk';

test("BIP-39: Trezor's English vectors give their seeds (passphrase TREZOR) and master keys", () => {
  const { english } = vectors('bip39/vectors.json') as { english: [string, string, string, string][] };
  assert.equal(english.length, 24);
  for (const [, mnemonic, seed, xprv] of english) {
    assert.equal(parseMnemonic(mnemonic), mnemonic);
    const derived = mnemonicToSeed(mnemonic, 'TREZOR');
    assert.equal(hex(derived), seed);
    assert.equal(HDKey.fromMasterSeed(derived).privateExtendedKey, xprv);
  }
});

test('BIP-39: generated mnemonics have the asked number of words, are valid, and differ', () => {
  for (const words of MNEMONIC_WORD_COUNTS) {
    const first = generateMnemonic(words);
    assert.equal(first.split(' ').length, words);
    assert.equal(parseMnemonic(first), first);
    assert.notEqual(generateMnemonic(words), first);
  }
  assert.throws(() => generateMnemonic(13 as 12), RangeError);
});

test('BIP-39: a wrong mnemonic is refused saying what is wrong, never repeating a word', () => {
  const field = 'parameters.mnemonic';
  assert.throws(() => parseMnemonic(JUNK.split(' ').slice(0, 11).join(' ')), rejected(field, /has 11 words; a mnemonic has 12, 15, 18, 21, 24 words/));
  const unknown = JUNK.replace('junk', 'junkyard');
  assert.throws(() => parseMnemonic(unknown), rejected(field, /word 12 of 12 is not in the BIP-39 English wordlist/, 'junkyard'));
  assert.throws(() => parseMnemonic(JUNK.replace(/junk$/, 'zoo')), rejected(field, /fails its BIP-39 checksum/, 'zoo'));
  assert.throws(() => parseMnemonic(JUNK.toUpperCase()), rejected(field, /word 1 of 12 is not in the BIP-39 English wordlist \(words are lowercase\)/, 'TEST'));
  assert.throws(() => parseMnemonic('a'.repeat(2000)), rejected(field, /longer than 1024 characters/));
  assert.throws(() => parseMnemonic(42), rejected(field, /must be a string/));
  // Spaces around and between the words are not part of the mnemonic.
  assert.equal(parseMnemonic(`  ${JUNK.replaceAll(' ', ' \n ')}  `), JUNK);
});

test('BIP-32: test vectors 1, 2 and 3, every chain', () => {
  for (const { seed, chains } of vectors('bip32/vectors.json') as { seed: string; chains: { path: string; xprv: string; xpub: string }[] }[]) {
    for (const chain of chains) {
      const key = deriveAccountKey('CURVE_SECP256K1', Buffer.from(seed, 'hex'), chain.path);
      const expected = HDKey.fromExtendedKey(chain.xprv);
      assert.equal(hex(key.privateKey), hex(expected.privateKey!), chain.path);
      assert.equal(hex(key.publicKey), hex(HDKey.fromExtendedKey(chain.xpub).publicKey!), chain.path);
    }
  }
});

test('SLIP-0010: ed25519 test vectors 1 and 2, every chain', () => {
  for (const { seed, chains } of vectors('slip10/ed25519.json') as { seed: string; chains: { path: string; private: string; public: string }[] }[]) {
    for (const chain of chains) {
      const key = deriveAccountKey('CURVE_ED25519', Buffer.from(seed, 'hex'), chain.path);
      assert.equal(hex(key.privateKey), chain.private, chain.path);
      assert.equal(`00${hex(key.publicKey)}`, chain.public, chain.path);
    }
  }
});

test('the "test … junk" mnemonic is 0xf39F…2266 at m/44\'/60\'/0\'/0/0 and 0x7099…79C8 at index 1 (viem agrees)', () => {
  const seed = mnemonicToSeed(JUNK);
  const first = deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/0");
  assert.equal(addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM', first.publicKey), '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  assert.equal(privateKeyToAccount(`0x${hex(first.privateKey)}`).address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  const second = deriveAccountKey('CURVE_SECP256K1', seed, 'm/44h/60h/0h/0/1');
  assert.equal(addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_ETHEREUM', second.publicKey), '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
});

test("Solana: the cookbook's mnemonic gives its published addresses at m/44'/501'/i'/0'", () => {
  const seed = mnemonicToSeed('neither lonely flavor argue grass remind eye tag avocado spot unusual intact');
  const published = ['5vftMkHL72JaJG6ExQfGAsT2uGVHpRR7oTNUPMs68Y2N', 'GcXbfQ5yY3uxCyBNDPBbR5FjumHf89E7YHXuULfGDBBv', '7QPgyQwNLqnoSwHEuK8wKy2Y3Ani6EHoZRihTuWkwxbc'];
  published.forEach((address, index) => {
    const key = deriveAccountKey('CURVE_ED25519', seed, `m/44'/501'/${index}'/0'`);
    assert.equal(addressOf('CURVE_ED25519', 'ADDRESS_FORMAT_SOLANA', key.publicKey), address);
    assert.equal(Keypair.fromSeed(key.privateKey).publicKey.toBase58(), address);
  });
});

test('one deriver for many accounts gives the keys each path gives alone, whatever the order, the marks and the shared parents', () => {
  const seed = mnemonicToSeed(JUNK);
  const deriver = accountKeyDeriver(seed);
  const paths: Array<[string, string]> = [
    ['CURVE_SECP256K1', "m/44'/60'/0'/0/1"],
    ['CURVE_SECP256K1', "m/44'/60'/0'/0"],
    ['CURVE_SECP256K1', "m/44h/60h/0h/0/0"],
    ['CURVE_SECP256K1', "m/44'/60'/0'/0/1"],
    ['CURVE_SECP256K1', 'm'],
    ['CURVE_SECP256K1', "m/44'/0'/0'/0/7"],
    ['CURVE_ED25519', "m/44'/501'/1'/0'"],
    ['CURVE_ED25519', "m/44'/501'"],
    ['CURVE_ED25519', "m/44h/501h/0h/0h"],
    ['CURVE_ED25519', "m/44'/501'/1'/0'"],
  ];
  for (const [curve, path] of paths) {
    const shared = deriver.derive(curve, path);
    const alone = deriveAccountKey(curve, seed, path);
    assert.equal(hex(shared.privateKey), hex(alone.privateKey), `${curve} ${path}`);
    assert.equal(hex(shared.publicKey), hex(alone.publicKey), `${curve} ${path}`);
    if (curve === 'CURVE_SECP256K1') assert.equal(hex(shared.publicKey), hex(HDKey.fromMasterSeed(seed).derive(path.replaceAll('h', "'")).publicKey!), path);
  }
  deriver.wipe();
});

test('paths: both hardened marks, bounds on depth and index, and a clear refusal naming the path', () => {
  assert.deepEqual(parseDerivationPath("m/44'/60h/0"), [
    { index: 44, hardened: true },
    { index: 60, hardened: true },
    { index: 0, hardened: false },
  ]);
  assert.deepEqual(parseDerivationPath('m'), []);
  assert.deepEqual(parseDerivationPath("m/2147483647'"), [{ index: 2147483647, hardened: true }]);
  assert.throws(() => parseDerivationPath("m/2147483648'"), rejected('path', /is 2147483648; an index is below 2\^31/));
  assert.throws(() => parseDerivationPath(`m${'/0'.repeat(MAX_PATH_DEPTH + 1)}`), rejected('path', /has 11 steps; at most 10 are allowed/));
  assert.throws(() => parseDerivationPath("44'/60'"), rejected('path', /must start with m\//));
  for (const step of ['', '-1', '01', "1''", '1H', ' 1', '1.5', '0x10']) {
    assert.throws(() => parseDerivationPath(`m/44'/${step}`), rejected('path', /step 2 of .* each step is a number, followed by ' or h when hardened/));
  }
  assert.throws(() => parseDerivationPath(`m/${'1'.repeat(200)}`), rejected('path', /longer than 128 characters/));
});

test('ed25519 refuses a step that is not hardened, naming the path; other curves are refused naming curve', () => {
  const seed = mnemonicToSeed(JUNK);
  assert.throws(
    () => deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/0'/0", { path: 'parameters.accounts[0].path', curve: 'parameters.accounts[0].curve' }),
    rejected('parameters.accounts[0].path', /step 4 of "m\/44'\/501'\/0'\/0" is not hardened; CURVE_ED25519 keys are derived by SLIP-0010/),
  );
  assert.throws(() => deriveAccountKey('CURVE_P256', seed, "m/44'/60'/0'/0/0"), rejected('curve', /must be one of CURVE_SECP256K1, CURVE_ED25519; got "CURVE_P256"/));
  assert.throws(
    () => deriveAccountKey('CURVE_P256', seed, "m/44'/60'/0'/0/0", { path: 'parameters.accounts[1].path', curve: 'parameters.accounts[1].curve' }),
    rejected('parameters.accounts[1].curve', /must be one of/),
  );
});

test('addresses: every supported format of each curve, the public key the wire shows, and mismatches naming addressFormat', () => {
  const seed = mnemonicToSeed(JUNK);
  const k1 = deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/0");
  const compressed = addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_COMPRESSED', k1.publicKey);
  assert.match(compressed, /^0[23][0-9a-f]{64}$/);
  assert.equal(compressed, hex(k1.publicKey));
  assert.equal(accountPublicKeyHex('CURVE_SECP256K1', k1.publicKey), compressed);
  const uncompressed = addressOf('CURVE_SECP256K1', 'ADDRESS_FORMAT_UNCOMPRESSED', k1.publicKey);
  assert.equal(uncompressed, privateKeyToAccount(`0x${hex(k1.privateKey)}`).publicKey.slice(2));

  const ed = deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/0'/0'");
  assert.equal(addressOf('CURVE_ED25519', 'ADDRESS_FORMAT_COMPRESSED', ed.publicKey), hex(ed25519.getPublicKey(ed.privateKey)));
  assert.equal(accountPublicKeyHex('CURVE_ED25519', ed.publicKey), hex(ed.publicKey));

  assert.throws(() => checkAddressFormat('CURVE_ED25519', 'ADDRESS_FORMAT_ETHEREUM'), rejected('addressFormat', /ADDRESS_FORMAT_ETHEREUM is not an address of a CURVE_ED25519 key/));
  assert.throws(() => checkAddressFormat('CURVE_SECP256K1', 'ADDRESS_FORMAT_SOLANA'), rejected('addressFormat', /ADDRESS_FORMAT_SOLANA is not an address of a CURVE_SECP256K1 key/));
  assert.throws(() => checkAddressFormat('CURVE_ED25519', 'ADDRESS_FORMAT_UNCOMPRESSED'), rejected('addressFormat', /not an address of a CURVE_ED25519 key/));
  assert.throws(() => checkAddressFormat('CURVE_SECP256K1', 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH'), rejected('addressFormat', /is not supported; supported: /));
  assert.throws(() => checkAddressFormat('CURVE_SECP256K1', 'ETHEREUM', 'parameters.accounts[0].addressFormat'), rejected('parameters.accounts[0].addressFormat', /must be an ADDRESS_FORMAT_ value/));
});
