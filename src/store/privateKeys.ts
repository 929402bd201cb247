// Private keys (table private_keys) and their addresses (table private_key_addresses). A key's
// material is sealed by the caller (keys/custody) into sealed_private_key; only the signer lookup
// (signers.ts) reads it back, for an operation that opens it. Here: the rows an activity's statement
// writes and the guards they depend on, and the reads of the queries, each checking the credential in
// the same statement. No read here selects the sealed column.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';

export interface PrivateKeyAddress {
  format: string;
  address: string;
}

export interface StoredPrivateKey {
  privateKeyId: string;
  organizationId: string;
  name: string;
  curve: string;
  publicKey: string;
  addresses: PrivateKeyAddress[];
  exported: boolean;
  imported: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A private key to write, its material already sealed. */
export interface NewPrivateKey {
  privateKeyId: string;
  name: string;
  curve: string;
  publicKey: string;
  sealedPrivateKey: string;
  addresses: PrivateKeyAddress[];
  /** Brought in by import_private_key rather than made here. */
  imported?: boolean;
}

interface PrivateKeyRow {
  id: string;
  organization_id: string;
  name: string;
  curve: string;
  public_key: string;
  addresses: Array<{ format: string; address: string }> | string | null;
  exported: boolean;
  imported: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

/** Every column of a key but its sealed material, and its addresses in order as JSON. */
const PRIVATE_KEY_COLUMNS = sql`k.id, k.organization_id, k.name, k.curve, k.public_key, k.exported, k.imported, k.created_at, k.updated_at,
  (SELECT coalesce(json_agg(json_build_object('format', p.address_format, 'address', p.address) ORDER BY p.position), '[]')
     FROM private_key_addresses p WHERE p.private_key_id = k.id) AS addresses`;

function privateKeyOf(row: PrivateKeyRow): StoredPrivateKey {
  const addresses = typeof row.addresses === 'string' ? (JSON.parse(row.addresses) as PrivateKeyAddress[]) : (row.addresses ?? []);
  return {
    privateKeyId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    curve: row.curve,
    publicKey: row.public_key,
    addresses: addresses.map(({ format, address }) => ({ format, address })),
    exported: row.exported,
    imported: row.imported,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** A guard condition: no private key of the organization has this name. */
export function privateKeyNameFree(organizationId: string, name: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM private_keys WHERE organization_id = ${organizationId}::uuid AND name = ${name})`;
}

/** A guard condition: the organization has room for `adding` more private keys with at most `max` in all. */
export function privateKeysRoomFor(organizationId: string, adding: number, max: number): Sql {
  return sql`(SELECT count(*) FROM private_keys WHERE organization_id = ${organizationId}::uuid) + ${adding}::int <= ${max}::int`;
}

/** A guard condition: the organization has this private key. */
export function privateKeyOfOrganization(organizationId: string, privateKeyId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM private_keys WHERE organization_id = ${organizationId}::uuid AND id = ${privateKeyId}::uuid)`;
}

/** A guard condition: the organization's private key was exported (a key that is not there is not). */
export function privateKeyExported(organizationId: string, privateKeyId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM private_keys WHERE organization_id = ${organizationId}::uuid AND id = ${privateKeyId}::uuid AND exported)`;
}

/** Rows of an activity's statement (`activity` yields its row): the new private keys and their addresses, created at `now`. */
export function insertPrivateKeysOfActivity(activity: Sql, organizationId: string, keys: readonly NewPrivateKey[], now: Date): Sql[] {
  const rows = keys.map((key) => ({
    id: key.privateKeyId,
    name: key.name,
    curve: key.curve,
    public_key: key.publicKey,
    sealed_private_key: key.sealedPrivateKey,
    imported: key.imported === true,
  }));
  const addresses = keys.flatMap((key) =>
    key.addresses.map((address, position) => ({ private_key_id: key.privateKeyId, position, address_format: address.format, address: address.address })),
  );
  return [
    sql`INSERT INTO private_keys (id, organization_id, activity_id, name, curve, public_key, sealed_private_key, exported, imported, created_at, updated_at)
        SELECT r.id, ${organizationId}::uuid, a.id, r.name, r.curve, r.public_key, r.sealed_private_key, false, r.imported, ${now}::timestamptz, ${now}::timestamptz
          FROM ${activity} a,
               jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r (id uuid, name text, curve text, public_key text, sealed_private_key text, imported boolean)
        RETURNING id`,
    // Its key's row is written by the part above, in the same statement: the foreign key is checked at its end.
    sql`INSERT INTO private_key_addresses (private_key_id, organization_id, position, address_format, address)
        SELECT r.private_key_id, ${organizationId}::uuid, r.position, r.address_format, r.address
          FROM ${activity},
               jsonb_to_recordset(${JSON.stringify(addresses)}::jsonb) AS r (private_key_id uuid, position integer, address_format text, address text)`,
  ];
}

/** A row of an activity's statement: the organization's private key marked exported at `now`. */
export function markPrivateKeyExportedOfActivity(activity: Sql, organizationId: string, privateKeyId: string, now: Date): Sql {
  return sql`UPDATE private_keys SET exported = true, updated_at = ${now}::timestamptz
              WHERE organization_id = ${organizationId}::uuid AND id = ${privateKeyId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`;
}

/** A row of an activity's statement: the organization's private keys deleted (their addresses by the foreign key's cascade). */
export function deletePrivateKeysOfActivity(activity: Sql, organizationId: string, privateKeyIds: readonly string[]): Sql {
  return sql`DELETE FROM private_keys
              WHERE organization_id = ${organizationId}::uuid AND id = ANY(${privateKeyIds}::uuid[]) AND EXISTS (SELECT 1 FROM ${activity})`;
}

/** The organization's private key, on behalf of a credential checked in the same statement. */
export async function findPrivateKeyFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  privateKeyId: string,
): Promise<{ refused?: CredentialState; privateKey?: StoredPrivateKey }> {
  const { refused, rows } = await runWithCredential<PrivateKeyRow>(
    db,
    use,
    sql`SELECT ${PRIVATE_KEY_COLUMNS} FROM private_keys k WHERE k.organization_id = ${organizationId}::uuid AND k.id = ${privateKeyId}::uuid`,
  );
  return refused ? { refused } : rows[0] ? { privateKey: privateKeyOf(rows[0]) } : {};
}

/** The organization's private keys, newest first (at most `limit`), on behalf of a credential. */
export async function listPrivateKeysFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  limit: number,
): Promise<{ refused?: CredentialState; privateKeys?: StoredPrivateKey[] }> {
  const { refused, rows } = await runWithCredential<PrivateKeyRow>(
    db,
    use,
    sql`SELECT ${PRIVATE_KEY_COLUMNS} FROM private_keys k WHERE k.organization_id = ${organizationId}::uuid
         ORDER BY k.created_at DESC, k.id DESC LIMIT ${limit}`,
  );
  return refused ? { refused } : { privateKeys: rows.map(privateKeyOf) };
}

/** The organization's private key's curve and sealed material, for an operation that opens it; undefined when there is none. */
export async function findSealedPrivateKey(db: Queryable, organizationId: string, privateKeyId: string): Promise<{ curve: string; sealedPrivateKey: string } | undefined> {
  const [row] = await run<{ curve: string; sealed_private_key: string }>(
    db,
    sql`SELECT curve, sealed_private_key FROM private_keys WHERE organization_id = ${organizationId}::uuid AND id = ${privateKeyId}::uuid`,
  );
  return row ? { curve: row.curve, sealedPrivateKey: row.sealed_private_key } : undefined;
}

/**
 * The organization's private key with its addresses, read fresh by its id (the view step of an
 * activity whose decision reads policies: its name, whether imported or exported, its Ethereum
 * address as a transaction's sender); undefined when there is none.
 */
export async function findPrivateKey(db: Queryable, organizationId: string, privateKeyId: string): Promise<StoredPrivateKey | undefined> {
  const [row] = await run<PrivateKeyRow>(db, sql`SELECT ${PRIVATE_KEY_COLUMNS} FROM private_keys k WHERE k.organization_id = ${organizationId}::uuid AND k.id = ${privateKeyId}::uuid`);
  return row ? privateKeyOf(row) : undefined;
}
