// A real Signet server on loopback for HTTP tests: the full Fastify stack on a fresh store, an
// organization made through the admin API, and clients signed by the ecosystem's own libraries.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.ts';
import type { Database } from '../../src/store/db.ts';
import { TestClock } from './clock.ts';
import type { TestDatabase } from './databases.ts';
import { softHsmEnv, testKekInSoftHsm } from './softhsm.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789-abcdefghij';

export interface Credentials {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

export interface TestServer {
  server: RunningServer;
  db: Database;
  config: Config;
  baseUrl: string;
  dataDir: string;
  /** The server's clock: advance it rather than wait for an expiry. */
  clock: TestClock;
  /** Calls the admin API; throws on a non-2xx answer. */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  createOrganization(name?: string): Promise<Credentials>;
  client(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>): TurnkeyClient;
  /**
   * Makes a user a member of its organization's root quorum (the threshold stays as it is, 1 by
   * default), so that it may write: for tests whose point is not who may. Raises the organization's
   * authority version, as every change of who may does, so every process reads the quorum anew.
   */
  joinRootQuorum(organizationId: string, userId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startTestServer(
  tdb: TestDatabase,
  env: Record<string, string> = {},
  options: Omit<StartOptions, 'db' | 'clock'> = {},
): Promise<TestServer> {
  const db = await tdb.open();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-test-'));
  const config = loadConfig({
    SIGNET_PORT: '0',
    SIGNET_DATA_DIR: dataDir,
    SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
    SIGNET_OUTBOX_POLL_MS: '20',
    // SIGNET_TEST_KEK=softhsm: wallet keys sealed under a key of a SoftHSM2 token (test/support/softhsm.ts).
    ...(testKekInSoftHsm ? softHsmEnv() : {}),
    ...env,
  });
  const clock = new TestClock();
  const server = await startServer(config, { ...(process.env.SIGNET_TEST_LOG ? { logger: { level: 'error' } } : {}), ...options, db, clock: clock.now });
  const baseUrl = server.url;

  async function admin<T>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(`${baseUrl}/admin/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`admin ${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json as T;
  }

  return {
    server,
    db,
    config,
    baseUrl,
    dataDir,
    clock,
    admin,
    createOrganization: (name = 'Test Org') => admin<Credentials>('POST', '/organizations', { name }),
    client: (credentials) =>
      new TurnkeyClient(
        { baseUrl },
        new ApiKeyStamper({ apiPublicKey: credentials.apiPublicKey, apiPrivateKey: credentials.apiPrivateKey }),
      ),
    joinRootQuorum: (organizationId, userId) =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO root_quorum_members (organization_id, user_id) VALUES ($1, $2)', [organizationId, userId]);
        await tx.query('UPDATE organizations SET authority_version = authority_version + 1 WHERE id = $1', [organizationId]);
      }),
    async close() {
      await server.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
