// Renaming and deleting wallets through the real HTTP stack and @turnkey/http's own TurnkeyClient:
// update_wallet renames (get_wallet answers the new name, a later update time), refuses a name another
// wallet has (400 naming walletName) and an unknown wallet (404); delete_wallets refuses a wallet never
// exported unless deleteWithoutExport is true, an unknown id with a 404 naming it, and otherwise deletes
// the wallets with their accounts (nothing signs with them after). A sub-organization holding a wallet
// and a private key is deleted only with deleteWithoutExport, and its keys go with it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

let sequence = 0;
const stamp = (organizationId: string) => ({ timestampMs: String(Date.now() + ++sequence), organizationId });

for (const tdb of testDatabases) {
  describe(`renaming and deleting wallets (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;

    const createWallet = async (walletName: string, credentials = org) => {
      const answer = (await server.client(credentials).createWallet({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        ...stamp(credentials.organizationId),
        parameters: { walletName, accounts: [ETHEREUM] as any },
      })) as any;
      return answer.activity.result.createWalletResult as { walletId: string; addresses: string[] };
    };
    const rename = (walletId: string, walletName?: string) =>
      client.updateWallet({ type: 'ACTIVITY_TYPE_UPDATE_WALLET', ...stamp(org.organizationId), parameters: { walletId, ...(walletName === undefined ? {} : { walletName }) } }) as Promise<any>;
    const remove = (walletIds: string[], deleteWithoutExport?: boolean) =>
      client.deleteWallets({
        type: 'ACTIVITY_TYPE_DELETE_WALLETS',
        ...stamp(org.organizationId),
        parameters: { walletIds, ...(deleteWithoutExport === undefined ? {} : { deleteWithoutExport }) },
      }) as Promise<any>;
    const sign = (client: TurnkeyClient, organizationId: string, signWith: string) =>
      client.signRawPayload({
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        ...stamp(organizationId),
        parameters: { signWith, payload: 'hello', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' },
      }) as Promise<any>;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Renames');
      client = server.client(org);
    });
    after(() => server.close());

    test('update_wallet renames; a name another wallet has is a 400 naming walletName; an unknown wallet a 404', async () => {
      const { walletId } = await createWallet('Treasury');
      await createWallet('Payroll');
      const before = ((await client.getWallet({ organizationId: org.organizationId, walletId })) as any).wallet;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const answer = await rename(walletId, '  Treasury (cold)  ');
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(answer.activity.result.updateWalletResult, { walletId });
      const { wallet } = (await client.getWallet({ organizationId: org.organizationId, walletId })) as any;
      assert.equal(wallet.walletName, 'Treasury (cold)');
      assert.equal(wallet.createdAt, before.createdAt);
      assert.ok(wallet.updatedAt > before.updatedAt, `${wallet.updatedAt} > ${before.updatedAt}`);
      // Its own name again is no conflict; another wallet's is.
      await rename(walletId, 'Treasury (cold)');
      await refused(rename(walletId, 'Payroll'), INVALID_ARGUMENT, /already has a wallet named "Payroll"/, 'parameters.walletName');
      await refused(rename('0b5e2d7c-4a1f-4c8e-9d3b-6f2a8e1c5d70', 'x'), NOT_FOUND, /no wallet 0b5e2d7c/);
      // The old name is free for a new wallet.
      await createWallet('Treasury');
    });

    test('delete_wallets: unknown ids are a 404 naming them; a wallet never exported a 400 unless deleteWithoutExport; then it and its accounts are gone', async () => {
      const first = await createWallet('Doomed 1');
      const second = await createWallet('Doomed 2');
      const unknown = '0b5e2d7c-4a1f-4c8e-9d3b-6f2a8e1c5d70';
      await refused(remove([first.walletId, unknown], true), NOT_FOUND, new RegExp(`parameters.walletIds\\[1\\]: no wallet ${unknown}`));
      await refused(remove([first.walletId, second.walletId]), INVALID_ARGUMENT, /has not been exported/, 'parameters.deleteWithoutExport');
      assert.equal((await sign(client, org.organizationId, first.addresses[0]!)).activity.status, 'ACTIVITY_STATUS_COMPLETED');

      // Signed with once before its deletion: the server keeps the key it found for a few seconds.
      assert.equal((await sign(client, org.organizationId, first.addresses[0]!)).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const answer = await remove([first.walletId, second.walletId], true);
      assert.deepEqual(answer.activity.result.deleteWalletsResult, { walletIds: [first.walletId, second.walletId] });
      await refused(client.getWallet({ organizationId: org.organizationId, walletId: first.walletId }), NOT_FOUND, /no wallet/);
      const { accounts } = (await client.getWalletAccounts({ organizationId: org.organizationId, walletId: second.walletId })) as any;
      assert.deepEqual(accounts, []);
      const rows = await server.db.query('SELECT 1 FROM wallet_accounts WHERE wallet_id = ANY($1::uuid[])', [[first.walletId, second.walletId]]);
      assert.equal(rows.length, 0);
      // The activity's statement finds the account gone: a 404, and no activity kept with a signature.
      const activities = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activities WHERE organization_id = $1', [org.organizationId]))[0]!.n;
      const before = await activities();
      await refused(sign(client, org.organizationId, first.addresses[0]!), NOT_FOUND, /could not find any resource to sign with/);
      assert.equal(await activities(), before);
      // Deleted once, a wallet is unknown to a second deletion.
      await refused(remove([first.walletId], true), NOT_FOUND, /no wallet/);
    });

    test('a sub-organization holding a wallet and a private key is deleted only with deleteWithoutExport; they go with it', async () => {
      const rootKeys = generateApiKeyPair();
      const created = (await client.createSubOrganization({
        type: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
        ...stamp(org.organizationId),
        parameters: {
          subOrganizationName: 'Holder',
          rootUsers: [{ userName: 'Root', apiKeys: [{ apiKeyName: 'root', publicKey: rootKeys.apiPublicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [] }],
          rootQuorumThreshold: 1,
          wallet: { walletName: 'Main', accounts: [ETHEREUM] } as any,
        },
      })) as any;
      const subOrganizationId: string = created.activity.result.createSubOrganizationResultV8.subOrganizationId;
      const root = server.client(rootKeys);
      await root.createPrivateKeys({
        type: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
        ...stamp(subOrganizationId),
        parameters: { privateKeys: [{ privateKeyName: 'k', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_SOLANA'] }] },
      });
      const remove = (deleteWithoutExport?: boolean) =>
        root.deleteSubOrganization({
          type: 'ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION',
          ...stamp(subOrganizationId),
          parameters: deleteWithoutExport === undefined ? {} : { deleteWithoutExport },
        });
      await refused(remove(), INVALID_ARGUMENT, /wallets or private keys that have not been exported/, 'parameters.deleteWithoutExport');
      await refused(remove(false), INVALID_ARGUMENT, /set deleteWithoutExport to true/, 'parameters.deleteWithoutExport');
      const answer = (await remove(true)) as any;
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      for (const table of ['wallets', 'wallet_accounts', 'private_keys', 'private_key_addresses']) {
        const rows = await server.db.query(`SELECT 1 FROM ${table} WHERE organization_id = $1`, [subOrganizationId]);
        assert.equal(rows.length, 0, `${table} keeps rows of the deleted sub-organization`);
      }
    });
  });
}
