// create_sub_organization with a `wallet`, through @turnkey/http's TurnkeyClient as the ecosystem sends
// it (V8): the sub-organization and its wallet made in one statement, the answer's address the one
// viem derives from the mnemonic sealed for the new organization (opened with the server's KEK), the
// wallet seen by get_wallet and list_wallets in the sub-organization stamped by its root user's key,
// and a wallet field that does not fit, or a root user's key already taken, refused by a 400 with
// nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { mnemonicToAccount } from 'viem/accounts';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/newWallet.ts';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const INVALID_ARGUMENT = 3;

for (const tdb of testDatabases) {
  describe(`a sub-organization with a wallet (${tdb.name})`, () => {
    let server: TestServer;
    let parent: Credentials;
    let client: TurnkeyClient;
    let sequence = 0;

    before(async () => {
      server = await startTestServer(tdb);
      parent = await server.createOrganization('Parent');
      client = server.client(parent);
    });
    after(() => server.close());

    function createSubOrganization(name: string, publicKey: string, wallet: object) {
      return client.createSubOrganization({
        type: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
        timestampMs: String(Date.now() + ++sequence),
        organizationId: parent.organizationId,
        parameters: {
          subOrganizationName: name,
          rootUsers: [{ userName: 'Root', apiKeys: [{ apiKeyName: 'root', publicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [] }],
          rootQuorumThreshold: 1,
          wallet: wallet as any,
        },
      });
    }

    test("the wallet is created with the sub-organization; its address is the sealed mnemonic's; the root user sees it", async () => {
      const rootKeys = generateApiKeyPair();
      const answer = (await createSubOrganization('Alice', rootKeys.apiPublicKey, { walletName: 'Main', accounts: [ETHEREUM] })) as any;
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const result = answer.activity.result.createSubOrganizationResultV8;
      const { subOrganizationId } = result;
      const { walletId, addresses } = result.wallet;
      assert.match(walletId, /^[0-9a-f-]{36}$/);
      assert.equal(addresses.length, 1);

      const [row] = await server.db.query<{ organization_id: string; sealed_mnemonic: string }>('SELECT organization_id, sealed_mnemonic FROM wallets WHERE id = $1', [walletId]);
      assert.equal(row!.organization_id, subOrganizationId);
      const kek = server.server.kek;
      const opened = await openKeyMaterial(kek, { organizationId: subOrganizationId, rowId: walletId, kind: WALLET_MNEMONIC }, row!.sealed_mnemonic);
      const mnemonic = opened.toString('utf8');
      opened.fill(0);
      assert.equal(mnemonicToAccount(mnemonic).address, addresses[0]);

      const root = server.client(rootKeys);
      const { wallet } = (await root.getWallet({ organizationId: subOrganizationId, walletId })) as any;
      assert.equal(wallet.walletName, 'Main');
      const { wallets } = (await root.getWallets({ organizationId: subOrganizationId })) as any;
      assert.deepEqual(wallets.map((w: any) => w.walletId), [walletId]);
      const { accounts } = (await root.getWalletAccounts({ organizationId: subOrganizationId, walletId })) as any;
      assert.deepEqual(accounts.map((a: any) => a.address), addresses);
      // The parent has no wallet of its own from this.
      assert.deepEqual(((await client.getWallets({ organizationId: parent.organizationId })) as any).wallets, []);
    });

    test('an account path that does not fit is a 400 naming parameters.wallet.accounts[0].path; that and a key already taken store nothing', async () => {
      const count = async (table: string) => Number((await server.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);
      const before = { organizations: await count('organizations'), wallets: await count('wallets') };
      await refused(
        createSubOrganization('Bad', generateApiKeyPair().apiPublicKey, { walletName: 'Main', accounts: [{ ...ETHEREUM, path: "44'/60'/0'/0/0" }] }),
        INVALID_ARGUMENT,
        /must start with m\//,
        'parameters.wallet.accounts[0].path',
      );
      assert.deepEqual({ organizations: await count('organizations'), wallets: await count('wallets') }, before);
      // Refused by the statement itself (a root user's key the parent has): the planned wallet is not written either.
      await refused(createSubOrganization('Taken', parent.apiPublicKey, { walletName: 'Main', accounts: [ETHEREUM] }), INVALID_ARGUMENT, /./, 'parameters.rootUsers[0].apiKeys[0].publicKey');
      assert.deepEqual({ organizations: await count('organizations'), wallets: await count('wallets') }, before);
    });
  });
}
