// Wallets (table wallets) and their accounts (table wallet_accounts). A wallet's mnemonic is sealed by
// the caller (keys/custody); only findSealedMnemonic and the signer lookup (signers.ts) read it back,
// for an operation that opens it. An account keeps what answers show (path, address, public key) and
// its private key sealed the same way, which only the signer lookup reads. Here: the rows an
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

/** An account to write, its private key already sealed. */
export type NewWalletAccount = Omit<StoredWalletAccount, 'organizationId' | 'walletId' | 'createdAt' | 'updatedAt' | 'wallet'> & { sealedPrivateKey: string };

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

/** A guard condition: no wallet of the organization but `walletId` has this name. */
export function walletNameFreeBut(organizationId: string, name: string, walletId: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM wallets WHERE organization_id = ${organizationId}::uuid AND name = ${name} AND id <> ${walletId}::uuid)`;
}

/** A guard condition: the organization has this wallet. */
export function walletOfOrganization(organizationId: string, walletId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM wallets WHERE organization_id = ${organizationId}::uuid AND id = ${walletId}::uuid)`;
}

/** A guard condition: the organization's wallet was exported (a wallet that is not there is not). */
export function walletExported(organizationId: string, walletId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM wallets WHERE organization_id = ${organizationId}::uuid AND id = ${walletId}::uuid AND exported)`;
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
    sealed_private_key: account.sealedPrivateKey,
  }));
  return sql`INSERT INTO wallet_accounts (id, wallet_id, organization_id, curve, path_format, path, address_format, address, public_key, sealed_private_key, created_at, updated_at)
             SELECT r.id, ${walletId}::uuid, ${organizationId}::uuid, r.curve, r.path_format, r.path, r.address_format, r.address, r.public_key, r.sealed_private_key,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM ${activity},
                    jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                      AS r (id uuid, curve text, path_format text, path text, address_format text, address text, public_key text, sealed_private_key text)`;
}

/** A row of an activity's statement: the wallet renamed at `now`. */
export function renameWalletOfActivity(activity: Sql, organizationId: string, walletId: string, name: string, now: Date): Sql {
  return sql`UPDATE wallets w SET name = ${name}, updated_at = ${now}::timestamptz FROM ${activity}
              WHERE w.organization_id = ${organizationId}::uuid AND w.id = ${walletId}::uuid`;
}

/**
 * Rows of an activity's statement: the organization's wallets deleted, with their accounts (both in
 * the one statement: the accounts' foreign key is checked at its end, when neither is left).
 */
export function deleteWalletsOfActivity(activity: Sql, organizationId: string, walletIds: readonly string[]): Sql[] {
  return [
    sql`DELETE FROM wallet_accounts
         WHERE organization_id = ${organizationId}::uuid AND wallet_id = ANY(${walletIds}::uuid[]) AND EXISTS (SELECT 1 FROM ${activity})`,
    sql`DELETE FROM wallets
         WHERE organization_id = ${organizationId}::uuid AND id = ANY(${walletIds}::uuid[]) AND EXISTS (SELECT 1 FROM ${activity})`,
  ];
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

/**
 * The organization's wallet as policies read it (its name, whether imported or exported), read fresh
 * by its id (the view step of an activity whose decision reads policies); undefined when there is none.
 */
export async function findWallet(db: Queryable, organizationId: string, walletId: string): Promise<StoredWallet | undefined> {
  const [row] = await run<WalletRow>(db, sql`SELECT ${walletColumns('w')} FROM wallets w WHERE w.organization_id = ${organizationId}::uuid AND w.id = ${walletId}::uuid`);
  return row ? walletOf(row) : undefined;
}
