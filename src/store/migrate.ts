// Applies the SQL files in ./migrations in name order, once each, recording them in schema_migrations;
// an advisory lock makes concurrent starts safe, and no statement timeout cuts a long migration.
// All pending migrations run in one transaction: a failing one leaves the store as it was, and a dry
// run is the same work rolled back. So no migration may hold a statement PostgreSQL refuses inside a
// transaction block (CREATE INDEX CONCURRENTLY, VACUUM, …): test/migrations.test.ts checks it.
// Migrations are forward-only: there is no down migration; going back is restoring a backup.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable } from './db.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 0x5167_6e65; // "Sgne": any constant shared by all Signet processes

/** The migrations this code has, in the order they apply. */
export function migrationNames(): string[] {
  return fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
}

/** The SQL text of one of migrationNames(). */
export function migrationSql(name: string): string {
  return fs.readFileSync(path.join(MIGRATIONS_DIR, name), 'utf8');
}

/** A migration that failed: the store is as it was before (the transaction rolled back). */
export class MigrationFailed extends Error {
  override name = 'MigrationFailed';
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`migration ${migration} failed: ${(cause as Error).message}; nothing was applied`, { cause });
  }
}

/** Thrown through the transaction of a dry run to roll it back once every migration applied. */
class DryRunDone extends Error {
  constructor(readonly applied: string[]) {
    super('dry run: rolled back');
  }
}

async function applyPending(tx: Queryable, files: string[]): Promise<string[]> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
  await tx.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const done = new Set((await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    try {
      await tx.exec(migrationSql(file));
    } catch (error) {
      throw new MigrationFailed(file, error);
    }
    await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
    applied.push(file);
  }
  return applied;
}

/** Applies what is missing; `through` stops after that file (an older schema, for upgrade tests). */
export async function migrate(db: Database, options: { through?: string } = {}): Promise<string[]> {
  const files = migrationNames().filter((f) => options.through === undefined || f <= options.through);
  return db.transaction((tx) => applyPending(tx, files), { unbounded: true });
}

/**
 * Applies what is missing as migrate() does, then rolls it all back: the names it applied, or the
 * MigrationFailed of the first that failed. The advisory lock is held meanwhile, so a server
 * starting then waits for the dry run to end.
 */
export async function dryRunMigrations(db: Database): Promise<string[]> {
  try {
    await db.transaction(async (tx) => {
      throw new DryRunDone(await applyPending(tx, migrationNames()));
    }, { unbounded: true });
  } catch (error) {
    if (error instanceof DryRunDone) return error.applied;
    throw error;
  }
  throw new Error('unreachable: a dry run always rolls back');
}

export interface MigrationStatus {
  /** Recorded in schema_migrations, in name order; `known` is false for one this code does not have (a newer release's). */
  applied: Array<{ name: string; appliedAt: Date; known: boolean }>;
  /** This code's migrations not recorded yet, in the order they would apply. */
  pending: string[];
}

/** What is applied and what is pending, read without writing anything (a new store has no schema_migrations yet). */
export async function migrationStatus(db: Database): Promise<MigrationStatus> {
  const [table] = await db.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  const rows = table!.exists
    ? await db.query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM schema_migrations ORDER BY name')
    : [];
  const names = migrationNames();
  const done = new Set(rows.map((r) => r.name));
  return {
    applied: rows.map((r) => ({ name: r.name, appliedAt: r.applied_at, known: names.includes(r.name) })),
    pending: names.filter((n) => !done.has(n)),
  };
}
