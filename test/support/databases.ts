// The stores every storage-touching test runs against: embedded PGlite always, and a real
// PostgreSQL server when SIGNET_TEST_DATABASE_URL is set (CI sets it). Each store is fresh and
// migrated; PostgreSQL ones live in their own schema, dropped by close().
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { dumpEmbeddedStore, openDatabase, type Database } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { ROOT } from './processes.ts';

export interface TestDatabase {
  /** 'pglite' or 'postgres', for test names. */
  name: string;
  /** postgres URL, for tests that open more connections (several workers, processes). */
  url?: string;
  /** A fresh migrated store; for PostgreSQL, `schema` names its schema (pass it to openDatabase). */
  open(): Promise<Database & { schema?: string }>;
}

const url = process.env.SIGNET_TEST_DATABASE_URL || undefined;

export const testDatabases: TestDatabase[] = [
  { name: 'pglite', open: migratedEmbeddedStore },
  ...(url ? [postgres(url)] : []),
];

function postgres(databaseUrl: string): TestDatabase {
  return {
    name: 'postgres',
    url: databaseUrl,
    async open() {
      const schema = `signet_test_${randomBytes(6).toString('hex')}`;
      const db = await openDatabase({ url: databaseUrl, schema });
      await migrate(db);
      const close = db.close.bind(db);
      // Dropping the schema on close keeps the test database clean across runs.
      return Object.assign(db, {
        schema,
        async close() {
          await close();
          await dropSchema(databaseUrl, schema);
        },
      });
    },
  };
}

// What an image is made of: PGlite's version, how the store opens it, and (for a migrated one) the migrations.
const IMAGE_INPUTS = [
  path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'),
  path.join(ROOT, 'src', 'store', 'db.ts'),
  fileURLToPath(import.meta.url),
];
const MIGRATIONS = path.join(ROOT, 'src', 'store', 'migrations');

const images = new Map<string, Promise<Blob>>();

/**
 * A fresh migrated embedded store. PGlite's initdb and the migrations take seconds, loading their
 * result a fraction of that, so they run once: the image is kept in the temporary folder under a
 * name that changes with what it is made of (PGlite, the store's options, the migrations).
 */
function migratedEmbeddedStore(): Promise<Database> {
  return storeFromImage('migrated', migrate);
}

/** A fresh embedded store on which no migration ran, for tests of the migrations themselves. */
export function emptyEmbeddedStore(): Promise<Database> {
  return storeFromImage('empty', async () => {});
}

/**
 * The image of a store no migration ran on, to load into a new data folder (openDatabase's `image`):
 * a folder for a `signet` process, without PGlite's initdb of seconds.
 */
export function emptyEmbeddedImage(): Promise<Blob> {
  return imageOf('empty', async () => {});
}

function imageOf(kind: string, prepare: (db: Database) => Promise<unknown>): Promise<Blob> {
  let image = images.get(kind);
  if (!image) {
    image = makeImage(path.join(os.tmpdir(), `signet-test-store-${kind}-${imageKey(kind === 'migrated')}.tar`), prepare);
    images.set(kind, image);
  }
  return image;
}

async function storeFromImage(kind: string, prepare: (db: Database) => Promise<unknown>): Promise<Database> {
  return openDatabase({ image: await imageOf(kind, prepare) });
}

async function makeImage(file: string, prepare: (db: Database) => Promise<unknown>): Promise<Blob> {
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const db = await openDatabase({});
  try {
    await prepare(db);
    // The store is the database `postgres`; the two templates, each about as large, serve only
    // CREATE DATABASE, which no test runs. Without them an image loads in about two thirds of the time.
    for (const template of ['template0', 'template1']) {
      await db.exec(`ALTER DATABASE ${template} WITH IS_TEMPLATE false`);
      await db.exec(`DROP DATABASE ${template}`);
    }
    const made = await dumpEmbeddedStore(db);
    // Written aside and renamed, so a test process starting meanwhile never reads half a file.
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, Buffer.from(await made.arrayBuffer()));
    fs.renameSync(partial, file);
    return made;
  } finally {
    await db.close();
  }
}

function imageKey(withMigrations: boolean): string {
  const key = createHash('sha256');
  for (const input of IMAGE_INPUTS) key.update(fs.readFileSync(input));
  if (withMigrations) {
    for (const name of fs.readdirSync(MIGRATIONS).sort()) key.update(name).update(fs.readFileSync(path.join(MIGRATIONS, name)));
  }
  return key.digest('hex').slice(0, 16);
}

/** A fresh empty schema on the PostgreSQL server at `url`, for a `signet serve` child process to migrate. */
export async function createSchema(url: string, prefix: string): Promise<string> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  await runSql(url, `CREATE SCHEMA ${schema}`);
  return schema;
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  await runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** Runs one statement on the PostgreSQL server at `url`, on a connection of its own. */
export async function runSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database URL whose connections use `schema` (PostgreSQL's `options=-c search_path=…`). */
export function urlWithSchema(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return withSchema.toString();
}

/** The store of a `signet serve` child process: its data folder, and on PostgreSQL a schema of its own. */
export interface ServerStore {
  dataDir: string;
  /** SIGNET_DATA_DIR and SIGNET_DATABASE_URL for the child process ('' selects the embedded store). */
  env: { SIGNET_DATA_DIR: string; SIGNET_DATABASE_URL: string };
  /** Opens the store the server used; on the embedded store, only while no server holds it. */
  open(): Promise<Database>;
  /** Drops the schema and removes the folder. */
  dispose(): Promise<void>;
}

export async function serverStore(tdb: TestDatabase, prefix: string): Promise<ServerStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix.replace(/_/g, '-')}-`));
  const schema = tdb.url ? await createSchema(tdb.url, prefix) : undefined;
  return {
    dataDir,
    env: { SIGNET_DATA_DIR: dataDir, SIGNET_DATABASE_URL: tdb.url && schema ? urlWithSchema(tdb.url, schema) : '' },
    open: () => (tdb.url ? openDatabase({ url: tdb.url, schema: schema! }) : openDatabase({ dataDir: path.join(dataDir, 'pglite') })),
    async dispose() {
      if (tdb.url && schema) await dropSchema(tdb.url, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
