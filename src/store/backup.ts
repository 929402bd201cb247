// The embedded store as one file and back, for `signet backup` and `signet restore`: a gzip-compressed
// tarball of its PGlite data directory, taken between two statements (db.ts's dump), and a store
// made from one in an empty folder. A PostgreSQL store is backed up with PostgreSQL's own tools.
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { dumpEmbeddedStore, openDatabase, type Database } from './db.ts';

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);
const ZLIB_CHUNK_BYTES = 8 * 1024 * 1024;

/** Whether `storeDir` holds an embedded store (PGlite's data directory). */
export function embeddedStoreExists(storeDir: string): boolean {
  return fs.existsSync(path.join(storeDir, 'PG_VERSION'));
}

/**
 * A consistent image of an open embedded store: every statement committed before it and nothing of
 * one after (the dump waits for the statement or transaction under way). Compressed after the
 * store is free again, so the server goes on meanwhile.
 */
export async function snapshotEmbeddedStore(db: Database): Promise<Buffer> {
  const image = await dumpEmbeddedStore(db);
  // Large chunks: each one is a turn of the event loop, which a busy server gives late.
  return gzip(Buffer.from(await image.arrayBuffer()), { chunkSize: ZLIB_CHUNK_BYTES });
}

/** What a restored store holds, read back from it. */
export interface RestoredStore {
  /** The migrations applied to it, by name, oldest first. */
  migrations: string[];
}

/**
 * Makes the embedded store in `storeDir` (which must hold none) from a snapshot, and reads it back
 * once; the folder is left as it was (absent or empty) when the image cannot be loaded. The store is closed after, so
 * the next `signet serve` starts on a folder PGlite shut down cleanly.
 */
export async function restoreEmbeddedStore(storeDir: string, snapshot: Buffer): Promise<RestoredStore> {
  if (embeddedStoreExists(storeDir)) throw new Error(`${storeDir} already holds a store`);
  // Checked here: PGlite would report a broken image as a failed start of PostgreSQL.
  const tarball = await gunzip(snapshot, { chunkSize: ZLIB_CHUNK_BYTES });
  const existed = fs.existsSync(storeDir);
  let db: Database | undefined;
  try {
    db = await openDatabase({ dataDir: storeDir, image: new Blob([tarball]), holder: 'signet restore' });
    const rows = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    return { migrations: rows.map((row) => row.name) };
  } catch (error) {
    await db?.close().catch(() => {});
    db = undefined;
    // Nothing half-made is left: the folder is as it was, absent or empty.
    fs.rmSync(storeDir, { recursive: true, force: true });
    if (existed) fs.mkdirSync(storeDir, { mode: 0o700 });
    throw error;
  } finally {
    await db?.close();
  }
}
