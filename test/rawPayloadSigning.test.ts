// sign_raw_payload's signing (src/keys/rawPayload.ts), pure: each encoding and hash function gives the
// {r, s, v} the ecosystem's libraries turn into a signature (viem recovers the signer from it the way
// @turnkey/viem assembles it: v "00"/"01" as yParity), s is low, ed25519 gives r ‖ s and v "00", and
// each refusal names its field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hashMessage, keccak256, recoverMessageAddress, recoverTypedDataAddress, serializeSignature, serializeTypedData, toHex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { ParameterRejected } from '../src/keys/parameterRejected.ts';
import { MAX_PAYLOAD_CHARACTERS, signRawPayload, type RawSignature } from '../src/keys/rawPayload.ts';

const seed = mnemonicToSeed('test test test test test test test test test test test junk');
const k1 = deriveAccountKey('CURVE_SECP256K1', seed, "m/44'/60'/0'/0/0");
const ed = deriveAccountKey('CURVE_ED25519', seed, "m/44'/501'/0'/0'");
const account = privateKeyToAccount(toHex(k1.privateKey));
const HALF_N = secp256k1.CURVE.n / 2n;

/** What @turnkey/viem does with the result: r, s, and v read as yParity. */
const toViemSignature = ({ r, s, v }: RawSignature) => serializeSignature({ r: `0x${r}`, s: `0x${s}`, yParity: Number(BigInt(v)) });

const signK1 = (payload: string, encoding: string, hashFunction: string) =>
  signRawPayload({ curve: 'CURVE_SECP256K1', privateKey: k1.privateKey, payload, encoding, hashFunction });

const shape = (signature: RawSignature) => {
  assert.match(signature.r, /^[0-9a-f]{64}$/);
  assert.match(signature.s, /^[0-9a-f]{64}$/);
  assert.match(signature.v, /^0[01]$/);
  assert.ok(BigInt(`0x${signature.s}`) <= HALF_N, 's is low');
};

const rejected = (field: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ParameterRejected, String(error));
  assert.equal(error.field, field);
  assert.match(error.description, pattern);
  return true;
};

test('HEXADECIMAL + NO_OP (how @turnkey/viem signs a message: its hash, 0x-prefixed) recovers to the account', async () => {
  for (const message of ['hello', 'Signet', '']) {
    const signature = signK1(hashMessage(message), 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP');
    shape(signature);
    assert.equal(await recoverMessageAddress({ message, signature: toViemSignature(signature) }), account.address);
    // Without 0x, the same digest and the same (deterministic) signature.
    assert.deepEqual(signK1(hashMessage(message).slice(2), 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP'), signature);
  }
});

test('KECCAK256 and SHA256 hash the payload bytes first: the same signature viem and noble make over that hash', async () => {
  const payload = '0xdeadbeef00';
  const signature = signK1(payload, 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_KECCAK256');
  const expected = await sign({ hash: keccak256(payload), privateKey: toHex(k1.privateKey) });
  assert.deepEqual(signature, { r: expected.r.slice(2), s: expected.s.slice(2), v: `0${expected.yParity}` });

  const text = 'naïve ✓';
  const sha = signK1(text, 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_SHA256');
  shape(sha);
  const digest = sha256(new TextEncoder().encode(text));
  assert.ok(secp256k1.verify(Buffer.from(sha.r + sha.s, 'hex'), digest, k1.publicKey));
  const recovered = new secp256k1.Signature(BigInt(`0x${sha.r}`), BigInt(`0x${sha.s}`)).addRecoveryBit(Number(sha.v)).recoverPublicKey(digest);
  assert.equal(recovered.toHex(true), Buffer.from(k1.publicKey).toString('hex'));
});

test('s is always low and v is the recovery id, over many digests', () => {
  const vs = new Set<string>();
  for (let i = 0; i < 64; i++) {
    const signature = signK1(keccak256(toHex(`message ${i}`)), 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP');
    shape(signature);
    vs.add(signature.v);
  }
  assert.deepEqual([...vs].sort(), ['00', '01']);
});

const MAIL = {
  domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
      { name: 'amount', type: 'uint256' },
    ],
  },
  primaryType: 'Mail',
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
    amount: 10n ** 30n,
  },
} as const;

test('EIP712: the typed data JSON as @turnkey/viem (serializeTypedData) and @turnkey/ethers send it recovers to the account', async () => {
  const fullTypes = { EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ] as const, ...MAIL.types };
  // viem's signTypedData adds EIP712Domain to the types before the account serializes them.
  const fromViem = serializeTypedData({ ...MAIL, domain: { ...MAIL.domain, chainId: 1n }, types: fullTypes });
  const signature = signK1(fromViem, 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP');
  shape(signature);
  assert.equal(await recoverTypedDataAddress({ ...MAIL, signature: toViemSignature(signature) }), account.address);
  // Without EIP712Domain in the types, the domain's type follows from its fields (as viem's hashTypedData
  // does): the same digest.
  const withoutDomainType = JSON.stringify({ ...MAIL, message: { ...MAIL.message, amount: String(MAIL.message.amount) } });
  assert.deepEqual(signK1(withoutDomainType, 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), signature);
  // ethers' TypedDataEncoder.getPayload: numbers as decimal strings, EIP712Domain in the types.
  const fromEthers = JSON.stringify({ types: fullTypes, domain: MAIL.domain, primaryType: 'Mail', message: { ...MAIL.message, amount: (10n ** 30n).toString() } });
  assert.deepEqual(signK1(fromEthers, 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), signature);
});

test('EIP7702_AUTHORIZATION: {address, chainId, nonce} as @turnkey/viem sends it recovers to the account', async () => {
  const authorization = { address: '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B', chainId: 1, nonce: 7 } as const;
  const signature = signK1(JSON.stringify(authorization), 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', 'HASH_FUNCTION_NO_OP');
  shape(signature);
  const recovered = await recoverAuthorizationAddress({
    authorization: { ...authorization, r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: Number(signature.v) },
  });
  assert.equal(recovered, account.address);
  // chainId 0 (any chain) and a nonce as a decimal string sign the same authorization as numbers.
  const anyChain = signK1(JSON.stringify({ ...authorization, chainId: 0, nonce: '7' }), 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', 'HASH_FUNCTION_NO_OP');
  assert.equal(
    await recoverAuthorizationAddress({ authorization: { ...authorization, chainId: 0, r: `0x${anyChain.r}`, s: `0x${anyChain.s}`, yParity: Number(anyChain.v) } }),
    account.address,
  );
});

test('ed25519: r and s are the signature halves, v is 00, over the message itself', () => {
  for (const [payload, encoding, bytes] of [
    ['0x0102ff', 'PAYLOAD_ENCODING_HEXADECIMAL', Buffer.from('0102ff', 'hex')],
    ['hello solana', 'PAYLOAD_ENCODING_TEXT_UTF8', Buffer.from('hello solana')],
  ] as const) {
    const signature = signRawPayload({ curve: 'CURVE_ED25519', privateKey: ed.privateKey, payload, encoding, hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' });
    assert.equal(signature.v, '00');
    assert.ok(ed25519.verify(Buffer.from(signature.r + signature.s, 'hex'), bytes, ed.publicKey));
  }
});

test('refusals name the field: payload, encoding, hashFunction, for each curve', () => {
  const payload = 'parameters.payload';
  const hashFunction = 'parameters.hashFunction';
  const encoding = 'parameters.encoding';
  assert.throws(() => signK1('0xabc', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_KECCAK256'), rejected(payload, /even number of hexadecimal digits/));
  assert.throws(() => signK1('zz', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_KECCAK256'), rejected(payload, /even number of hexadecimal digits/));
  assert.throws(() => signK1('0x1234', 'PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_NO_OP'), rejected(payload, /is 2 bytes; with HASH_FUNCTION_NO_OP it is the 32-byte digest/));
  assert.throws(() => signK1('a'.repeat(MAX_PAYLOAD_CHARACTERS + 2), 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_SHA256'), rejected(payload, /the limit is 65536/));
  assert.throws(() => signK1('\ud800', 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_SHA256'), rejected(payload, /unpaired UTF-16 surrogate/));
  assert.throws(() => signK1('hello', 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_NOT_APPLICABLE'), rejected(hashFunction, /HASH_FUNCTION_NOT_APPLICABLE is for ed25519 keys/));
  assert.throws(() => signK1('hello', 'PAYLOAD_ENCODING_TEXT_UTF8', 'HASH_FUNCTION_MD5'), rejected(hashFunction, /must be one of/));
  assert.throws(() => signK1('hello', 'PAYLOAD_ENCODING_BASE64', 'HASH_FUNCTION_SHA256'), rejected(encoding, /must be one of/));
  assert.throws(() => signK1(serializeTypedData(MAIL), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_KECCAK256'), rejected(hashFunction, /must be HASH_FUNCTION_NO_OP with PAYLOAD_ENCODING_EIP712/));
  assert.throws(() => signK1('{"types":', 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), rejected(payload, /is not JSON/));
  assert.throws(() => signK1('{"primaryType":"Mail"}', 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), rejected(payload, /has no "types" object/));
  assert.throws(() => signK1(JSON.stringify({ ...JSON.parse(serializeTypedData(MAIL)), primaryType: 'Letter' }), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), rejected(payload, /is not valid EIP-712 typed data/));
  const wrongAmount = JSON.parse(serializeTypedData(MAIL));
  wrongAmount.message.amount = 'lots';
  assert.throws(() => signK1(JSON.stringify(wrongAmount), 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), rejected(payload, /is not valid EIP-712 typed data/));
  assert.throws(() => signK1(`{"types":${'['.repeat(40)}${']'.repeat(40)}}`, 'PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NO_OP'), rejected('parameters.payload.types[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]', /more than 16 levels/));
  assert.throws(() => signK1('{"address":"0x12","chainId":1,"nonce":0}', 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', 'HASH_FUNCTION_NO_OP'), rejected(payload, /"address" must be 0x and 40 hex digits/));
  const authorization = { address: '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B', chainId: 1, nonce: 0 };
  for (const nonce of [-1, 1.5, '2'.repeat(30), 2 ** 64]) {
    assert.throws(() => signK1(JSON.stringify({ ...authorization, nonce }), 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', 'HASH_FUNCTION_NO_OP'), rejected(payload, /"nonce" must be a whole number/));
  }
  const signEd = (encodingValue: string, hashFunctionValue: string) =>
    signRawPayload({ curve: 'CURVE_ED25519', privateKey: ed.privateKey, payload: '0x01', encoding: encodingValue, hashFunction: hashFunctionValue });
  assert.throws(() => signEd('PAYLOAD_ENCODING_HEXADECIMAL', 'HASH_FUNCTION_SHA256'), rejected(hashFunction, /must be HASH_FUNCTION_NOT_APPLICABLE for an ed25519 key/));
  assert.throws(() => signEd('PAYLOAD_ENCODING_EIP712', 'HASH_FUNCTION_NOT_APPLICABLE'), rejected(encoding, /an ed25519 key signs PAYLOAD_ENCODING_HEXADECIMAL or PAYLOAD_ENCODING_TEXT_UTF8/));
});
