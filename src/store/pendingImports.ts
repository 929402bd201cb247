// Pending imports (table pending_imports): the target key of a user's import bundle, its private half
// sealed by the caller (keys/custody), from the init_import activity that made it to the import that
// uses it. Here: the row an init's statement writes (replacing the user's earlier one of that kind),
// the read an import plans with, the gate that uses a row once while it is unexpired, and the
// housekeeping's deletion of expired rows.
import type { Queryable } from './db.ts';
import type { Gate } from './gate.ts';
import { run, sql, type Sql } from './sql.ts';

/** What a pending import is for: a wallet's mnemonic, or a private key. */
export type PendingImportKind = 'wallet' | 'private_key';

export interface NewPendingImport {
  pendingImportId: string;
  organizationId: string;
  userId: string;
  kind: PendingImportKind;
  /** Uncompressed P-256 point, hex: the import bundle's targetPublic. */
  targetPublicKey: string;
  sealedTargetKey: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface PendingImport {
  pendingImportId: string;
  targetPublicKey: string;
  sealedTargetKey: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Rows of an activity's statement (`activity` yields its row): the user's earlier pending imports of
 * this kind removed, and the new one written. Both read the statement's snapshot, so the new row stays.
 */
export function replacePendingImportOfActivity(activity: Sql, row: NewPendingImport): Sql[] {
  return [
    sql`DELETE FROM pending_imports
         WHERE organization_id = ${row.organizationId}::uuid AND user_id = ${row.userId}::uuid AND kind = ${row.kind}
           AND EXISTS (SELECT 1 FROM ${activity})`,
    sql`INSERT INTO pending_imports (id, organization_id, user_id, activity_id, kind, target_public_key, sealed_target_key, created_at, expires_at)
        SELECT ${row.pendingImportId}::uuid, ${row.organizationId}::uuid, ${row.userId}::uuid, id, ${row.kind}, ${row.targetPublicKey},
               ${row.sealedTargetKey}, ${row.createdAt}::timestamptz, ${row.expiresAt}::timestamptz
          FROM ${activity}`,
  ];
}

/** Pending imports a user may hold of one kind at once; an init replaces the earlier ones, so more exist only from concurrent inits. */
const MAX_READ = 5;

/** The user's pending imports of this kind, newest first (expired ones too: the import says why it cannot use them). */
export async function findPendingImports(db: Queryable, organizationId: string, userId: string, kind: PendingImportKind): Promise<PendingImport[]> {
  const rows = await run<{ id: string; target_public_key: string; sealed_target_key: string; created_at: Date | string; expires_at: Date | string }>(
    db,
    sql`SELECT id, target_public_key, sealed_target_key, created_at, expires_at FROM pending_imports
         WHERE organization_id = ${organizationId}::uuid AND user_id = ${userId}::uuid AND kind = ${kind}
         ORDER BY created_at DESC, id DESC LIMIT ${MAX_READ}`,
  );
  return rows.map((row) => ({
    pendingImportId: row.id,
    targetPublicKey: row.target_public_key,
    sealedTargetKey: row.sealed_target_key,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
  }));
}

/** A pending import's one use: the row deleted while it is unexpired at `now` (used or expired already: the gate fails). */
export function usePendingImport(organizationId: string, pendingImportId: string, now: Date): Gate {
  return {
    statement: (proceed) => sql`DELETE FROM pending_imports
                                 WHERE id = ${pendingImportId}::uuid AND organization_id = ${organizationId}::uuid
                                   AND expires_at > ${now}::timestamptz AND ${proceed}
                                RETURNING id`,
  };
}

/** The housekeeping's part: pending imports past their expiry deleted, sealed keys and all (how many). */
export async function deleteExpiredPendingImports(db: Queryable): Promise<number> {
  const deleted = await db.query('DELETE FROM pending_imports WHERE expires_at < now() RETURNING id');
  return deleted.length;
}
