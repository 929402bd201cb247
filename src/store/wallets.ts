// Wallets (table wallets) and their accounts (table wallet_accounts). A wallet's mnemonic is sealed by
// the caller (keys/custody); only findSealedMnemonic reads it back, for an operation that opens it. An
// account keeps what answers show (path, address, public key), no private key. Here: the rows an
// activity's statement writes and the guards they depend on, and the reads of the queries, each
// checking the credential in the same statement.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { pageOf, pageStatement, type Page, type PageRequest } from './pages.ts';
import { raw, run, sql, type Sql } from './sql.ts';

export interface StoredWallet {
  walletId: string;
  organizationId: string;
  name: string;
  exported: boolean;
  imported: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A wallet to write, its mnemonic already sealed. */
export interface NewWallet {
  walletId: string;
  organizationId: string;
  name: string;
  sealedMnemonic: string;
  createdAt: Date;
  /** The mnemonic came from the client (import_wallet), not Signet's CSPRNG. */
  imported?: boolean;
}

export interface StoredWalletAccount {
  walletAccountId: string;
  organizationId: string;
  walletId: string;
  curve: string;
  pathFormat: string;
  path: string;
  addressFormat: string;
  address: string;
  publicKey: string;
  createdAt: Date;
  updatedAt: Date;
  /** The account's wallet, when the read asked for it. */
  wallet?: StoredWallet;
}

/** An account to write. */
export type NewWalletAccount = Omit<StoredWalletAccount, 'organizationId' | 'walletId' | 'createdAt' | 'updatedAt' | 'wallet'>;

interface WalletRow {
  id: string;
  organization_id: string;
  name: string;
  exported: boolean;
  imported: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

interface AccountRow {
  id: string;
  organization_id: string;
  wallet_id: string;
  curve: string;
  path_format: string;
  path: string;
  address_format: string;
  address: string;
  public_key: string;
  created_at: Date | string;
  updated_at: Date | string;
  wallet?: WalletRow | null;
}

/** Every column of a wallet but its sealed mnemonic, of the row aliased `alias`. */
const walletColumns = (alias: string) =>
  raw(['id', 'organization_id', 'name', 'exported', 'imported', 'created_at', 'updated_at'].map((column) => `${alias}.${column}`).join(', '));
const ACCOUNT_COLUMNS = raw(
  ['id', 'organization_id', 'wallet_id', 'curve', 'path_format', 'path', 'address_format', 'address', 'public_key', 'created_at', 'updated_at']
    .map((column) => `a.${column}`)
    .join(', '),
);

function walletOf(row: WalletRow): StoredWallet {
  return {
    walletId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    exported: row.exported,
    imported: row.imported,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function accountOf(row: AccountRow): StoredWalletAccount {
  return {
    walletAccountId: row.id,
    organizationId: row.organization_id,
    walletId: row.wallet_id,
    curve: row.curve,
    pathFormat: row.path_format,
    path: row.path,
    addressFormat: row.address_format,
    address: row.address,
    publicKey: row.public_key,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(row.wallet ? { wallet: walletOf(row.wallet) } : {}),
  };
}

/** A guard condition: no wallet of the organization has this name. */
export function walletNameFree(organizationId: string, name: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM wallets WHERE organization_id = ${organizationId}::uuid AND name = ${name})`;
}

/** A guard condition: the organization has room for one more wallet with at most `max` in all. */
export function walletsRoomFor(organizationId: string, max: number): Sql {
  return sql`(SELECT count(*) FROM wallets WHERE organization_id = ${organizationId}::uuid) < ${max}::int`;
}

/** A guard condition: the wallet has room for `adding` more accounts with at most `max` in all. */
export function walletAccountsRoomFor(walletId: string, adding: number, max: number): Sql {
  return sql`(SELECT count(*) FROM wallet_accounts WHERE wallet_id = ${walletId}::uuid) + ${adding}::int <= ${max}::int`;
}

/** A guard condition: the wallet has no account at this path in this address format. */
export function walletAccountFree(walletId: string, path: string, addressFormat: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM wallet_accounts WHERE wallet_id = ${walletId}::uuid AND path = ${path} AND address_format = ${addressFormat})`;
}

/** A row of an activity's statement (`activity` yields its row): the new wallet. */
export function insertWalletOfActivity(activity: Sql, wallet: NewWallet): Sql {
  return sql`INSERT INTO wallets (id, organization_id, activity_id, name, sealed_mnemonic, exported, imported, created_at, updated_at)
             SELECT ${wallet.walletId}::uuid, ${wallet.organizationId}::uuid, id, ${wallet.name}, ${wallet.sealedMnemonic}, false, ${wallet.imported ?? false},
                    ${wallet.createdAt}::timestamptz, ${wallet.createdAt}::timestamptz
               FROM ${activity}`;
}

/** A row of an activity's statement: the wallet's new accounts, created at `now` (none: nothing written). */
export function insertWalletAccountsOfActivity(activity: Sql, organizationId: string, walletId: string, accounts: readonly NewWalletAccount[], now: Date): Sql {
  const rows = accounts.map((account) => ({
    id: account.walletAccountId,
    curve: account.curve,
    path_format: account.pathFormat,
    path: account.path,
    address_format: account.addressFormat,
    address: account.address,
    public_key: account.publicKey,
  }));
  return sql`INSERT INTO wallet_accounts (id, wallet_id, organization_id, curve, path_format, path, address_format, address, public_key, created_at, updated_at)
             SELECT r.id, ${walletId}::uuid, ${organizationId}::uuid, r.curve, r.path_format, r.path, r.address_format, r.address, r.public_key,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM ${activity},
                    jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                      AS r (id uuid, curve text, path_format text, path text, address_format text, address text, public_key text)`;
}

/** A row of an activity's statement: the wallet marked exported (its mnemonic left sealed to a client's key). */
export function markWalletExportedOfActivity(activity: Sql, organizationId: string, walletId: string, now: Date): Sql {
  return sql`UPDATE wallets SET exported = true, updated_at = ${now}::timestamptz
              WHERE organization_id = ${organizationId}::uuid AND id = ${walletId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`;
}

/** The organization's wallet, on behalf of a credential checked in the same statement. */
export async function findWalletFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  walletId: string,
): Promise<{ refused?: CredentialState; wallet?: StoredWallet }> {
  const { refused, rows } = await runWithCredential<WalletRow>(
    db,
    use,
    sql`SELECT ${walletColumns('w')} FROM wallets w WHERE w.organization_id = ${organizationId}::uuid AND w.id = ${walletId}::uuid`,
  );
  return refused ? { refused } : rows[0] ? { wallet: walletOf(rows[0]) } : {};
}

/** The organization's wallets, newest first (at most `limit`), on behalf of a credential. */
export async function listWalletsFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  limit: number,
): Promise<{ refused?: CredentialState; wallets?: StoredWallet[] }> {
  const { refused, rows } = await runWithCredential<WalletRow>(
    db,
    use,
    sql`SELECT ${walletColumns('w')} FROM wallets w WHERE w.organization_id = ${organizationId}::uuid
         ORDER BY w.created_at DESC, w.id DESC LIMIT ${limit}`,
  );
  return refused ? { refused } : { wallets: rows.map(walletOf) };
}

/**
 * A page of the organization's accounts (of one wallet when `walletId` is given), newest first, on
 * behalf of a credential; with each account's wallet when `withWallet`.
 */
export async function listWalletAccountsFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  options: { walletId?: string; withWallet: boolean },
  page: PageRequest,
): Promise<{ refused?: CredentialState; page?: Page<StoredWalletAccount> }> {
  const wallet = options.withWallet
    ? sql`, (SELECT json_build_object('id', w.id, 'organization_id', w.organization_id, 'name', w.name, 'exported', w.exported,
                                      'imported', w.imported, 'created_at', w.created_at, 'updated_at', w.updated_at)
               FROM wallets w WHERE w.id = a.wallet_id) AS wallet`
    : sql``;
  const statement = pageStatement(
    {
      table: 'wallet_accounts',
      columns: sql`${ACCOUNT_COLUMNS}${wallet}`,
      organizationId,
      ...(options.walletId ? { where: [sql`a.wallet_id = ${options.walletId}::uuid`] } : {}),
      // Short fields only: an account with its wallet's fields fits in about 1 KiB.
      size: sql`1024`,
    },
    page,
  );
  const { refused, rows } = await runWithCredential<Record<string, unknown>>(db, use, statement);
  if (refused) return { refused };
  const found = pageOf<AccountRow>(rows, page);
  return { page: { ...found, rows: found.rows.map(accountOf) } };
}

/** The wallet's account at this address or path (the oldest when several formats share the path), on behalf of a credential. */
export async function findWalletAccountFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  walletId: string,
  at: { address?: string; path?: string },
): Promise<{ refused?: CredentialState; account?: StoredWalletAccount }> {
  const { refused, rows } = await runWithCredential<AccountRow>(
    db,
    use,
    sql`SELECT ${ACCOUNT_COLUMNS} FROM wallet_accounts a
         WHERE a.organization_id = ${organizationId}::uuid AND a.wallet_id = ${walletId}::uuid
           AND (${at.address ?? null}::text IS NULL OR a.address = ${at.address ?? null}::text)
           AND (${at.path ?? null}::text IS NULL OR a.path = ${at.path ?? null}::text)
         ORDER BY a.created_at, a.id LIMIT 1`,
  );
  return refused ? { refused } : rows[0] ? { account: accountOf(rows[0]) } : {};
}

/** The wallet's sealed mnemonic, for an operation that opens it; undefined when the organization has no such wallet. */
export async function findSealedMnemonic(db: Queryable, organizationId: string, walletId: string): Promise<string | undefined> {
  const [row] = await run<{ sealed_mnemonic: string }>(
    db,
    sql`SELECT sealed_mnemonic FROM wallets WHERE organization_id = ${organizationId}::uuid AND id = ${walletId}::uuid`,
  );
  return row?.sealed_mnemonic;
}

/** The account a signature is made with and its wallet's sealed mnemonic. */
export interface SigningAccount {
  walletId: string;
  curve: string;
  path: string;
  addressFormat: string;
  address: string;
  publicKey: string;
  sealedMnemonic: string;
}

/**
 * The organization's account at `address` with its wallet's sealed mnemonic, for an operation that
 * opens it; undefined when there is none. An Ethereum address (0x and 40 hex digits) matches without
 * case, as EIP-55 only adds a checksum to it; any other address matches exactly (Solana's base58 is
 * case-sensitive). Several formats of one key may share an address: the oldest account is taken.
 */
export async function findSigningAccount(db: Queryable, organizationId: string, address: string): Promise<SigningAccount | undefined> {
  const ethereum = /^0x[0-9a-fA-F]{40}$/.test(address);
  const [row] = await run<{ wallet_id: string; curve: string; path: string; address_format: string; address: string; public_key: string; sealed_mnemonic: string }>(
    db,
    sql`SELECT a.wallet_id, a.curve, a.path, a.address_format, a.address, a.public_key, w.sealed_mnemonic
          FROM wallet_accounts a JOIN wallets w ON w.id = a.wallet_id
         WHERE a.organization_id = ${organizationId}::uuid AND w.organization_id = ${organizationId}::uuid
           AND ${ethereum ? sql`lower(a.address) = ${address.toLowerCase()}::text AND a.address_format = 'ADDRESS_FORMAT_ETHEREUM'` : sql`a.address = ${address}::text`}
         ORDER BY a.created_at, a.id LIMIT 1`,
  );
  if (!row) return undefined;
  return {
    walletId: row.wallet_id,
    curve: row.curve,
    path: row.path,
    addressFormat: row.address_format,
    address: row.address,
    publicKey: row.public_key,
    sealedMnemonic: row.sealed_mnemonic,
  };
}
