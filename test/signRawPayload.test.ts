// sign_raw_payload through the real HTTP stack and @turnkey/http's own TurnkeyClient, with a wallet of an
// Ethereum and a Solana account: a keccak256 of hex bytes and of UTF-8 text signed by the Ethereum
// account recover to its address with viem, s low (the address named in lower case as well); a message
// signed by the Solana account verifies with @noble/curves' ed25519 against the account's public key;
// neither the mnemonic nor a private key is in the store or the logs; a user no policy allows is
// refused (403), and under a policy asking for its and the root user's approvals waits and is signed
// at the root user's approval, once; a signWith the organization has no account at is a 404 (as the
// ecosystem answers), a bad payload, encoding or hash function a 400 naming the field; nothing is
// stored. sign_raw_payloads signs several payloads with one account, in order, and names the payload
// it cannot sign.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { TurnkeyClient } from '@turnkey/http';
import { keccak256, recoverAddress, toBytes, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/createWallet.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { forgetCachedSigners } from '../src/store/signers.ts';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { logCapture } from './support/logCapture.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const HALF_N = secp256k1.Point.CURVE().n / 2n;

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;
interface SignParameters {
  signWith: string;
  payload: string;
  encoding: string;
  hashFunction: string;
}

const signBody = (organizationId: string, parameters: SignParameters) => envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId, parameters as any);

/** The signer viem recovers from a secp256k1 answer over `hash`, after checking its shape and that s is low. */
async function signerOf(hash: Hex, signature: { r: string; s: string; v: string }) {
  assert.match(signature.r, /^[0-9a-f]{64}$/);
  assert.match(signature.s, /^[0-9a-f]{64}$/);
  assert.ok(signature.v === '00' || signature.v === '01', signature.v);
  assert.ok(BigInt(`0x${signature.s}`) <= HALF_N, 's is low');
  return recoverAddress({ hash, signature: { r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: Number(signature.v) } });
}

for (const tdb of testDatabases) {
  describe(`sign_raw_payload (${tdb.name})`, () => {
    const log = logCapture();
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;
    let walletId: string;
    let ethereumAddress: string;
    let solanaAddress: string;
    let member: Keys & { userId: string };

    const sign = (keys: Keys, parameters: SignParameters) => server.client(keys).signRawPayload(signBody(org.organizationId, parameters) as any) as Promise<any>;
    const activityCount = async () =>
      (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities WHERE organization_id = $1', [org.organizationId]))[0]!.n;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Signing');
      client = server.client(org);
      const answer = (await client.createWallet(
        envelope('ACTIVITY_TYPE_CREATE_WALLET', org.organizationId, { walletName: 'Signing', accounts: [ETHEREUM, SOLANA] }) as any,
      )) as any;
      ({ walletId } = answer.activity.result.createWalletResult);
      [ethereumAddress, solanaAddress] = answer.activity.result.createWalletResult.addresses;
      const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'member' });
      const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      member = { userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
    });
    after(() => server.close());

    test('the Ethereum account signs keccak256 of hex bytes: viem recovers its address, s is low', async () => {
      const payload = '0x48656c6c6f2c205369676e657421';
      const { activity } = await sign(org, { signWith: ethereumAddress, payload, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' });
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2');
      assert.deepEqual(activity.intent.signRawPayloadIntentV2, {
        signWith: ethereumAddress,
        payload,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      });
      assert.equal(await signerOf(keccak256(payload as Hex), activity.result.signRawPayloadResult), ethereumAddress);
    });

    test('the Ethereum account, named in lower case, signs keccak256 of UTF-8 text', async () => {
      const text = 'Signet signs: ünïcödé ✓';
      const { activity } = await sign(org, { signWith: ethereumAddress.toLowerCase(), payload: text, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' });
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(await signerOf(keccak256(toBytes(text)), activity.result.signRawPayloadResult), ethereumAddress);
    });

    test("the Solana account signs the message itself: it verifies with ed25519 against the account's public key", async () => {
      const message = 'Solana message to sign';
      const { activity } = await sign(org, { signWith: solanaAddress, payload: message, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' });
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { r, s, v } = activity.result.signRawPayloadResult;
      assert.equal(v, '00');
      const { account } = (await client.getWalletAccount({ organizationId: org.organizationId, walletId, address: solanaAddress })) as any;
      const signature = Buffer.from(r + s, 'hex');
      assert.equal(signature.length, 64);
      assert.ok(ed25519.verify(signature, new TextEncoder().encode(message), Buffer.from(account.publicKey, 'hex')));
      assert.ok(!ed25519.verify(signature, new TextEncoder().encode(`${message}!`), Buffer.from(account.publicKey, 'hex')));
    });

    test('sign_raw_payloads signs each payload with the one account, in order; a payload it cannot sign is a 400 naming it, nothing stored', async () => {
      const payloads = ['0x01', '0x0203', '0x'];
      const parameters = { signWith: ethereumAddress, payloads, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' };
      const { activity } = (await client.signRawPayloads(envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', org.organizationId, parameters) as any)) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(activity.intent.signRawPayloadsIntent, parameters);
      const { signatures } = activity.result.signRawPayloadsResult;
      assert.equal(signatures.length, payloads.length);
      for (const [index, payload] of payloads.entries()) assert.equal(await signerOf(keccak256(payload as Hex), signatures[index]), ethereumAddress);

      const before = await activityCount();
      await refused(
        client.signRawPayloads(envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', org.organizationId, { ...parameters, payloads: ['0x01', 'zz'] }) as any),
        INVALID_ARGUMENT,
        /even number of hexadecimal digits/,
        'parameters.payloads[1]',
      );
      assert.equal(await activityCount(), before);
    });

    test('a private key signs named by its id or by its address (Ethereum in any case, Solana exactly), in sign_raw_payload and sign_raw_payloads', async () => {
      const answer = (await client.createPrivateKeys(
        envelope('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', org.organizationId, {
          privateKeys: [
            { privateKeyName: 'Signing key', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] },
            { privateKeyName: 'Solana key', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_SOLANA'] },
          ],
        }) as any,
      )) as any;
      const [secp, ed] = answer.activity.result.createPrivateKeysResultV2.privateKeys;
      const keyAddress: string = secp.addresses[0].address;
      const text = 'signed by a private key';
      for (const signWith of [secp.privateKeyId, secp.privateKeyId.toUpperCase(), keyAddress, keyAddress.toLowerCase()]) {
        const { activity } = await sign(org, { signWith, payload: text, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' });
        assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED', signWith);
        assert.equal(await signerOf(keccak256(toBytes(text)), activity.result.signRawPayloadResult), keyAddress);
      }
      const payloads = ['0x01', '0x0203'];
      const many = (await client.signRawPayloads(
        envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS', org.organizationId, { signWith: keyAddress, payloads, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }) as any,
      )) as any;
      const { signatures } = many.activity.result.signRawPayloadsResult;
      for (const [index, payload] of payloads.entries()) assert.equal(await signerOf(keccak256(payload as Hex), signatures[index]), keyAddress);

      const { privateKey } = (await client.getPrivateKey({ organizationId: org.organizationId, privateKeyId: ed.privateKeyId })) as any;
      for (const signWith of [ed.privateKeyId, ed.addresses[0].address]) {
        const { activity } = await sign(org, { signWith, payload: text, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' });
        const { r, s } = activity.result.signRawPayloadResult;
        assert.ok(ed25519.verify(Buffer.from(r + s, 'hex'), new TextEncoder().encode(text), Buffer.from(privateKey.publicKey, 'hex')));
      }
      // A Solana address matches exactly.
      await refused(
        sign(org, { signWith: ed.addresses[0].address.toLowerCase(), payload: text, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }),
        NOT_FOUND,
        /could not find any resource to sign with/,
      );
    });

    test('a signWith the organization has no account at is a 404; a bad payload, encoding or hash function a 400 naming the field; nothing is stored', async () => {
      const before = await activityCount();
      const hex = { payload: '0xdeadbeef', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' };
      await refused(sign(org, { signWith: '0x0000000000000000000000000000000000000001', ...hex }), NOT_FOUND, /resource to sign with: parameters\.signWith 0x0+1 is no wallet account/);
      // A Solana address matches exactly: the same address in another case is no account.
      await refused(sign(org, { signWith: solanaAddress.toLowerCase(), ...hex, hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }), NOT_FOUND, /no wallet account/);
      await refused(sign(org, { signWith: ethereumAddress, ...hex, payload: '0xabc' }), INVALID_ARGUMENT, /even number of hexadecimal digits/, 'parameters.payload');
      await refused(sign(org, { signWith: ethereumAddress, ...hex, encoding: 'PAYLOAD_ENCODING_BASE64' }), INVALID_ARGUMENT, /must be one of/, 'parameters.encoding');
      await refused(sign(org, { signWith: ethereumAddress, ...hex, hashFunction: 'HASH_FUNCTION_MD5' }), INVALID_ARGUMENT, /must be one of/, 'parameters.hashFunction');
      await refused(sign(org, { signWith: solanaAddress, ...hex }), INVALID_ARGUMENT, /HASH_FUNCTION_NOT_APPLICABLE/, 'parameters.hashFunction');
      await refused(
        sign(org, { signWith: ethereumAddress, ...hex, hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }),
        INVALID_ARGUMENT,
        /for ed25519 keys/,
        'parameters.hashFunction',
      );
      await refused(sign(org, { signWith: ethereumAddress, ...hex, hashFunction: 'HASH_FUNCTION_NO_OP' }), INVALID_ARGUMENT, /32-byte digest/, 'parameters.payload');
      assert.equal(await activityCount(), before);
    });

    test('a user no policy allows is refused (403); under a policy asking for it and the root user, it waits and the approval signs once', async () => {
      const hash = keccak256(toBytes('approved payment'));
      const parameters = { signWith: ethereumAddress, payload: hash, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' };
      await refused(sign(member, parameters), PERMISSION_DENIED, /./);

      const { activity: policy } = (await client.createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', org.organizationId, {
          policyName: 'signing needs the member and the root user',
          effect: 'EFFECT_ALLOW',
          condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'",
          consensus: `approvers.filter(user, user.id == '${member.userId}' || user.id == '${org.userId}').count() >= 2`,
          notes: '',
        }),
      )) as any;
      assert.equal(policy.status, 'ACTIVITY_STATUS_COMPLETED');

      const { activity: waiting } = await sign(member, parameters);
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.deepEqual(waiting.result.activity?.result ?? {}, {});

      const approval = envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', org.organizationId, { fingerprint: waiting.fingerprint });
      const { activity: approved } = (await client.approveActivity(approval as any)) as any;
      assert.equal(approved.id, waiting.id);
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      const signature = approved.result.signRawPayloadResult;
      assert.equal(await signerOf(hash, signature), ethereumAddress);
      // The same approval again answers the stored result: the payload was signed once.
      const { activity: again } = (await client.approveActivity(approval as any)) as any;
      assert.deepEqual(again.result.signRawPayloadResult, signature);
      const { activity: read } = (await client.getActivity({ organizationId: org.organizationId, activityId: waiting.id })) as any;
      assert.deepEqual(read.result.signRawPayloadResult, signature);
    });

    test('neither the mnemonic, its seed nor an account private key is in the store or in the logs', async () => {
      const [row] = await server.db.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM wallets WHERE id = $1', [walletId]);
      const opened = await openKeyMaterial(server.server.kek, { organizationId: org.organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, row!.sealed_mnemonic);
      const mnemonic = opened.toString('utf8');
      opened.fill(0);
      const ethereumKey = Buffer.from(mnemonicToAccount(mnemonic).getHdKey().privateKey!).toString('hex');
      const seed = mnemonicToSeed(mnemonic);
      const solanaKey = Buffer.from(deriveAccountKey('CURVE_ED25519', seed, SOLANA.path).privateKey).toString('hex');
      const secrets = { mnemonic, seed: Buffer.from(seed).toString('hex'), 'Ethereum private key': ethereumKey, 'Solana private key': solanaKey };

      const tables = await server.db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
      );
      let dump = '';
      for (const { table_name } of tables) {
        const rows = await server.db.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
        dump += rows.map((r) => r.row).join('\n');
      }
      assert.ok(dump.includes('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'), 'the dump holds the signing activities');
      const logs = log.text();
      assert.ok(logs.includes('sign_raw_payload'), 'the logs hold the requests');
      for (const [what, value] of Object.entries(secrets)) {
        assert.ok(!dump.toLowerCase().includes(value.toLowerCase()), `the ${what} is in the store`);
        assert.ok(!logs.toLowerCase().includes(value.toLowerCase()), `the ${what} is in the logs`);
      }
    });

    test("each account's key is sealed on its own row; an account stored without one signs with the key derived from the mnemonic, the same signature", async () => {
      const answer = (await client.createWallet(envelope('ACTIVITY_TYPE_CREATE_WALLET', org.organizationId, { walletName: 'Older', accounts: [ETHEREUM] }) as any)) as any;
      const [address] = answer.activity.result.createWalletResult.addresses;
      const [account] = await server.db.query<{ id: string; sealed_private_key: string | null }>('SELECT id, sealed_private_key FROM wallet_accounts WHERE address = $1', [address]);
      assert.match(account!.sealed_private_key ?? '', /^v1\./, 'the account holds its sealed key');
      const parameters = { signWith: address, payload: '0x5369676e6574', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' };
      const sealed = (await sign(org, parameters)).activity.result.signRawPayloadResult;
      assert.equal(await signerOf(keccak256(parameters.payload as Hex), sealed), address);

      // Another account's sealed key copied onto this row does not open: the seal is bound to its row.
      const [other] = await server.db.query<{ sealed_private_key: string }>('SELECT sealed_private_key FROM wallet_accounts WHERE address = $1', [ethereumAddress]);
      await server.db.query('UPDATE wallet_accounts SET sealed_private_key = $1 WHERE id = $2', [other!.sealed_private_key, account!.id]);
      forgetCachedSigners(server.db); // the server keeps a key it found for a few seconds
      const moved = (await sign(org, parameters).catch((error: unknown) => error)) as any;
      assert.ok(moved instanceof Error, 'a key sealed for another row signs nothing');
      assert.doesNotMatch(String(moved.message), /[0-9a-f]{64}/, 'the refusal carries no key material');

      await server.db.query('UPDATE wallet_accounts SET sealed_private_key = NULL WHERE id = $1', [account!.id]);
      forgetCachedSigners(server.db);
      const derived = (await sign(org, parameters)).activity.result.signRawPayloadResult;
      assert.deepEqual(derived, sealed, 'RFC 6979 signatures of one key over one hash are equal');
    });
  });
}
