// One small SQL interface over both stores: a PostgreSQL server (pg) or embedded PGlite. Same
// dialect, same migrations; values come back alike (int8 as number, timestamptz as Date).
import { hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { lockEmbeddedStore, type EmbeddedStoreLock } from './embeddedLock.ts';
import { DatabaseUnavailable } from '../errors.ts';

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Ends the store; a connection not given back within the database timeout is dropped. With
   * `discardNew`, an embedded folder this process made when it opened it is removed (a start that
   * failed leaves no half-made store behind), before its lock is released.
   */
  close(options?: { discardNew?: boolean }): Promise<void>;
}

export interface TransactionOptions {
  /** No statement or read timeout: schema migrations may legitimately run long. */
  unbounded?: boolean;
}

export interface DatabaseOptions {
  /** postgres:// URL; without it an embedded PGlite store is opened. */
  url?: string;
  /** PGlite folder, held by this process only; without it (and without url) the store lives in memory (tests). */
  dataDir?: string;
  /** The data directory to start from (dumpEmbeddedStore's image) instead of a new one: in memory, or into a dataDir that holds no store yet. */
  image?: Blob;
  /** What opens the PGlite folder, named to a process refused because this one holds it. */
  holder?: string;
  /** PostgreSQL schema to use (tests isolate themselves this way); created when missing. */
  schema?: string;
  /** Pool size for PostgreSQL. */
  maxConnections?: number;
  /** PostgreSQL: bound in ms of connecting, of waiting for a pooled connection and of each statement. */
  timeoutMs?: number;
}


const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

// From the server, a bound that ran out: statement_timeout (57014 query_canceled), lock_timeout
// (55P03), idle_in_transaction_session_timeout (25P03, which also ends the session).
const SERVER_TIMEOUTS = new Set(['57014', '55P03', '25P03']);
// From pg and pg-pool: the client-side read timeout, and the bound of connecting or of waiting for a pooled connection.
const DRIVER_TIMEOUT = /query read timeout|timeout exceeded when trying to connect|connection terminated due to connection timeout/i;
// From pg: a socket closed under a query, a client that already lost its connection, a pool
// closing at shutdown.
const DRIVER_LOST = /connection (terminated|ended|error)|not queryable|cannot use a pool after calling end/i;

function classify(error: unknown): unknown {
  const { code, severity, message = '' } = error as { code?: unknown; severity?: unknown; message?: string };
  const unavailable = (timedOut: boolean) => new DatabaseUnavailable(message, timedOut, { cause: error });
  if (typeof severity === 'string') {
    // From the server: SQLSTATE classes of a lost or refused connection (08), shutdown (57P0x),
    // too many connections (53300).
    if (typeof code !== 'string') return error;
    if (SERVER_TIMEOUTS.has(code)) return unavailable(true);
    return code.startsWith('08') || code.startsWith('57P0') || code === '53300' ? unavailable(false) : error;
  }
  if (DRIVER_TIMEOUT.test(message)) return unavailable(true);
  if ((typeof code === 'string' && NETWORK_CODES.has(code)) || DRIVER_LOST.test(message)) return unavailable(false);
  return error;
}

// int8 (counts, counters) as JS numbers, as PGlite returns them; values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

// The client-side read timeout fires this much after the server's statement_timeout would, so a
// slow statement on a healthy server is cancelled by the server first; the read timeout is what
// ends a wait on a silent network.
const READ_TIMEOUT_MARGIN_MS = 500;
// TCP keepalive probes an idle connection after this long. Linux then waits its own interval
// (75 s × 9 by default) before giving up, so it keeps firewall state alive and reaps dead sockets
// eventually; the read timeout is the bound a request relies on.
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * Every wait is bounded: connecting and waiting for a pooled connection (connectionTimeoutMillis),
 * each statement on the server (statement_timeout, which also bounds lock waits, so no separate
 * lock_timeout) and on the client (query_timeout), and a transaction left idle by a client that
 * went silent (idle_in_transaction_session_timeout, which frees its locks).
 */
function connectionConfig(url: string, timeoutMs: number, schema: string | undefined, bounded: boolean): pg.ClientConfig {
  // The URL's own `options` (which would replace these) are kept, and these added after them.
  const { connectionString, fromUrl } = withoutOptions(url);
  return {
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    idle_in_transaction_session_timeout: timeoutMs,
    ...(bounded ? { statement_timeout: timeoutMs, query_timeout: timeoutMs + READ_TIMEOUT_MARGIN_MS } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    // JIT compilation off: Signet's statements are short, and one whose estimated cost passes
    // jit_above_cost (a group commit's, once tables have grown past their statistics) spent 130 ms
    // of the server's CPU compiling each time (PostgreSQL 11 and later know the setting).
    options: [fromUrl, '-c jit=off', schema ? `-c search_path=${schema}` : undefined].filter((option) => option).join(' '),
  };
}

/** The URL without its `options` parameter, and that parameter (null without one, or for a URL only the pg driver reads). */
function withoutOptions(url: string): { connectionString: string; fromUrl: string | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, fromUrl: null };
  }
  const fromUrl = parsed.searchParams.get('options');
  if (fromUrl === null) return { connectionString: url, fromUrl };
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), fromUrl };
}

/** A connection a transaction runs on, and how to give it back (dropping it when it failed). */
interface Session {
  client: pg.ClientBase;
  release(failure?: Error): void;
}

/**
 * A statement with parameters is prepared once per connection, named after its text: the store's
 * statements are few and fixed (composed from the same parts), and PostgreSQL then parses and plans
 * each once instead of at every call — half of the server's work on an activity's statement.
 * Statements without parameters (migrations, scripts of several statements) go as plain queries.
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig {
  if (values.length === 0) return { text, values };
  let name = statementNames.get(text);
  if (name === undefined) {
    // Bounded all the same: a statement whose text varied with its input would otherwise grow it.
    if (statementNames.size >= STATEMENT_NAMES_KEPT) statementNames.clear();
    name = `signet_${hash('sha256', text, 'base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}
/** Statement text → its name, so the text is hashed once per process rather than at every call. */
const statementNames = new Map<string, string>();
const STATEMENT_NAMES_KEPT = 1000;

class PostgresDatabase implements Database {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;
  /** Open pool connections, so close() can drop those not given back. */
  private readonly clients = new Set<pg.Client>();

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly schema: string | undefined,
    maxConnections: number,
  ) {
    this.pool = new pg.Pool({ ...connectionConfig(url, timeoutMs, schema, true), max: maxConnections });
    // An idle client that loses its server emits 'error'; the pool drops it and the next query reconnects.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => this.clients.add(client));
    this.pool.on('remove', (client) => this.clients.delete(client));
  }

  // pool.query gives the client back with the error of a failed query, and pg-pool then drops it:
  // a connection that timed out or broke never serves another query.
  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      return (await this.pool.query(prepared(sql, params))).rows as T[];
    } catch (error) {
      throw classify(error);
    }
  }

  async exec(sql: string): Promise<void> {
    await this.query(sql);
  }

  private async session(unbounded: boolean): Promise<Session> {
    if (!unbounded) {
      const client = await this.pool.connect();
      return { client, release: (failure) => client.release(failure ?? false) };
    }
    // pg cannot lift the pool's read timeout for one query: an unbounded transaction has its own connection.
    const client = new pg.Client(connectionConfig(this.url, this.timeoutMs, this.schema, false));
    client.on('error', () => {}); // reported to the query in flight
    try {
      await client.connect();
    } catch (error) {
      void client.end().catch(() => {});
      throw error;
    }
    return {
      client,
      // A connection that failed may be silent: its goodbye would never be answered.
      release: (failure) => (failure ? client.connection.stream.destroy() : void client.end().catch(() => {})),
    };
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    let session: Session;
    try {
      session = await this.session(options.unbounded === true);
    } catch (error) {
      throw classify(error);
    }
    const { client } = session;
    // Set once the connection timed out or broke: it is not asked anything more (not even
    // ROLLBACK, which would wait out another timeout) and is dropped, which ends the transaction.
    let lost: DatabaseUnavailable | undefined;
    const connectionLost = (error: unknown): DatabaseUnavailable => {
      const classified = classify(error);
      return classified instanceof DatabaseUnavailable ? classified : new DatabaseUnavailable((error as Error).message, false, { cause: error });
    };
    // Between statements, a lost connection (the server ending an idle transaction, a dropped
    // socket) is reported as an 'error' event, which would crash the process unheard.
    const onError = (error: Error) => void (lost ??= connectionLost(error));
    client.on('error', onError);
    const run = async <R>(sql: string, params?: unknown[]): Promise<R[]> => {
      if (lost) throw lost;
      try {
        return (await client.query(prepared(sql, params ?? []))).rows as R[];
      } catch (error) {
        const classified = classify(error);
        if (classified instanceof DatabaseUnavailable) lost ??= classified;
        throw classified;
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
      if (!lost) {
        try {
          await run('ROLLBACK');
        } catch (rollbackError) {
          lost ??= connectionLost(rollbackError);
        }
      }
      throw error;
    } finally {
      client.off('error', onError);
      session.release(lost);
    }
  }

  async close(): Promise<void> {
    // pool.end() waits until every connection given out comes back; one held by a caller that never
    // finishes would hold it forever, so past the timeout the sockets left are dropped (their
    // queries fail).
    let timer: NodeJS.Timeout | undefined;
    const dropped = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        for (const client of this.clients) client.connection.stream.destroy();
        resolve();
      }, this.timeoutMs);
    });
    try {
      await Promise.race([this.pool.end(), dropped]);
    } finally {
      clearTimeout(timer);
    }
  }
}

class PgliteDatabase implements Database {
  readonly kind = 'pglite';
  constructor(
    private readonly db: PGlite,
    private readonly lock?: EmbeddedStoreLock,
    /** The folder this open made (it held no store before), which close({ discardNew }) removes. */
    private readonly made?: string,
  ) {}

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.db.query<T>(sql, params)).rows;
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  // In-process: no network to go silent, so no bounds (options.unbounded is moot).
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite has one connection; its transaction() queues other work until this one ends.
    return this.db.transaction((inner) =>
      fn({
        query: async <R>(sql: string, params: unknown[] = []) => (await inner.query<R>(sql, params)).rows,
        exec: async (sql: string) => void (await inner.exec(sql)),
      }),
    );
  }

  // Inside a PGlite transaction, which holds the lock that every other query and transaction waits
  // for (dumpDataDir alone takes only the lock of one statement, so it could fall between two
  // statements of another transaction): the image is the store between two of them, with every
  // commit before it and nothing after. The checkpoint first writes every committed page into the
  // data files, so opening the image does not depend on replaying the write-ahead log.
  dump(compression: 'none' | 'gzip' = 'none'): Promise<Blob> {
    return this.db.transaction(async (tx) => {
      await tx.exec('CHECKPOINT');
      return this.db.dumpDataDir(compression);
    });
  }

  async close(options: { discardNew?: boolean } = {}): Promise<void> {
    try {
      await this.db.close();
      if (options.discardNew && this.made) fs.rmSync(this.made, { recursive: true, force: true });
    } finally {
      this.lock?.release();
    }
  }
}

/**
 * An embedded store's data directory as a tarball, for openDatabase({ image }): the tests start
 * their stores from one, instead of running PGlite's initdb and the migrations for each, and a
 * backup holds one (backup.ts).
 */
export function dumpEmbeddedStore(db: Database): Promise<Blob> {
  if (!(db instanceof PgliteDatabase)) throw new Error('only an embedded store can be dumped');
  return db.dump();
}

// The embedded store's memory. PGlite runs PostgreSQL in one WebAssembly memory, which grows to
// its peak use and never shrinks, so each bound below caps the process for good. With PostgreSQL's
// defaults (shared_buffers 128MB) the store alone held ~190 MiB and `npm start` ~430 MiB idle.
// Settings on the command line win over postgresql.conf, so they hold for folders made before too.
const EMBEDDED_SETTINGS = {
  // The page cache, the one large fixed allocation. An embedded store serves one process and a
  // small working set, and a page it misses is a read from the operating system's file cache.
  shared_buffers: '16MB',
  // WAL written between flushes; ample for one 400 KiB interface (PostgreSQL's own choice is 1/32
  // of shared_buffers, 512kB here).
  wal_buffers: '1MB',
  // Per sort or hash step before it spills to a temporary file (PostgreSQL's default, made explicit).
  work_mem: '4MB',
  // CREATE INDEX in a migration and VACUUM; PostgreSQL's 64MB would grow the memory for good the
  // first time a migration indexes a large table.
  maintenance_work_mem: '16MB',
  // Temporary tables only, which Signet does not use (8MB by default).
  temp_buffers: '1MB',
};
const EMBEDDED_FLAGS = Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
function embeddedMemory(pglite: typeof PGlite): PGliteOptions {
  return {
    startParams: [...pglite.defaultStartParams, ...EMBEDDED_FLAGS],
    // initdb, on a new folder, runs its own PostgreSQL (bootstrap) with a 128MB cache unless told.
    initDbStartParams: ['-c', `shared_buffers=${EMBEDDED_SETTINGS.shared_buffers}`],
  };
}

/**
 * A new embedded folder is made from a data directory initialised and migrated at build time
 * (scripts/build.js writes it beside the compiled store): PGlite's own initdb runs a second,
 * temporary PostgreSQL whose ~400 MiB would stay in the process long after the first start, and the
 * migrations take seconds. Where the file is absent (running the sources, in tests) PGlite runs
 * initdb, and the start the migrations.
 */
const INITIAL_DATA_DIR = fileURLToPath(new URL('./pglite-initial.tar.gz', import.meta.url));

/**
 * Writes the data directory new embedded folders start from (called by the build): initialised, and
 * prepared by `prepare` (the build applies the migrations, so a new folder's first start has none
 * to run).
 */
export async function writeInitialDataDir(file = INITIAL_DATA_DIR, prepare: (db: Database) => Promise<unknown> = async () => {}): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PgliteDatabase(new PGlite(embeddedMemory(PGlite)));
  try {
    await prepare(db);
    const tarball = await db.dump('gzip');
    fs.writeFileSync(file, Buffer.from(await tarball.arrayBuffer()));
  } finally {
    await db.close();
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const schema = options.schema;
    const timeoutMs = options.timeoutMs ?? 5000;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    if (schema) {
      const admin = new pg.Client(connectionConfig(options.url, timeoutMs, undefined, true));
      admin.on('error', () => {}); // reported to the query in flight
      try {
        await admin.connect();
        await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      } catch (error) {
        throw classify(error);
      } finally {
        await admin.end();
      }
    }
    const database = new PostgresDatabase(options.url, timeoutMs, schema, options.maxConnections ?? 10);
    try {
      await database.query('SELECT 1');
    } catch (error) {
      await database.close();
      throw error;
    }
    return database;
  }
  // Loaded only for the embedded store: a process on PostgreSQL does not carry PGlite (~40 MiB).
  const { PGlite } = await import('@electric-sql/pglite');
  if (!options.dataDir) {
    const pglite = new PGlite({ ...embeddedMemory(PGlite), ...(options.image ? { loadDataDir: options.image } : {}) });
    await pglite.waitReady;
    return new PgliteDatabase(pglite);
  }
  // Before PGlite reads the folder: a second process on it would lose its own or the first's writes.
  const lock = lockEmbeddedStore(options.dataDir, options.holder ?? process.argv.slice(1).join(' '));
  // Made here when it holds no store yet: removed again if opening it fails (under the lock, so
  // never another process's new store).
  let made: string | undefined;
  try {
    const empty = !fs.existsSync(path.join(options.dataDir, 'PG_VERSION'));
    if (options.image && !empty) throw new Error(`${options.dataDir} already holds a store: an image is loaded only into an empty folder`);
    const image = options.image ?? (empty && fs.existsSync(INITIAL_DATA_DIR) ? new Blob([fs.readFileSync(INITIAL_DATA_DIR)]) : undefined);
    if (empty && !fs.existsSync(options.dataDir)) made = options.dataDir;
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const pglite = new PGlite(options.dataDir, { ...embeddedMemory(PGlite), ...(image ? { loadDataDir: image } : {}) });
    await pglite.waitReady;
    return new PgliteDatabase(pglite, lock, made);
  } catch (error) {
    if (made) fs.rmSync(made, { recursive: true, force: true });
    lock.release();
    throw error;
  }
}
