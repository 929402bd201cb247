// One small SQL interface over both stores: a PostgreSQL server (pg) or embedded PGlite. Same
// dialect, same migrations; values come back alike (int8 as number, timestamptz as Date).
import fs from 'node:fs';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { lockEmbeddedStore, type EmbeddedStoreLock } from './embeddedLock.ts';

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
  /** PGlite folder, held by this process only; without it (and without url) the store lives in memory (tests). */
  dataDir?: string;
  /** What opens the PGlite folder, named to a process refused because this one holds it. */
  holder?: string;
  /** PostgreSQL schema to use (tests isolate themselves this way); created when missing. */
  schema?: string;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
}

/** The database could not be reached or dropped the connection: worth a retry, not a bug report. */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

// From the server: SQLSTATE classes of a lost or refused connection (08), shutdown (57P0x), too
// many connections (53300). From the driver: a socket error, or pg's "Connection terminated…".
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof (error as { severity?: unknown }).severity === 'string') {
    return typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P0') || code === '53300');
  }
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return /connection (terminated|ended|error)|timeout exceeded when trying to connect/i.test((error as Error).message ?? '');
}

function classify(error: unknown): unknown {
  return isConnectionFailure(error) ? new DatabaseUnavailable((error as Error).message, { cause: error }) : error;
}

// int8 (counts, counters) as JS numbers, as PGlite returns them; values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

class PostgresDatabase implements Database {
  readonly kind = 'postgres';
  constructor(private readonly pool: pg.Pool) {}

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      return (await this.pool.query(sql, params)).rows as T[];
    } catch (error) {
      throw classify(error);
    }
  }

  async exec(sql: string): Promise<void> {
    await this.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw classify(error);
    }
    let broken = false;
    const run = async <R>(sql: string, params?: unknown[]): Promise<R[]> => {
      try {
        return (await client.query(sql, params)).rows as R[];
      } catch (error) {
        throw classify(error);
      }
    };
    try {
      await run('BEGIN');
      const tx: Queryable = {
        query: run,
        exec: async (sql: string) => void (await run(sql)),
      };
      const value = await fn(tx);
      await run('COMMIT');
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
  constructor(
    private readonly db: PGlite,
    private readonly lock?: EmbeddedStoreLock,
  ) {}

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
    try {
      await this.db.close();
    } finally {
      this.lock?.release();
    }
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
      // A database host that does not answer must fail requests (503), not hang them.
      connectionTimeoutMillis: 5000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    // An idle client that loses its server emits 'error'; the next query reconnects.
    pool.on('error', () => {});
    const database = new PostgresDatabase(pool);
    await database.query('SELECT 1');
    return database;
  }
  if (!options.dataDir) {
    const pglite = new PGlite();
    await pglite.waitReady;
    return new PgliteDatabase(pglite);
  }
  // Before PGlite reads the folder: a second process on it would lose its own or the first's writes.
  const lock = lockEmbeddedStore(options.dataDir, options.holder ?? process.argv.slice(1).join(' '));
  try {
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const pglite = new PGlite(options.dataDir);
    await pglite.waitReady;
    return new PgliteDatabase(pglite, lock);
  } catch (error) {
    lock.release();
    throw error;
  }
}
