// Every column that holds sealed key material (keys/custody's sealKeyMaterial text), declared once:
// its table, the kind the value is sealed as (part of what it is bound to) and where its row's id
// and organization are. `signet keys rewrap` walks this table; a new table of key material adds its
// row here and is re-sealed with the rest. Here too: the reads of a page of such values and the
// guarded write of one value re-sealed.
import type { Queryable } from './db.ts';

export interface SealedColumn {
  table: string;
  column: string;
  /** The SealContext kind the values are sealed as (keys/custody). */
  kind: string;
  /** The column of the row's id (the SealContext rowId) and of its organization. */
  idColumn: string;
  organizationColumn: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  // Each kind is the constant its handler seals with (test/keyRewrap.test.ts keeps them equal): WALLET_MNEMONIC,
  // WALLET_ACCOUNT_KEY, PRIVATE_KEY_MATERIAL, IMPORT_TARGET_KEY and AUTH_PROXY_API_KEY.
  { table: 'wallets', column: 'sealed_mnemonic', kind: 'wallet_mnemonic', idColumn: 'id', organizationColumn: 'organization_id' },
  { table: 'wallet_accounts', column: 'sealed_private_key', kind: 'wallet_account_key', idColumn: 'id', organizationColumn: 'organization_id' },
  { table: 'private_keys', column: 'sealed_private_key', kind: 'private_key', idColumn: 'id', organizationColumn: 'organization_id' },
  { table: 'pending_imports', column: 'sealed_target_key', kind: 'import_target_key', idColumn: 'id', organizationColumn: 'organization_id' },
  { table: 'auth_proxy_configs', column: 'sealed_api_private_key', kind: 'auth_proxy_api_key', idColumn: 'id', organizationColumn: 'organization_id' },
];

/** A stored sealed value and the row it is bound to. */
export interface SealedValue {
  rowId: string;
  organizationId: string;
  sealed: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The column's names, checked to be plain identifiers (they are written into statements). */
function names(at: SealedColumn) {
  for (const name of [at.table, at.column, at.idColumn, at.organizationColumn]) {
    if (!IDENTIFIER.test(name)) throw new Error(`sealed column: ${name} is not a plain identifier`);
  }
  return at;
}

/** Up to `limit` values of the column, in the order of their row's id, after the row `afterId` (from the first without it). */
export async function sealedValuesAfter(db: Queryable, at: SealedColumn, afterId: string | undefined, limit: number): Promise<SealedValue[]> {
  const { table, column, idColumn, organizationColumn } = names(at);
  const rows = await db.query<{ id: string; organization_id: string; sealed: string }>(
    `SELECT ${idColumn}::text AS id, ${organizationColumn}::text AS organization_id, ${column} AS sealed FROM ${table}
     WHERE ${column} IS NOT NULL ${afterId === undefined ? '' : `AND ${idColumn} > $2`}
     ORDER BY ${idColumn} LIMIT $1`,
    afterId === undefined ? [limit] : [limit, afterId],
  );
  return rows.map((row) => ({ rowId: row.id, organizationId: row.organization_id, sealed: row.sealed }));
}

/** The row's value now (undefined when the row is gone or holds none). */
export async function sealedValue(db: Queryable, at: SealedColumn, rowId: string): Promise<string | undefined> {
  const { table, column, idColumn } = names(at);
  const [row] = await db.query<{ sealed: string | null }>(`SELECT ${column} AS sealed FROM ${table} WHERE ${idColumn} = $1`, [rowId]);
  return row?.sealed ?? undefined;
}

/**
 * Replaces the row's value by `next` only while it is still `previous` (compare and set): a value
 * written meanwhile by someone else is kept, and the answer (false) says so.
 */
export async function replaceSealedValue(db: Queryable, at: SealedColumn, rowId: string, previous: string, next: string): Promise<boolean> {
  const { table, column, idColumn } = names(at);
  const rows = await db.query(`UPDATE ${table} SET ${column} = $3 WHERE ${idColumn} = $1 AND ${column} = $2 RETURNING ${idColumn}`, [rowId, previous, next]);
  return rows.length === 1;
}
