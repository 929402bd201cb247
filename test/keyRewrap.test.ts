// Moving wallet keys to another key-encryption key while Signet serves (src/admin/keyRewrap.ts,
// `signet keys rewrap`). In process: values sealed under the deployment secret's KEK are re-sealed
// under a new one, a value written while the rewrap works on its row is kept (and re-sealed), a
// second run finds them current, a value no reachable KEK opens is counted, named in the log and
// left, and signing with it answers 500 naming the row while the other wallets sign. With real
// processes: a `signet serve` on the deployment secret's KEK makes wallets; restarted with the KEK
// in a SoftHSM2 token it still signs with them, `signet keys rewrap` moves them into the token while
// signatures go on, and after it the same addresses sign again (and no longer without the token).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TurnkeyClient } from '@turnkey/http';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { generateMnemonic } from '../src/keys/mnemonic.ts';
import { PRIVATE_KEY_MATERIAL } from '../src/activities/handlers/privateKeys/newPrivateKeys.ts';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/createWallet.ts';
import { IMPORT_TARGET_KEY } from '../src/activities/handlers/wallets/keyBundles.ts';
import { WALLET_ACCOUNT_KEY } from '../src/activities/handlers/wallets/walletAccounts.ts';
import { rewrapKeyMaterial } from '../src/admin/keyRewrap.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { keyRing } from '../src/keys/custody/keyRing.ts';
import { openKeyMaterial, sealedUnder, sealKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import type { Queryable } from '../src/store/db.ts';
import { SEALED_COLUMNS } from '../src/store/sealedColumns.ts';
import { AUTH_PROXY_API_KEY } from '../src/store/authProxyConfigs.ts';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { logCapture } from './support/logCapture.ts';
import { freePort, serve, signet, type Served } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { softHsmEnv, softHsmMissing } from './support/softhsm.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const OTP_SECRET = 'rewrap-test-otp-secret-0123456789-abcdefghijklmnop';

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;

/** Signs keccak256 of `text` with the account at `address`: the activity's answer. */
async function sign(client: TurnkeyClient, organizationId: string, address: string, text: string) {
  const payload = toHex(text);
  return (await client.signRawPayload(
    envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', organizationId, { signWith: address, payload, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }) as any,
  )) as any;
}

/** The address viem recovers from a signature over keccak256 of `text`. */
async function signer(text: string, signature: { r: string; s: string; v: string }) {
  return recoverAddress({ hash: keccak256(toHex(text) as Hex), signature: { r: `0x${signature.r}`, s: `0x${signature.s}`, yParity: Number(signature.v) } });
}

/** A wallet of one account: two sealed values, the wallet's mnemonic and the account's key. */
async function createWallet(client: TurnkeyClient, organizationId: string, walletName: string): Promise<{ walletId: string; accountId: string; address: string }> {
  const answer = (await client.createWallet(envelope('ACTIVITY_TYPE_CREATE_WALLET', organizationId, { walletName, accounts: [ETHEREUM] }) as any)) as any;
  const { walletId, addresses } = answer.activity.result.createWalletResult;
  const { accounts } = (await client.getWalletAccounts({ organizationId, walletId })) as any;
  return { walletId, accountId: accounts[0].walletAccountId, address: addresses[0] };
}

for (const tdb of testDatabases) {
  describe(`keys rewrap in process (${tdb.name})`, () => {
    const log = logCapture();
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Rewrap');
      client = server.client(org);
    });
    after(() => server.close());

    test('the sealed columns name the kinds the handlers seal as, each table once', () => {
      const kindOf = (table: string) => SEALED_COLUMNS.find((at) => at.table === table)?.kind;
      assert.equal(kindOf('wallets'), WALLET_MNEMONIC);
      assert.equal(kindOf('wallet_accounts'), WALLET_ACCOUNT_KEY);
      assert.equal(kindOf('private_keys'), PRIVATE_KEY_MATERIAL);
      assert.equal(kindOf('pending_imports'), IMPORT_TARGET_KEY);
      assert.equal(kindOf('auth_proxy_configs'), AUTH_PROXY_API_KEY);
      assert.equal(new Set(SEALED_COLUMNS.map((at) => at.table)).size, SEALED_COLUMNS.length);
    });

    test('values re-seal under the new KEK, a write meanwhile is kept, a second run finds them current; one no KEK opens is counted, named and left', async () => {
      const a = await createWallet(client, org.organizationId, 'A');
      const b = await createWallet(client, org.organizationId, 'B');
      const lost = await createWallet(client, org.organizationId, 'Lost');
      const sealedOf = async (walletId: string) =>
        (await server.db.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM wallets WHERE id = $1', [walletId]))[0]!.sealed_mnemonic;
      const contextOf = (walletId: string) => ({ organizationId: org.organizationId, rowId: walletId, kind: WALLET_MNEMONIC });
      const accountKeyOf = async (accountId: string) =>
        (await server.db.query<{ sealed_private_key: string }>('SELECT sealed_private_key FROM wallet_accounts WHERE id = $1', [accountId]))[0]!.sealed_private_key;

      // The wallet "Lost" (its mnemonic and its account's key) sealed under a KEK this process does not
      // reach (another deployment's secret).
      const elsewhere = deploymentSecretKek(randomBytes(32));
      const foreignMnemonic = generateMnemonic(12);
      const foreign = await sealKeyMaterial(elsewhere, contextOf(lost.walletId), Buffer.from(foreignMnemonic));
      await server.db.query('UPDATE wallets SET sealed_mnemonic = $2 WHERE id = $1', [lost.walletId, foreign]);
      const foreignKey = await sealKeyMaterial(elsewhere, { organizationId: org.organizationId, rowId: lost.accountId, kind: WALLET_ACCOUNT_KEY }, randomBytes(32));
      await server.db.query('UPDATE wallet_accounts SET sealed_private_key = $2 WHERE id = $1', [lost.accountId, foreignKey]);
      // Signing with it answers 500 and the log names the row; the others sign.
      const refused = await sign(client, org.organizationId, lost.address, 'lost').then(
        () => assert.fail('signed with a key no KEK opens'),
        (error: unknown) => error,
      );
      assert.match(String(refused), /500|Internal/i);
      const failed = log.lines().find((line) => line.msg === 'request failed' && String(line.err?.message).includes(lost.accountId));
      assert.ok(failed, 'a log line names the row');
      assert.match(failed.err.message, new RegExp(`sealed under key-encryption key ${sealedUnder(foreign)}, which this process cannot reach .*the wallet_account_key of row ${lost.accountId}, organization ${org.organizationId}`));
      assert.equal(await signer('fine', (await sign(client, org.organizationId, a.address, 'fine')).activity.result.signRawPayloadResult), a.address);

      // A new KEK to move to, the server's (the deployment secret's) still reachable.
      const next = deploymentSecretKek(randomBytes(32));
      const ring = keyRing(next, server.server.kek);
      // Wallet A is written anew (by a process still on the old KEK) between the rewrap's read and its write.
      const written = generateMnemonic(12);
      const concurrent = await sealKeyMaterial(server.server.kek, contextOf(a.walletId), Buffer.from(written));
      let interposed = false;
      const racing: Queryable = {
        query: async <T>(sql: string, params?: unknown[]) => {
          if (!interposed && sql.startsWith('UPDATE wallets') && params?.[0] === a.walletId) {
            interposed = true;
            await server.db.query('UPDATE wallets SET sealed_mnemonic = $2 WHERE id = $1', [a.walletId, concurrent]);
          }
          return server.db.query<T>(sql, params);
        },
      } as Queryable;
      const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
      const rewrapLog = { warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }) };

      const counts = await rewrapKeyMaterial(racing, ring, rewrapLog);
      assert.ok(interposed);
      // A's and B's mnemonics and account keys; Lost's two unreadable.
      assert.deepEqual(counts, { kekId: next.id, rewrapped: 4, alreadyCurrent: 0, unreadable: 2 });
      for (const { walletId, accountId } of [a, b]) {
        assert.equal(sealedUnder(await sealedOf(walletId)), next.id);
        assert.equal(sealedUnder(await accountKeyOf(accountId)), next.id);
      }
      // The write made meanwhile is the one kept, now under the new KEK.
      const opened = await openKeyMaterial(next, contextOf(a.walletId), await sealedOf(a.walletId));
      assert.equal(opened.toString('utf8'), written);
      opened.fill(0);
      // The unreadable one is left as it was, and named (never its material).
      assert.equal(await sealedOf(lost.walletId), foreign);
      assert.equal(await accountKeyOf(lost.accountId), foreignKey);
      assert.equal(warnings.length, 2);
      assert.deepEqual(warnings[0]!.fields, { table: 'wallets', column: 'sealed_mnemonic', rowId: lost.walletId, organizationId: org.organizationId, sealedUnder: sealedUnder(foreign), problem: 'other_kek' });
      assert.deepEqual(warnings[1]!.fields, {
        table: 'wallet_accounts',
        column: 'sealed_private_key',
        rowId: lost.accountId,
        organizationId: org.organizationId,
        sealedUnder: sealedUnder(foreignKey),
        problem: 'other_kek',
      });
      assert.ok(!JSON.stringify(warnings).includes(foreignMnemonic));

      // Idempotent: nothing left to do but the unreadable one.
      assert.deepEqual(await rewrapKeyMaterial(server.db, ring, rewrapLog), { kekId: next.id, rewrapped: 0, alreadyCurrent: 4, unreadable: 2 });
      // The server, which does not reach the new KEK, cannot sign with B any more: 500, B named.
      await assert.rejects(sign(client, org.organizationId, b.address, 'moved'));
      assert.ok(log.lines().some((line) => line.msg === 'request failed' && String(line.err?.message).includes(b.accountId)));
      assert.ok(!log.text().includes(written) && !log.text().includes(foreignMnemonic), 'no mnemonic in the logs');
    });
  });
}

const skip = (await softHsmMissing()) ?? false;

for (const tdb of testDatabases) {
  describe(`keys rewrap from the deployment secret into SoftHSM2, while serving (${tdb.name})`, { skip }, () => {
    let store: ServerStore;
    const running: Served[] = [];

    before(async () => {
      store = await serverStore(tdb, 'signet_rewrap');
    });
    after(async () => {
      for (const served of running) if (served.child.exitCode === null) await served.stop();
      await store?.dispose();
    });

    async function start(hsm: boolean) {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = { ...store.env, SIGNET_OTP_SECRET: OTP_SECRET, SIGNET_PORT: String(port), SIGNET_URL: baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_LOG_LEVEL: 'info', ...(hsm ? softHsmEnv() : {}) };
      const served = await serve(env, baseUrl);
      running.push(served);
      return { served, baseUrl, env };
    }

    test('wallets made under the deployment secret sign on the HSM KEK, are re-sealed into the token while signing goes on, and sign with the same addresses after', async () => {
      // 1. On the deployment secret's KEK: an organization and a wallet.
      const first = await start(false);
      const org = (await (
        await fetch(`${first.baseUrl}/admin/v1/organizations`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Moving' }) })
      ).json()) as Credentials;
      const clientOf = (baseUrl: string, keys: Keys = org) => new TurnkeyClient({ baseUrl }, new ApiKeyStamper(keys));
      const old = await createWallet(clientOf(first.baseUrl), org.organizationId, 'Before');
      assert.equal(await first.served.stop(), 0);

      // 2. With the KEK in the token: the old wallet still signs (the deployment secret's KEK opens it); a new one is sealed in the token.
      const second = await start(true);
      assert.match(second.served.stdout(), /"hsmKey":"pkcs11:signet-test:kek:[0-9a-f]{12}"/);
      const client = clientOf(second.baseUrl);
      assert.equal(await signer('still', (await sign(client, org.organizationId, old.address, 'still')).activity.result.signRawPayloadResult), old.address);
      const made = await createWallet(client, org.organizationId, 'After');

      // 3. Signatures go on while `signet keys rewrap` runs.
      let stop = false;
      const signatures: Array<Promise<number>> = [0, 1].map(async (lane) => {
        let count = 0;
        while (!stop) {
          const text = `lane ${lane} #${count}`;
          const { activity } = await sign(client, org.organizationId, lane === 0 ? old.address : made.address, text);
          assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
          assert.equal(await signer(text, activity.result.signRawPayloadResult), lane === 0 ? old.address : made.address);
          count++;
        }
        return count;
      });
      const rewrap = await signet(['keys', 'rewrap'], { SIGNET_URL: second.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_DATA_DIR: store.dataDir });
      stop = true;
      const signed = await Promise.all(signatures);
      assert.equal(rewrap.code, 0, rewrap.stderr);
      assert.match(rewrap.stdout, /^kekId: pkcs11:signet-test:kek:[0-9a-f]{12}\nrewrapped: 2\nalreadyCurrent: 2\nunreadable: 0\n$/);
      assert.ok(signed.every((count) => count > 0), `both lanes signed during the rewrap (${signed.join(', ')})`);
      // Again: everything current.
      const again = await signet(['keys', 'rewrap', '--json'], { SIGNET_URL: second.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_DATA_DIR: store.dataDir });
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), { kekId: JSON.parse(again.stdout).kekId, rewrapped: 0, alreadyCurrent: 4, unreadable: 0 });
      assert.equal(await second.served.stop(), 0);

      // 4. Every value is sealed in the token now.
      const db = await store.open();
      try {
        const rows = await db.query<{ sealed: string }>('SELECT sealed_mnemonic AS sealed FROM wallets UNION ALL SELECT sealed_private_key FROM wallet_accounts');
        assert.equal(rows.length, 4);
        for (const row of rows) assert.match(sealedUnder(row.sealed)!, /^pkcs11:signet-test:kek:/);
      } finally {
        await db.close();
      }

      // 5. With the token, the same addresses sign; without it, they cannot (500, the row named in the log).
      const third = await start(true);
      for (const wallet of [old, made]) {
        assert.equal(await signer('after', (await sign(clientOf(third.baseUrl), org.organizationId, wallet.address, 'after')).activity.result.signRawPayloadResult), wallet.address);
      }
      assert.equal(await third.served.stop(), 0);
      const fourth = await start(false);
      await assert.rejects(sign(clientOf(fourth.baseUrl), org.organizationId, old.address, 'no token'));
      assert.equal(await fourth.served.stop(), 0);
      assert.match(fourth.served.output(), new RegExp(`sealed under key-encryption key pkcs11:signet-test:kek:[0-9a-f]{12}, which this process cannot reach.*the wallet_account_key of row ${old.accountId}`));
    });
  });
}
