// One small SQL interface over both stores: a PostgreSQL server (pg) or embedded PGlite. Same
// dialect, same migrations; values come back alike (int8 as number, timestamptz as Date).
import fs from 'node:fs';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; without it an embedded PGlite store is opened. */
  url?: string;
  /** PGlite folder; without it (and without url) the store lives in memory (tests). */
  dataDir?: string;
  /** PostgreSQL schema to use (tests isolate themselves this way); created when missing. */
  schema?: string;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
}

// int8 (counts, counters) as JS numbers, as PGlite returns them; values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

class PostgresDatabase implements Database {
  readonly kind = 'postgres';
  constructor(private readonly pool: pg.Pool) {}

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await this.pool.query(sql, params);
    return result.rows as T[];
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const tx: Queryable = {
        query: async <R>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as R[],
        exec: async (sql: string) => void (await client.query(sql)),
      };
      const value = await fn(tx);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true; // the connection is gone; do not return it to the pool
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

class PgliteDatabase implements Database {
  readonly kind = 'pglite';
  constructor(private readonly db: PGlite) {}

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params)).rows;
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite has one connection; its transaction() queues other work until this one ends.
    return this.db.transaction((inner) =>
      fn({
        query: async <R>(sql: string, params: unknown[] = []) => (await inner.query<R>(sql, params)).rows,
        exec: async (sql: string) => void (await inner.exec(sql)),
      }),
    );
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    if (schema) {
      const admin = new pg.Client({ connectionString: options.url });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      } finally {
        await admin.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    // An idle client that loses its server emits 'error'; the next query reconnects.
    pool.on('error', () => {});
    const database = new PostgresDatabase(pool);
    await database.query('SELECT 1');
    return database;
  }
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const pglite = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
  await pglite.waitReady;
  return new PgliteDatabase(pglite);
}
