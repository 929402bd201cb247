// get_wallet, list_wallets, list_wallet_accounts and get_wallet_account: the organization's wallets
// and their accounts, as create_wallet wrote them. No answer holds key material: a wallet's sealed
// mnemonic is never read here.
import { z } from 'zod';
import { MAX_WALLETS } from '../activities/handlers/wallets/createWallet.ts';
import { MAX_PATH_CHARACTERS } from '../keys/derivation.ts';
import { invalidField, notFound } from '../errors.ts';
import { findWalletAccountFor, findWalletFor, listWalletAccountsFor, listWalletsFor, type StoredWallet, type StoredWalletAccount } from '../store/wallets.ts';
import { timestamp, uuid } from '../wire/describedFields.ts';
import { pageRequest, pageRows, paginationOptions, type PaginationOptions } from './pagination.ts';
import { granted, type QueryHandler } from './query.ts';

function renderWallet(wallet: StoredWallet) {
  return {
    walletId: wallet.walletId,
    walletName: wallet.name,
    createdAt: wallet.createdAt.toISOString(),
    updatedAt: wallet.updatedAt.toISOString(),
    exported: wallet.exported,
    imported: wallet.imported,
  };
}

function renderAccount(account: StoredWalletAccount) {
  return {
    walletAccountId: account.walletAccountId,
    organizationId: account.organizationId,
    walletId: account.walletId,
    curve: account.curve,
    pathFormat: account.pathFormat,
    path: account.path,
    addressFormat: account.addressFormat,
    address: account.address,
    createdAt: account.createdAt.toISOString(),
    updatedAt: account.updatedAt.toISOString(),
    publicKey: account.publicKey,
    ...(account.wallet ? { walletDetails: renderWallet(account.wallet) } : {}),
  };
}

const walletSchema = z
  .strictObject({
    walletId: uuid('Identifier of the wallet'),
    walletName: z.string().describe('Name of the wallet, unique in the organization'),
    createdAt: timestamp('Creation time'),
    updatedAt: timestamp('Time of the last update'),
    exported: z.boolean().describe('Whether the wallet was exported: always false, Signet has no export'),
    imported: z.boolean().describe('Whether the wallet was imported: always false, Signet has no import'),
  })
  .meta({ id: 'Wallet', description: 'An HD wallet: its accounts share one seed, which no answer holds' });

const accountSchema = z
  .strictObject({
    walletAccountId: uuid('Identifier of the account'),
    organizationId: uuid('The organization the account belongs to'),
    walletId: uuid('The wallet the account was derived from'),
    curve: z.string().describe('CURVE_SECP256K1 or CURVE_ED25519'),
    pathFormat: z.string().describe('PATH_FORMAT_BIP32'),
    path: z.string().describe("Derivation path, e.g. m/44'/60'/0'/0/0"),
    addressFormat: z.string().describe('Address format, e.g. ADDRESS_FORMAT_ETHEREUM'),
    address: z.string().describe('The address of the account in its format'),
    createdAt: timestamp('Creation time'),
    updatedAt: timestamp('Time of the last update'),
    publicKey: z.string().describe('Public key in hex: for CURVE_SECP256K1 the compressed SEC1 point (66 digits), for CURVE_ED25519 the 32-byte key (64 digits)'),
    walletDetails: walletSchema.optional().describe('The account’s wallet, when includeWalletDetails was true'),
  })
  .meta({ id: 'WalletAccount', description: 'An account derived from a wallet’s seed by path' });

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');
const walletId = (description: string) => z.uuid({ message: 'must be a wallet id (a UUID)' }).describe(description);
const walletNotFound = (query: { organizationId: string; walletId: string }) =>
  notFound('WALLET_NOT_FOUND', `no wallet ${query.walletId} in organization ${query.organizationId}`);

export const getWallet: QueryHandler = {
  path: 'get_wallet',
  description: 'One wallet of the organization: its name and times (never its mnemonic).',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', walletId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90' },
  request: z.strictObject({ organizationId, walletId: walletId("The wallet to read, as create_wallet returned it; another organization's is a 404") }),
  answer: z.strictObject({ wallet: walletSchema }),
  async run(context, query: { organizationId: string; walletId: string }) {
    const { wallet } = granted(context, await findWalletFor(context.db, context.principal.credential, query.organizationId, query.walletId));
    if (!wallet) throw walletNotFound(query);
    return { wallet: renderWallet(wallet) };
  },
};

export const listWallets: QueryHandler = {
  path: 'list_wallets',
  description: `The organization's wallets, newest first (at most ${MAX_WALLETS}, the most an organization may have).`,
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({ wallets: z.array(walletSchema).describe("The organization's wallets, newest first") }),
  async run(context, query: { organizationId: string }) {
    const { wallets } = granted(context, await listWalletsFor(context.db, context.principal.credential, query.organizationId, MAX_WALLETS));
    return { wallets: wallets!.map(renderWallet) };
  },
};

export const listWalletAccounts: QueryHandler = {
  path: 'list_wallet_accounts',
  description: "Accounts of one wallet, or of every wallet of the organization, newest first, in pages (cursors are account ids).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', walletId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90', paginationOptions: { limit: '10' } },
  request: z.strictObject({
    organizationId,
    walletId: walletId('The wallet whose accounts to list; absent: the accounts of every wallet of the organization').optional(),
    includeWalletDetails: z.boolean({ error: 'must be true or false' }).describe('Each account with its wallet (`walletDetails`); false by default').optional(),
    paginationOptions: paginationOptions('a wallet account'),
  }),
  answer: z.strictObject({ accounts: z.array(accountSchema).describe('The accounts, newest first: one page') }),
  async run(context, query: { organizationId: string; walletId?: string; includeWalletDetails?: boolean; paginationOptions?: PaginationOptions }) {
    const { page } = granted(
      context,
      await listWalletAccountsFor(
        context.db,
        context.principal.credential,
        query.organizationId,
        { ...(query.walletId ? { walletId: query.walletId } : {}), withWallet: query.includeWalletDetails === true },
        pageRequest(query.paginationOptions),
      ),
    );
    return { accounts: pageRows(page!, query.paginationOptions).map(renderAccount) };
  },
};

export const getWalletAccount: QueryHandler = {
  path: 'get_wallet_account',
  description: 'One account of a wallet, found by its address or its path (with both, the account that has both).',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', walletId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90', path: "m/44'/60'/0'/0/0" },
  request: z.strictObject({
    organizationId,
    walletId: walletId('The wallet the account was derived from'),
    address: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters').describe('Address of the account').optional(),
    path: z
      .string({ error: 'must be a string' })
      .max(MAX_PATH_CHARACTERS, `must be at most ${MAX_PATH_CHARACTERS} characters`)
      .describe('Path of the account; when several address formats share it, the oldest account')
      .optional(),
  }),
  answer: z.strictObject({ account: accountSchema }),
  async run(context, query: { organizationId: string; walletId: string; address?: string; path?: string }) {
    if (query.address === undefined && query.path === undefined) throw invalidField('address', 'is required when path is absent: give the account’s address or its path');
    const at = { ...(query.address !== undefined ? { address: query.address } : {}), ...(query.path !== undefined ? { path: query.path } : {}) };
    const { account } = granted(context, await findWalletAccountFor(context.db, context.principal.credential, query.organizationId, query.walletId, at));
    if (!account) throw notFound('WALLET_ACCOUNT_NOT_FOUND', `no account ${query.address ?? query.path} in wallet ${query.walletId} of organization ${query.organizationId}`);
    return { account: renderAccount(account) };
  },
};
