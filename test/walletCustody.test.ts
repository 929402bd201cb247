// Where a wallet's secrets are not: a `signet serve` makes a wallet with an Ethereum and a Solana
// account and signs with both; then its mnemonic, read back through the sealed path with the KEK the
// server used (the deployment secret's, or the SoftHSM2 token's under SIGNET_TEST_KEK=softhsm), its
// seed and both private keys (as text, hex, base64 and raw bytes; any three words of the mnemonic in
// a row) are looked for in every file of the store (the embedded store's data folder; on PostgreSQL
// every row of every table, and a pg_dump where the tool is installed), in everything the server
// logged at trace level, and in a `signet backup` file (its header and its unpacked store), and found
// nowhere. The backup restores into a new data folder whose server signs with the same wallet,
// given the same KEK source.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { base58 } from '@scure/base';
import { keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/createWallet.ts';
import { deploymentSecret } from '../src/admin/localSecrets.ts';
import { loadConfig } from '../src/config.ts';
import { openPkcs11Kek } from '../src/hsm/pkcs11Kek.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { keyRing } from '../src/keys/custody/keyRing.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey } from '../src/keys/derivation.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { freePort, serve, signet, type Served } from './support/processes.ts';
import { ADMIN_TOKEN, type Credentials } from './support/server.ts';
import { softHsmEnv, testKekInSoftHsm } from './support/softhsm.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
const OTP_SECRET = 'custody-test-otp-secret-0123456789-abcdefghijklmnop';

const hasTool = (name: string) => (process.env.PATH ?? '').split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, name)));

/** Every file under `dir`, with its path. */
function filesUnder(dir: string): Array<{ file: string; bytes: Buffer }> {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).flatMap((entry) => {
    if (!entry.isFile()) return [];
    const file = path.join(entry.parentPath, entry.name);
    return [{ file, bytes: fs.readFileSync(file) }];
  });
}

/** What must be nowhere, each as the bytes to look for. */
function needles(mnemonic: string, seed: Uint8Array, keys: Record<string, Uint8Array>): Array<[string, Buffer]> {
  const words = mnemonic.split(' ');
  const found: Array<[string, Buffer]> = [['the mnemonic', Buffer.from(mnemonic)]];
  for (let at = 0; at + 3 <= words.length; at++) found.push([`words ${at + 1} to ${at + 3} of the mnemonic`, Buffer.from(words.slice(at, at + 3).join(' '))]);
  for (const [what, bytes] of Object.entries({ seed, ...keys })) {
    const raw = Buffer.from(bytes);
    found.push([`the ${what}`, raw], [`the ${what} in hex`, Buffer.from(raw.toString('hex'))], [`the ${what} in HEX`, Buffer.from(raw.toString('hex').toUpperCase())], [`the ${what} in base64`, Buffer.from(raw.toString('base64'))]);
  }
  return found;
}

function assertNowhere(haystacks: Array<{ where: string; bytes: Buffer }>, secrets: Array<[string, Buffer]>): void {
  for (const { where, bytes } of haystacks) {
    for (const [what, needle] of secrets) assert.equal(bytes.indexOf(needle), -1, `${what} is in ${where}`);
  }
}

async function signer(text: string, signature: { r: string; s: string; v: string }) {
  return recoverAddress({ hash: keccak256(toHex(text) as Hex), signature: { r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: Number(signature.v) } });
}

const signRaw = (client: TurnkeyClient, organizationId: string, signWith: string, payload: string, hashFunction: string) =>
  client.signRawPayload(envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId, { signWith, payload, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction }) as any) as Promise<any>;

for (const tdb of testDatabases) {
  describe(`a wallet's secrets are in no store file, log or backup; the backup restores it (${tdb.name}${testKekInSoftHsm ? ', KEK in SoftHSM2' : ''})`, () => {
    let store: ServerStore;
    let work: string;
    const running: Served[] = [];

    before(async () => {
      store = await serverStore(tdb, 'signet_custody');
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-custody-'));
    });
    after(async () => {
      for (const served of running) if (served.child.exitCode === null) await served.stop();
      await store?.dispose();
      fs.rmSync(work, { recursive: true, force: true });
    });

    async function start(storeEnv: Record<string, string>) {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = {
        ...storeEnv,
        // The embedded store keeps its generated secret in the data folder (and a backup carries it); PostgreSQL's processes are given one.
        SIGNET_OTP_SECRET: tdb.url ? OTP_SECRET : '',
        SIGNET_PORT: String(port),
        SIGNET_URL: baseUrl,
        SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
        SIGNET_LOG_LEVEL: 'trace',
        ...(testKekInSoftHsm ? softHsmEnv() : {}),
      };
      const served = await serve(env, baseUrl);
      running.push(served);
      return { served, baseUrl, env };
    }

    test('mnemonic, seed and private keys are nowhere; signet backup restores a server that signs with the wallet', async () => {
      const first = await start(store.env);
      const org = (await (
        await fetch(`${first.baseUrl}/admin/v1/organizations`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Custody' }) })
      ).json()) as Credentials;
      const clientOf = (baseUrl: string) => new TurnkeyClient({ baseUrl }, new ApiKeyStamper(org));
      const client = clientOf(first.baseUrl);
      const created = (await client.createWallet(envelope('ACTIVITY_TYPE_CREATE_WALLET', org.organizationId, { walletName: 'Kept', accounts: [ETHEREUM, SOLANA] }) as any)) as any;
      const { walletId, addresses } = created.activity.result.createWalletResult;
      const [ethereumAddress, solanaAddress] = addresses as [string, string];
      // Both keys in use: a secp256k1 and an Ed25519 signature.
      const ethereumSigned = await signRaw(client, org.organizationId, ethereumAddress, toHex('kept'), 'HASH_FUNCTION_KECCAK256');
      assert.equal(await signer('kept', ethereumSigned.activity.result.signRawPayloadResult), ethereumAddress);
      const message = Buffer.from('kept on Solana');
      const solanaSigned = (await signRaw(client, org.organizationId, solanaAddress, message.toString('hex'), 'HASH_FUNCTION_NOT_APPLICABLE')).activity.result.signRawPayloadResult;
      assert.ok(ed25519.verify(Buffer.from(solanaSigned.r + solanaSigned.s, 'hex'), message, base58.decode(solanaAddress)));

      const backupFile = path.join(work, 'signet.backup');
      if (!tdb.url) {
        const backup = await signet(['backup', backupFile], first.env);
        assert.equal(backup.code, 0, backup.stderr);
      }
      assert.equal(await first.served.stop(), 0);
      const logs = first.served.output();
      assert.ok(logs.includes('/public/v1/submit/sign_raw_payload') && logs.includes('ACTIVITY_TYPE_CREATE_WALLET'), 'the trace-level logs hold the requests');

      // The mnemonic through the sealed path, with the KEK source the server used.
      const db = await store.open();
      let mnemonic: string;
      let rows = '';
      try {
        const [row] = await db.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM wallets WHERE id = $1', [walletId]);
        const config = loadConfig(first.env);
        const secretKek = deploymentSecretKek(deploymentSecret(config).key);
        const hsm = config.pkcs11 ? await openPkcs11Kek(config.pkcs11) : undefined;
        try {
          const opened = await openKeyMaterial(keyRing(hsm ?? secretKek, secretKek), { organizationId: org.organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, row!.sealed_mnemonic);
          mnemonic = opened.toString('utf8');
          opened.fill(0);
        } finally {
          await hsm?.close();
        }
        // Every row of every table, as text (what a dump holds).
        const tables = await db.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
        for (const { table_name } of tables) rows += (await db.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`)).map((r) => r.row).join('\n');
      } finally {
        await db.close();
      }
      assert.ok(rows.includes(walletId) && rows.includes(ethereumAddress), 'the rows hold the wallet and its account');
      const seed = mnemonicToSeed(mnemonic);
      const secrets = needles(mnemonic, seed, {
        'Ethereum private key': deriveAccountKey('CURVE_SECP256K1', seed, ETHEREUM.path).privateKey,
        'Solana private key': deriveAccountKey('CURVE_ED25519', seed, SOLANA.path).privateKey,
      });

      const haystacks: Array<{ where: string; bytes: Buffer }> = [
        { where: 'the logs', bytes: Buffer.from(logs) },
        { where: 'the rows of the store', bytes: Buffer.from(rows) },
      ];
      if (tdb.url) {
        if (hasTool('pg_dump')) {
          const url = new URL(store.env.SIGNET_DATABASE_URL);
          const schema = url.searchParams.get('options')!.replace('-c search_path=', '');
          const dump = execFileSync('pg_dump', ['--dbname', tdb.url, '--schema', schema, '--format=plain'], { maxBuffer: 256 * 1024 * 1024 });
          assert.ok(dump.includes(walletId), 'the dump holds the wallet');
          haystacks.push({ where: 'a pg_dump of the schema', bytes: dump });
        }
      } else {
        const files = filesUnder(store.dataDir);
        assert.ok(files.some(({ file }) => file.includes(`${path.sep}pglite${path.sep}`)), 'the data folder holds the embedded store');
        haystacks.push(...files.map(({ file, bytes }) => ({ where: path.relative(store.dataDir, file), bytes })));
        const backup = fs.readFileSync(backupFile);
        const headerEnd = backup.indexOf(0x0a) + 1;
        const unpacked = gunzipSync(backup.subarray(headerEnd));
        assert.ok(unpacked.includes(Buffer.from(walletId)), "the backup's store holds the wallet");
        haystacks.push({ where: 'the backup file', bytes: backup }, { where: "the backup's unpacked store", bytes: unpacked });
      }
      assertNowhere(haystacks, secrets);

      if (tdb.url) return; // PostgreSQL is backed up with pg_dump (test/backup.test.ts)
      // Restored into a new data folder and served with the same KEK source, the wallet signs.
      const restoredDir = path.join(work, 'restored');
      const restored = await signet(['restore', backupFile], { SIGNET_DATA_DIR: restoredDir, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' });
      assert.equal(restored.code, 0, restored.stderr);
      const second = await start({ SIGNET_DATA_DIR: restoredDir, SIGNET_DATABASE_URL: '' });
      const again = await signRaw(clientOf(second.baseUrl), org.organizationId, ethereumAddress, toHex('restored'), 'HASH_FUNCTION_KECCAK256');
      assert.equal(again.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(await signer('restored', again.activity.result.signRawPayloadResult), ethereumAddress);
      assert.equal(await second.served.stop(), 0);
      assertNowhere([{ where: "the restored server's logs", bytes: Buffer.from(second.served.output()) }], secrets);
    });
  });
}
