// The rules of sign_raw_payload on plain data (no store): the one read it makes (the account at
// signWith, an Ethereum address in lower case), a signature by the account's key derived from the
// wallet's sealed mnemonic and nothing written; a signWith the organization has no account at refused
// by a 404, a payload, encoding or hash function the account cannot sign by a 400 naming the field;
// sign_raw_payloads' signatures in order, the payload it cannot sign named, its list's bounds. The
// prepare step (before the decision) reads the account once and refuses what its curve cannot sign
// without its key; execute signs with the account it found, reading nothing more.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak256, recoverAddress, toBytes } from 'viem';
import { createWallet } from '../src/activities/handlers/wallets/createWallet.ts';
import { signRawPayload } from '../src/activities/handlers/wallets/signRawPayload.ts';
import { MAX_PAYLOADS, signRawPayloads } from '../src/activities/handlers/wallets/signRawPayloads.ts';
import { SignetError } from '../src/errors.ts';
import type { NewWallet, NewWalletAccount } from '../src/store/wallets.ts';
import { fieldViolations } from '../src/wire/violations.ts';
import { effectsOf, ORGANIZATION_ID, planOf, rulesContext, signerStore, checksOf } from './support/handlerRules.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;

/** A wallet as create_wallet plans it, and a store that answers its accounts by address as findSigner reads them. */
async function storedWallet() {
  const plan = await planOf(createWallet, { walletName: 'w', accounts: [ETHEREUM, SOLANA] });
  const writes = effectsOf(plan, 'write');
  const wallet = writes.find((w) => w.name === 'insertWallet')!.args[0] as NewWallet;
  const accounts = writes.find((w) => w.name === 'insertWalletAccounts')!.args[2] as NewWalletAccount[];
  const { db, reads } = signerStore(wallet, accounts);
  return { ethereum: accounts[0]!, solana: accounts[1]!, db, reads };
}

/** The field violations of a refusal, as `field: description` lines. */
async function refusal(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SignetError, String(error));
    assert.equal(error.status, 400);
    return error.fieldViolations.map((v) => `${v.field}: ${v.description}`);
  }
  assert.fail('the request was taken');
}

/** The field violations of parameters the schema refuses. */
function schemaRefusals(parameters: unknown, handler: { parameters: typeof signRawPayload.parameters | typeof signRawPayloads.parameters } = signRawPayload): string[] {
  const parsed = handler.parameters.safeParse(parameters);
  assert.equal(parsed.success, false, 'the parameters were taken');
  return fieldViolations(parsed.error!, 'parameters')
    .map((v) => `${v.field}: ${v.description}`)
    .sort((a, b) => a.localeCompare(b));
}

describe('sign_raw_payload', () => {
  test("the Ethereum account's key, derived from the wallet's mnemonic, signs; the address is read in lower case; nothing is written", async () => {
    const { ethereum, db, reads } = await storedWallet();
    const text = 'plain data';
    const plan = await planOf(
      signRawPayload,
      { signWith: ethereum.address, payload: text, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' },
      { db },
    );
    assert.equal(reads.length, 1);
    assert.ok(reads[0]!.includes(ORGANIZATION_ID) && reads[0]!.includes(ethereum.address.toLowerCase()));
    // Nothing written: the activity is kept only while the account is still there.
    assert.deepEqual(checksOf(plan).map(({ name, args }) => ({ name, args })), [{ name: 'signerStillThere', args: [ORGANIZATION_ID, 'wallet_account', ethereum.walletAccountId] }]);
    const { r, s, v } = plan.result as { r: string; s: string; v: string };
    const signer = await recoverAddress({ hash: keccak256(toBytes(text)), signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number(v) } });
    assert.equal(signer, ethereum.address);
  });

  test("the Solana account signs the message itself, with the key of the account's public key", async () => {
    const { solana, db } = await storedWallet();
    const plan = await planOf(signRawPayload, { signWith: solana.address, payload: '0x0102', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }, { db });
    const { r, s, v } = plan.result as { r: string; s: string; v: string };
    assert.equal(v, '00');
    assert.ok(ed25519.verify(Buffer.from(r + s, 'hex'), Uint8Array.of(1, 2), Buffer.from(solana.publicKey, 'hex')));
  });

  test('a signWith the organization has no account at is a 404; what the account cannot sign a 400 naming the field', async () => {
    const { ethereum, solana, db } = await storedWallet();
    const hex = { payload: '0x00', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' } as const;
    await assert.rejects(planOf(signRawPayload, { signWith: '0x0000000000000000000000000000000000000001', ...hex }, { db }), (error: unknown) => {
      assert.ok(error instanceof SignetError);
      assert.equal(error.reason, 'WALLET_ACCOUNT_NOT_FOUND');
      assert.equal(error.status, 404);
      return true;
    });
    assert.match((await refusal(planOf(signRawPayload, { signWith: solana.address, ...hex }, { db })))[0]!, /^parameters\.hashFunction: must be HASH_FUNCTION_NOT_APPLICABLE/);
    assert.match(
      (await refusal(planOf(signRawPayload, { signWith: solana.address, ...hex, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }, { db })))[0]!,
      /^parameters\.encoding: PAYLOAD_ENCODING_EIP712 is for secp256k1/,
    );
    assert.match((await refusal(planOf(signRawPayload, { signWith: ethereum.address, ...hex, payload: 'xyz' }, { db })))[0]!, /^parameters\.payload: must be an even number/);
  });

  test('prepare finds the account and refuses what its curve cannot sign, without its key; execute signs with it, reading nothing more', async () => {
    const { ethereum, solana, db, reads } = await storedWallet();
    const context = rulesContext(signRawPayload, { db });
    // The prepare context holds no key-encryption key: nothing can be opened before the decision.
    const { kek: _kek, secret: _secret, keys: _keys, activityId: _id, ...prepareContext } = context;
    const intent = signRawPayload.parameters.parse({ signWith: ethereum.address, payload: '0x00', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' });
    const account = await signRawPayload.prepare!(prepareContext, intent);
    assert.equal(account.kind === 'wallet_account' && account.address, ethereum.address);
    assert.equal(account.curve, 'CURVE_SECP256K1');
    assert.equal(reads.length, 1);
    const plan = await signRawPayload.execute(context, intent, account);
    assert.equal(reads.length, 1, 'execute read nothing more');
    const { r, s, v } = plan.result;
    assert.equal(await recoverAddress({ hash: keccak256('0x00'), signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number(v) } }), ethereum.address);

    const refusedAt = async (parameters: Record<string, unknown>) => {
      try {
        await signRawPayload.prepare!(prepareContext, signRawPayload.parameters.parse({ ...intent, ...parameters }));
      } catch (error) {
        assert.ok(error instanceof SignetError && error.status === 400, String(error));
        return error.fieldViolations.map((violation) => violation.field);
      }
      return assert.fail('prepared');
    };
    assert.deepEqual(await refusedAt({ signWith: solana.address }), ['parameters.hashFunction']);
    assert.deepEqual(await refusedAt({ signWith: solana.address, encoding: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }), ['parameters.encoding']);
    assert.deepEqual(await refusedAt({ hashFunction: 'HASH_FUNCTION_NO_OP' }), ['parameters.payload']);
    const many = signRawPayloads.parameters.parse({ signWith: ethereum.address, payloads: ['0x00', 'no'], encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' });
    assert.deepEqual(
      (await refusal(signRawPayloads.prepare!(prepareContext, many))).map((line) => line.split(':')[0]),
      ['parameters.payloads[1]'],
    );
  });

  test('the schema refuses a missing or empty signWith, an unknown encoding or hash function, an unknown field', () => {
    assert.deepEqual(schemaRefusals({ signWith: '', payload: '00', encoding: 'PAYLOAD_ENCODING_HEX', hashFunction: 'HASH_FUNCTION_MD5', extra: 1 }), [
      'parameters.encoding: must be one of PAYLOAD_ENCODING_HEXADECIMAL, PAYLOAD_ENCODING_TEXT_UTF8, PAYLOAD_ENCODING_EIP712, PAYLOAD_ENCODING_EIP7702_AUTHORIZATION',
      'parameters.extra: unknown field; remove it (field names are case-sensitive)',
      'parameters.hashFunction: must be one of HASH_FUNCTION_KECCAK256, HASH_FUNCTION_SHA256, HASH_FUNCTION_NO_OP, HASH_FUNCTION_NOT_APPLICABLE',
      'parameters.signWith: must not be empty',
    ]);
    assert.deepEqual(schemaRefusals({ payload: '00', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }), [
      'parameters.signWith: required field is missing',
    ]);
  });

  test('sign_raw_payloads: each payload signed in order; the one the account cannot sign named; 1 to MAX_PAYLOADS payloads', async () => {
    const { ethereum, db } = await storedWallet();
    const base = { signWith: ethereum.address, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' } as const;
    const digests = [keccak256(toBytes('one')), keccak256(toBytes('two'))];
    const plan = await planOf(signRawPayloads, { ...base, payloads: digests }, { db });
    const { signatures } = plan.result as { signatures: Array<{ r: string; s: string; v: string }> };
    for (const [index, hash] of digests.entries()) {
      const { r, s, v } = signatures[index]!;
      assert.equal(await recoverAddress({ hash, signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number(v) } }), ethereum.address);
    }
    assert.match((await refusal(planOf(signRawPayloads, { ...base, payloads: [digests[0]!, '0x01'] }, { db })))[0]!, /^parameters\.payloads\[1\]: is 1 bytes/);
    const hex = { signWith: ethereum.address, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' };
    assert.deepEqual(schemaRefusals({ ...hex, payloads: [] }, signRawPayloads), ['parameters.payloads: must hold at least one payload']);
    assert.deepEqual(schemaRefusals({ ...hex, payloads: Array.from({ length: MAX_PAYLOADS + 1 }, () => '00') }, signRawPayloads), [
      `parameters.payloads: may hold at most ${MAX_PAYLOADS} payloads`,
    ]);
  });
});
