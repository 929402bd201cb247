// The key a signature is made with, found by `signWith` in one read (kept a few seconds per process,
// the activity's statement checking its row is still there): a wallet account's address (its
// sealed private key; for an account stored before keys were sealed per account, its wallet's sealed
// mnemonic and its path), a private key's id, or a private key's address (the key's sealed material). Each branch reads an index: wallet_accounts and private_key_addresses by
// (organization, address), or by (organization, lower(address)) for Ethereum addresses
// (035_private_keys.sql); private_keys by its primary key.
import type { Queryable } from './db.ts';
import { raw, run, sql, type Sql } from './sql.ts';

/** What signs: whose row the sealed value is bound to, its curve, and for an account its path. */
export type Signer =
  | {
      kind: 'wallet_account';
      walletAccountId: string;
      walletId: string;
      curve: string;
      path: string;
      address: string;
      /** Undefined for an account stored before account keys were sealed (037_wallet_account_keys.sql): its key is derived from the mnemonic. */
      sealedPrivateKey: string | undefined;
      sealedMnemonic: string;
    }
  | { kind: 'private_key'; privateKeyId: string; curve: string; sealedPrivateKey: string };

const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * The organization's key at `signWith`, for an operation that opens it; undefined when there is none.
 * An Ethereum address (0x and 40 hex digits) matches without case, as EIP-55 only adds a checksum to
 * it; any other address matches exactly (Solana's base58 is case-sensitive). A wallet account is taken
 * before a private key, and of several accounts or keys at one address the oldest.
 */
export async function findSigner(db: Queryable, organizationId: string, signWith: string): Promise<Signer | undefined> {
  const cache = cacheOf(db);
  const key = `${organizationId}\u0000${ETHEREUM_ADDRESS.test(signWith) || UUID.test(signWith) ? signWith.toLowerCase() : signWith}`;
  const now = Date.now();
  const cached = cache.get(key);
  if (cached && cached.until > now) return cached.signer;
  const signer = await readSigner(db, organizationId, signWith);
  if (signer === undefined) {
    cache.delete(key);
    return undefined;
  }
  if (cache.size >= MAX_CACHED_SIGNERS) cache.delete(cache.keys().next().value!);
  cache.set(key, { signer, until: now + SIGNER_CACHE_MS });
  return signer;
}

/**
 * How long a process keeps a key found by signWith (its sealed value and row, never anything in
 * clear), so that a signature costs no read of its own. The activity's statement checks the row is
 * still there (signerStillThere), so a key deleted meanwhile, by this process or another, signs
 * nothing that is answered; a key made anew at a deleted one's address is found once this expires.
 */
export const SIGNER_CACHE_MS = 10_000;
/** Keys kept per store; the oldest kept goes first. */
const MAX_CACHED_SIGNERS = 10_000;
const caches = new WeakMap<Queryable, Map<string, { signer: Signer; until: number }>>();
/** Forgets every key this process keeps for the store `db` (a test that changes key rows under a running server). */
export function forgetCachedSigners(db: Queryable): void {
  caches.get(db)?.clear();
}

const cacheOf = (db: Queryable) => {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
};

/**
 * A guard condition: the signer's row is still the organization's (a wallet account's or a private
 * key's). The activity that signed with it is written only while it is.
 */
export function signerStillThere(organizationId: string, kind: Signer['kind'], rowId: string): Sql {
  return kind === 'private_key'
    ? sql`EXISTS (SELECT 1 FROM private_keys WHERE organization_id = ${organizationId}::uuid AND id = ${rowId}::uuid)`
    : sql`EXISTS (SELECT 1 FROM wallet_accounts WHERE organization_id = ${organizationId}::uuid AND id = ${rowId}::uuid)`;
}

async function readSigner(db: Queryable, organizationId: string, signWith: string): Promise<Signer | undefined> {
  const ethereum = ETHEREUM_ADDRESS.test(signWith);
  const byAddress = (alias: 'a' | 'p') =>
    ethereum
      ? sql`lower(${raw(alias)}.address) = ${signWith.toLowerCase()}::text AND ${raw(alias)}.address_format = 'ADDRESS_FORMAT_ETHEREUM'`
      : sql`${raw(alias)}.address = ${signWith}::text`;
  const byId = UUID.test(signWith)
    ? sql`UNION ALL
          SELECT 2, k.created_at, k.id, 'private_key', k.curve, NULL, NULL, k.sealed_private_key, NULL, NULL
            FROM private_keys k WHERE k.organization_id = ${organizationId}::uuid AND k.id = ${signWith.toLowerCase()}::uuid`
    : sql``;
  const [row] = await run<{
    kind: 'wallet_account' | 'private_key';
    id: string;
    curve: string;
    path: string | null;
    address: string | null;
    sealed: string;
    account_id: string | null;
    account_key: string | null;
  }>(
    db,
    sql`SELECT kind, id, curve, path, address, sealed, account_id, account_key FROM (
          SELECT 1 AS rank, a.created_at, a.wallet_id AS id, 'wallet_account' AS kind, a.curve, a.path, a.address, w.sealed_mnemonic AS sealed,
                 a.id AS account_id, a.sealed_private_key AS account_key
            FROM wallet_accounts a JOIN wallets w ON w.id = a.wallet_id
           WHERE a.organization_id = ${organizationId}::uuid AND w.organization_id = ${organizationId}::uuid AND ${byAddress('a')}
          ${byId}
          UNION ALL
          SELECT 3, k.created_at, k.id, 'private_key', k.curve, NULL, NULL, k.sealed_private_key, NULL, NULL
            FROM private_key_addresses p JOIN private_keys k ON k.id = p.private_key_id
           WHERE p.organization_id = ${organizationId}::uuid AND k.organization_id = ${organizationId}::uuid AND ${byAddress('p')}
        ) found
        ORDER BY rank, created_at, id LIMIT 1`,
  );
  if (!row) return undefined;
  return row.kind === 'wallet_account'
    ? {
        kind: 'wallet_account',
        walletAccountId: row.account_id!,
        walletId: row.id,
        curve: row.curve,
        path: row.path!,
        address: row.address!,
        sealedPrivateKey: row.account_key ?? undefined,
        sealedMnemonic: row.sealed,
      }
    : { kind: 'private_key', privateKeyId: row.id, curve: row.curve, sealedPrivateKey: row.sealed };
}
