// The embedded store is held by one process: a second `signet serve` or `signet migrate` on the same
// folder is refused at once (naming the holder and PostgreSQL), and the holder keeps every write;
// a holder killed with SIGKILL leaves nothing that blocks the next start.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EmbeddedStoreInUse } from '../src/store/embeddedLock.ts';
import { openDatabase } from '../src/store/db.ts';
import { freePort, run, serve, signet, SIGNET_BIN, type Served } from './support/processes.ts';

const ADMIN_TOKEN = 'embedded-store-admin-token-0123456789-xyz';
const REFUSAL = /^signet: the embedded store in .+ is in use by process (\d+) \(signet serve.*\); stop it first\. To run several Signet processes, use PostgreSQL: set SIGNET_DATABASE_URL\.\n$/;

let dataDir: string;
const running: Served[] = [];

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-embedded-'));
});
afterEach(async () => {
  for (const served of running.splice(0)) if (served.child.exitCode === null && served.child.signalCode === null) await served.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<{ served: Served; env: Record<string, string>; baseUrl: string }> {
  const port = await freePort();
  const env = { SIGNET_DATA_DIR: dataDir, SIGNET_DATABASE_URL: '', SIGNET_PORT: String(port), SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_LOG_LEVEL: 'warn' };
  const baseUrl = `http://127.0.0.1:${port}`;
  const served = await serve(env, baseUrl);
  running.push(served);
  return { served, env, baseUrl };
}

async function admin(baseUrl: string, route: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/admin/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Creates an organization through the admin API; returns its ids. */
async function createOrganization(baseUrl: string, name: string): Promise<{ organizationId: string; userId: string }> {
  const created = await admin(baseUrl, '/organizations', { name });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return created.body;
}

/** Reads the organization back: a new API key for its root user exists only if both are stored. */
async function assertStored(baseUrl: string, organization: { organizationId: string; userId: string }): Promise<void> {
  const key = await admin(baseUrl, `/organizations/${organization.organizationId}/api-keys`, { userId: organization.userId });
  assert.equal(key.status, 200, `organization ${organization.organizationId} is gone: ${JSON.stringify(key.body)}`);
  assert.match(key.body.apiKeyId, /^[0-9a-f-]{36}$/);
}

function exited(served: Served): Promise<void> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => served.child.once('exit', () => resolve()));
}

describe('the embedded store is held by one process', () => {
  test('a second signet serve on the same folder exits at once with code 2, and the first keeps every write', async () => {
    const first = await start();
    const secondPort = await freePort();
    // Unrefused, the second server would run until this generous timeout kills it (code null).
    const second = await run(process.execPath, [SIGNET_BIN, 'serve'], { ...first.env, SIGNET_PORT: String(secondPort) }, 60_000);
    assert.equal(second.code, 2, second.stderr + second.stdout);
    assert.match(second.stderr, REFUSAL);
    assert.equal(Number(REFUSAL.exec(second.stderr)![1]), first.served.child.pid);
    assert.doesNotMatch(second.stderr, /\n\s+at /, 'no stack trace');

    const organization = await createOrganization(first.baseUrl, 'Held by one');
    assert.equal(await first.served.stop(), 0);
    const again = await start();
    await assertStored(again.baseUrl, organization);
  });

  test('signet migrate is refused while a server holds the folder, and succeeds once it stops', async () => {
    const first = await start();
    const refused = await signet(['migrate'], first.env);
    assert.equal(refused.code, 2, refused.stderr + refused.stdout);
    assert.match(refused.stderr, REFUSAL);
    assert.equal(Number(REFUSAL.exec(refused.stderr)![1]), first.served.child.pid);
    assert.equal(await first.served.stop(), 0);

    const migrated = await signet(['migrate'], first.env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /schema is up to date/);
  });

  test('after a SIGKILL of the holder, a new signet serve starts at once with the committed data', async () => {
    const first = await start();
    const organization = await createOrganization(first.baseUrl, 'Survives a kill');
    first.served.child.kill('SIGKILL');
    await exited(first.served);

    // Not refused: start() fails on a server that exits (code 2, the lock still taken).
    const again = await start();
    await assertStored(again.baseUrl, organization);
  });
});

describe('the lock of the embedded store', () => {
  test('is refused to a second open while held, and free again once the store is closed', async () => {
    const storeDir = path.join(dataDir, 'pglite');
    const db = await openDatabase({ dataDir: storeDir, holder: 'the first open' });
    await assert.rejects(openDatabase({ dataDir: storeDir }), (error: Error) => {
      assert.ok(error instanceof EmbeddedStoreInUse);
      assert.match(error.message, new RegExp(`in use by process ${process.pid} \\(the first open, started \\d{4}-`));
      return true;
    });
    await db.close();
    const reopened = await openDatabase({ dataDir: storeDir });
    await reopened.close();
    assert.deepEqual(fs.readdirSync(dataDir), ['pglite'], 'nothing of the lock is left');
  });

  test('a record whose pid now belongs to another process (another start time) does not block', async (t) => {
    const startTicks = procStartTicks();
    if (startTicks === undefined) return t.skip('needs /proc (Linux) to tell a reused pid');
    const storeDir = path.join(dataDir, 'pglite');
    fs.mkdirSync(`${storeDir}.lock`, { recursive: true });
    // A record as a killed holder leaves it, with a pid that is running again (this one).
    fs.writeFileSync(
      path.join(`${storeDir}.lock`, 'holder-1-dead.json'),
      JSON.stringify({ pid: process.pid, startTicks: startTicks - 1, holder: 'signet serve', startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const db = await openDatabase({ dataDir: storeDir });
    await db.close();
  });
});

function procStartTicks(): number | undefined {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}
