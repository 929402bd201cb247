// Wallets through the real HTTP stack and @turnkey/http's own TurnkeyClient: create_wallet with an
// Ethereum and a Solana account, create_wallet_accounts adding to it, the answers of get_wallet, list_wallets, list_wallet_accounts and
// get_wallet_account; the sealed mnemonic, opened here with the KEK of the deployment secret, derives
// the Ethereum address as viem derives it, and neither it nor its words joined nor its seed is in
// clear anywhere in the store (every table's rows as text) or in the server's logs; a bad curve,
// format or path and a name taken are 400s naming the field; another organization reads none of it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { mnemonicToAccount } from 'viem/accounts';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/createWallet.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { mnemonicToSeed } from '../src/keys/mnemonic.ts';
import { testDatabases } from './support/databases.ts';
import { logCapture } from './support/logCapture.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { testKekInSoftHsm } from './support/softhsm.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
type AccountParams = { curve: string; pathFormat: string; path: string; addressFormat: string };

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

const stamp = (organizationId: string) => ({ timestampMs: String(Date.now()), organizationId });

function createWallet(client: TurnkeyClient, organizationId: string, walletName: string, accounts: readonly AccountParams[]) {
  return client.createWallet({ type: 'ACTIVITY_TYPE_CREATE_WALLET', ...stamp(organizationId), parameters: { walletName, accounts: accounts as any } });
}

for (const tdb of testDatabases) {
  describe(`wallets (${tdb.name})`, () => {
    const log = logCapture();
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;
    let walletId: string;
    let addresses: string[];

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Wallets');
      client = server.client(org);
      const answer = (await createWallet(client, org.organizationId, 'Treasury', [ETHEREUM, SOLANA])) as any;
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(answer.activity.type, 'ACTIVITY_TYPE_CREATE_WALLET');
      ({ walletId, addresses } = answer.activity.result.createWalletResult);
    });
    after(() => server.close());

    test('create_wallet answers the wallet id and one address per account, in order', () => {
      assert.match(walletId, /^[0-9a-f-]{36}$/);
      assert.equal(addresses.length, 2);
      assert.match(addresses[0]!, /^0x[0-9a-fA-F]{40}$/);
      assert.match(addresses[1]!, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    });

    test('get_wallet, list_wallets, list_wallet_accounts and get_wallet_account answer what was created', async () => {
      const { wallet } = (await client.getWallet({ organizationId: org.organizationId, walletId })) as any;
      assert.deepEqual({ ...wallet, createdAt: undefined, updatedAt: undefined }, { walletId, walletName: 'Treasury', exported: false, imported: false, createdAt: undefined, updatedAt: undefined });
      assert.equal(wallet.createdAt, wallet.updatedAt);

      const { wallets } = (await client.getWallets({ organizationId: org.organizationId })) as any;
      assert.deepEqual(wallets, [wallet]);

      const { accounts } = (await client.getWalletAccounts({ organizationId: org.organizationId, walletId })) as any;
      const byPath = [...accounts].sort((a: any, b: any) => (a.path === ETHEREUM.path ? -1 : b.path === ETHEREUM.path ? 1 : 0));
      assert.deepEqual(
        byPath.map(({ walletAccountId: _id, createdAt: _c, updatedAt: _u, publicKey: _k, ...rest }: any) => rest),
        [
          { organizationId: org.organizationId, walletId, ...ETHEREUM, address: addresses[0] },
          { organizationId: org.organizationId, walletId, ...SOLANA, address: addresses[1] },
        ],
      );
      assert.match(byPath[0].publicKey, /^0[23][0-9a-f]{64}$/);
      assert.match(byPath[1].publicKey, /^[0-9a-f]{64}$/);

      const detailed = (await client.getWalletAccounts({ organizationId: org.organizationId, includeWalletDetails: true })) as any;
      assert.equal(detailed.accounts.length, 2);
      for (const account of detailed.accounts) assert.deepEqual(account.walletDetails, wallet);

      const { account } = (await client.getWalletAccount({ organizationId: org.organizationId, walletId, address: addresses[1]! })) as any;
      assert.deepEqual(account, byPath[1]);
      const byItsPath = (await client.getWalletAccount({ organizationId: org.organizationId, walletId, path: ETHEREUM.path })) as any;
      assert.deepEqual(byItsPath.account, byPath[0]);
      await refused(client.getWalletAccount({ organizationId: org.organizationId, walletId, path: "m/44'/60'/0'/0/9" }), NOT_FOUND, /no account/);
    });

    test("the sealed mnemonic, opened with the server's KEK, derives the Ethereum address as viem does; it is nowhere in clear, in the store nor in the logs", async () => {
      const [row] = await server.db.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM wallets WHERE id = $1', [walletId]);
      const kek = server.server.kek;
      // Sealed under the KEK the server seals with: a SoftHSM2 token's key when SIGNET_TEST_KEK=softhsm.
      assert.match(kek.id, testKekInSoftHsm ? /^pkcs11:signet-test:kek:[0-9a-f]{12}$/ : /^secret:[0-9a-f]{16}$/);
      assert.ok(row!.sealed_mnemonic.startsWith(`v1.${kek.id}.`));
      const opened = await openKeyMaterial(kek, { organizationId: org.organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, row!.sealed_mnemonic);
      const mnemonic = opened.toString('utf8');
      opened.fill(0);
      assert.equal(mnemonic.split(' ').length, 12);
      assert.equal(mnemonicToAccount(mnemonic).address, addresses[0]);

      const secrets = { mnemonic, 'words joined': mnemonic.split(' ').join(''), seed: Buffer.from(mnemonicToSeed(mnemonic)).toString('hex') };
      const tables = await server.db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
      );
      assert.ok(tables.some((t) => t.table_name === 'wallets') && tables.some((t) => t.table_name === 'activities'));
      let dump = '';
      for (const { table_name } of tables) {
        const rows = await server.db.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
        dump += rows.map((r) => r.row).join('\n');
      }
      assert.ok(dump.includes(walletId) && dump.includes(addresses[0]!), 'the dump holds the wallet');
      const logs = log.text();
      assert.ok(logs.includes('create_wallet'), 'the logs hold the request');
      for (const [what, value] of Object.entries(secrets)) {
        assert.ok(!dump.includes(value), `the ${what} is in the store`);
        assert.ok(!dump.toLowerCase().includes(value.toLowerCase()), `the ${what} is in the store`);
        assert.ok(!logs.includes(value), `the ${what} is in the logs`);
      }
    });

    test('a bad curve, address format or path is a 400 naming the field; nothing is stored', async () => {
      await refused(createWallet(client, org.organizationId, 'bad curve', [ETHEREUM, { ...ETHEREUM, curve: 'CURVE_P256' }]), INVALID_ARGUMENT, /parameters\.accounts\[1\]\.curve/, 'parameters.accounts[1].curve');
      await refused(
        createWallet(client, org.organizationId, 'bad format', [{ ...SOLANA, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }]),
        INVALID_ARGUMENT,
        /ADDRESS_FORMAT_ETHEREUM is not an address of a CURVE_ED25519 key/,
        'parameters.accounts[0].addressFormat',
      );
      await refused(
        createWallet(client, org.organizationId, 'bad path', [ETHEREUM, { ...SOLANA, path: "m/44'/501'/0'/0" }]),
        INVALID_ARGUMENT,
        /hardened steps only/,
        'parameters.accounts[1].path',
      );
      await refused(createWallet(client, org.organizationId, 'bad path', [{ ...ETHEREUM, path: 'm/44/x' }]), INVALID_ARGUMENT, /step 2/, 'parameters.accounts[0].path');
      const [{ n }] = (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallets WHERE organization_id = $1', [org.organizationId])) as [{ n: number }];
      assert.equal(n, 1);
    });

    test('create_wallet_accounts derives more accounts from the same mnemonic; a path taken in its format is a 400; persist: false stores nothing', async () => {
      const add = (accounts: readonly AccountParams[], persist?: boolean) =>
        client.createWalletAccounts({
          type: 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
          ...stamp(org.organizationId),
          parameters: { walletId, accounts: accounts as any, ...(persist === undefined ? {} : { persist }) },
        });
      const second = { ...ETHEREUM, path: "m/44'/60'/0'/0/1" };
      const answer = (await add([second])) as any;
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const [added] = answer.activity.result.createWalletAccountsResult.addresses;
      const [row] = await server.db.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM wallets WHERE id = $1', [walletId]);
      const opened = await openKeyMaterial(server.server.kek, { organizationId: org.organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, row!.sealed_mnemonic);
      const mnemonic = opened.toString('utf8');
      opened.fill(0);
      assert.equal(added, mnemonicToAccount(mnemonic, { addressIndex: 1 }).address);
      const listed = (await client.getWalletAccounts({ organizationId: org.organizationId, walletId })) as any;
      assert.deepEqual(listed.accounts.map((a: any) => a.address).sort(), [...addresses, added].sort());

      await refused(add([{ ...ETHEREUM, path: "m/44'/60'/0'/0/2" }, second]), INVALID_ARGUMENT, /already has an account at m\/44'\/60'\/0'\/0\/1/, 'parameters.accounts[1].path');
      const preview = (await add([{ ...ETHEREUM, path: "m/44'/60'/0'/0/3" }], false)) as any;
      assert.equal(preview.activity.result.createWalletAccountsResult.addresses[0], mnemonicToAccount(mnemonic, { addressIndex: 3 }).address);
      const after = (await client.getWalletAccounts({ organizationId: org.organizationId, walletId })) as any;
      assert.equal(after.accounts.length, 3);
      await refused(
        client.createWalletAccounts({ type: 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS', ...stamp(org.organizationId), parameters: { walletId: crypto.randomUUID(), accounts: [ETHEREUM] } }),
        NOT_FOUND,
        /no wallet/,
      );
    });

    test('concurrent creations: of one name, one wallet and 400s naming parameters.walletName; of other names, each its wallet', async () => {
      // Bodies that differ (one body submitted twice is one activity, answered twice).
      const same = await Promise.allSettled([1, 2, 3].map((i) => createWallet(client, org.organizationId, 'Payroll', [{ ...ETHEREUM, path: `m/44'/60'/0'/0/${i}` }])));
      assert.equal(same.filter((outcome) => outcome.status === 'fulfilled').length, 1, JSON.stringify(same.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))));
      for (const outcome of same.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
        await refused(Promise.reject(outcome.reason), INVALID_ARGUMENT, /already has a wallet named "Payroll"/, 'parameters.walletName');
      }
      const names = ['Ops 1', 'Ops 2', 'Ops 3', 'Ops 4'];
      const distinct = (await Promise.all(names.map((name) => createWallet(client, org.organizationId, name, [SOLANA])))) as any[];
      assert.deepEqual(distinct.map((answer) => answer.activity.status), names.map(() => 'ACTIVITY_STATUS_COMPLETED'));
      const { wallets } = (await client.getWallets({ organizationId: org.organizationId })) as any;
      assert.deepEqual(wallets.map((w: any) => w.walletName).sort(), ['Ops 1', 'Ops 2', 'Ops 3', 'Ops 4', 'Payroll', 'Treasury']);
    });

    test('a name the organization has is a 400 naming parameters.walletName; another organization may use it', async () => {
      await refused(createWallet(client, org.organizationId, 'Treasury', [ETHEREUM]), INVALID_ARGUMENT, /already has a wallet named "Treasury"/, 'parameters.walletName');
      const other = await server.createOrganization('Other');
      const otherClient = server.client(other);
      const answer = (await createWallet(otherClient, other.organizationId, 'Treasury', [ETHEREUM])) as any;
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      // Each wallet has its own mnemonic: the same path gives another address.
      assert.notEqual(answer.activity.result.createWalletResult.addresses[0], addresses[0]);
      // Neither organization reads the other's wallet.
      await refused(otherClient.getWallet({ organizationId: other.organizationId, walletId }), NOT_FOUND, /no wallet/);
      const { accounts } = (await otherClient.getWalletAccounts({ organizationId: other.organizationId, walletId })) as any;
      assert.deepEqual(accounts, []);
    });
  });
}
