// The stores every storage-touching test runs against: embedded PGlite always, and a real
// PostgreSQL server when SIGNET_TEST_DATABASE_URL is set (CI sets it). Each store is fresh and
// migrated; PostgreSQL ones live in their own schema, dropped by close().
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';

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
  { name: 'pglite', open: async () => migrated(await openDatabase({})) },
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
          const client = new pg.Client({ connectionString: databaseUrl });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        },
      });
    },
  };
}

async function migrated(db: Database): Promise<Database> {
  await migrate(db);
  return db;
}
