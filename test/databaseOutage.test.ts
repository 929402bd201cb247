// PostgreSQL gone, with a reset or silently: 503 within bounded time, readiness says so, service returns
// by itself, shutdown is bounded. PostgreSQL only: reached through a loopback TCP proxy the test cuts or silences.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import pg from 'pg';
import { DatabaseUnavailable } from '../src/errors.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { testDatabases } from './support/databases.ts';
import { freePort, serve, type Served } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

/** A loopback TCP proxy to PostgreSQL that can fail the way networks do. */
class Proxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly links = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private silent = false;
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(port = 0): Promise<void> {
    // allowHalfOpen: a FIN from one side is not answered by the proxy itself; it is forwarded or not.
    this.server = net.createServer({ allowHalfOpen: true }, (client) => {
      this.track(client);
      if (this.silent) {
        client.pause(); // accepted, never answered
        return;
      }
      const upstream = net.connect({ port: this.target.port, host: this.target.host, allowHalfOpen: true });
      this.track(upstream);
      const link = { client, upstream };
      this.links.add(link);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
  }

  /** Refuses new connections and resets the open ones, as a crashed database host would. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.links.clear();
    await new Promise((resolve) => this.server!.close(resolve));
  }

  /**
   * A silent partition: nothing is forwarded either way on the open connections, no reset, no
   * FIN; new connections are accepted and never answered.
   */
  silence(): void {
    this.silent = true;
    for (const { client, upstream } of this.links) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    this.links.clear();
  }

  /**
   * The network is back for new connections. Those open during the silence stay silent: after a
   * long cut TCP's retransmission backoff keeps old connections quiet long after the network returns.
   */
  resume(): void {
    this.silent = false;
  }

  async close(): Promise<void> {
    this.silent = false;
    this.links.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => (this.server?.listening ? this.server.close(resolve) : resolve(undefined)));
  }
}

const postgres = testDatabases.find((d) => d.name === 'postgres');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A submission signed with the organization's API key; `hung` when no answer came within the test's patience, `dropped` when the connection closed unanswered. */
async function submit(baseUrl: string, org: Credentials, label: string, patienceMs = 15_000) {
  const body = JSON.stringify({
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    timestampMs: String(Date.now()),
    organizationId: org.organizationId,
    parameters: {
      smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      smartContractInterface: '[]',
      type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
      label,
    },
  });
  const stamp = await new ApiKeyStamper(org).stamp(body);
  const started = Date.now();
  try {
    const response = await fetch(`${baseUrl}/public/v1/submit/create_smart_contract_interface`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
      body,
      signal: AbortSignal.timeout(patienceMs),
    });
    return { status: response.status as number | 'hung' | 'dropped', json: (await response.json()) as any, ms: Date.now() - started };
  } catch (error) {
    const hung = (error as Error).name === 'TimeoutError';
    return { status: hung ? ('hung' as const) : ('dropped' as const), json: undefined, ms: Date.now() - started };
  }
}

async function readyz(baseUrl: string, patienceMs = 15_000) {
  const started = Date.now();
  try {
    const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(patienceMs) });
    await response.arrayBuffer();
    return { status: response.status as number | 'hung', ms: Date.now() - started };
  } catch {
    return { status: 'hung' as const, ms: Date.now() - started };
  }
}

describe('database outage (postgres)', { skip: postgres ? false : 'SIGNET_TEST_DATABASE_URL is not set; PostgreSQL only' }, () => {
  let proxy: Proxy;
  let server: TestServer;
  let org: Credentials;
  let direct: Awaited<ReturnType<NonNullable<typeof postgres>['open']>>;

  before(async () => {
    const url = new URL(postgres!.url!);
    proxy = new Proxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.open();
    // The server's store goes through the proxy; the schema is migrated directly first.
    direct = await postgres!.open();
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    // A small pool, so the connections a silent cut leaves hanging can fill it, as a heavier load
    // fills a bigger one.
    const db = await openDatabase({ url: viaProxy.toString(), schema: direct.schema!, timeoutMs: 1000, maxConnections: 4 });
    server = await startTestServer({ name: 'postgres-proxy', open: async () => db }, { SIGNET_DATABASE_TIMEOUT_MS: '1000' });
    org = await server.createOrganization();
  });
  after(
    async () => {
      await proxy.close();
      await server.close();
      await direct.close();
    },
    { timeout: 20_000 },
  );

  test('503 while the database is gone, 200 again once it is back', async () => {
    assert.equal((await submit(server.baseUrl, org, 'before')).status, 200);
    const port = proxy.port;
    await proxy.cut();

    const during = await submit(server.baseUrl, org, 'during');
    assert.equal(during.status, 503, JSON.stringify(during.json));
    assert.equal(during.json.code, 14);
    assert.match(during.json.message, /nothing was stored, retry later/);
    assert.equal((await readyz(server.baseUrl)).status, 503);
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, 'the process itself is fine');

    await proxy.open(port);
    assert.equal((await readyz(server.baseUrl)).status, 200);
    assert.equal((await submit(server.baseUrl, org, 'after')).status, 200);
  });

  test('a silent cut under steady load: every request answers 503 within seconds, and service is back within seconds of its end', async (t) => {
    // Several pooled connections, all about to go silent.
    const warm = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(server.baseUrl, org, `warm ${i}`)));
    assert.deepEqual(warm.map((r) => r.status), Array(6).fill(200));

    proxy.silence();
    const silencedAt = Date.now();
    // A light steady load (5 submissions a second) all through the cut and the recovery.
    const load: Array<Promise<Awaited<ReturnType<typeof submit>> & { at: number; end: number }>> = [];
    let loading = true;
    const generator = (async () => {
      for (let i = 0; loading; i++) {
        const at = Date.now();
        load.push(submit(server.baseUrl, org, `load ${i}`).then((r) => ({ ...r, at, end: Date.now() })));
        await sleep(200);
      }
    })();

    const readyDuring: Array<Awaited<ReturnType<typeof readyz>>> = [];
    while (Date.now() - silencedAt < 5000) readyDuring.push(await readyz(server.baseUrl));
    proxy.resume();
    const resumedAt = Date.now();
    const startedDuringCut = load.slice();

    let ready: Awaited<ReturnType<typeof readyz>>;
    while ((ready = await readyz(server.baseUrl)).status !== 200 && Date.now() - resumedAt < 15_000) await sleep(100);
    const readyAfterMs = Date.now() - resumedAt;
    let ok: Awaited<ReturnType<typeof submit>>;
    while ((ok = await submit(server.baseUrl, org, 'recovered')).status !== 200 && Date.now() - resumedAt < 15_000) await sleep(100);
    const submitAfterMs = Date.now() - resumedAt;
    loading = false;
    await generator;
    const duringCut = await Promise.all(startedDuringCut);
    const all = await Promise.all(load);
    const steady = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(server.baseUrl, org, `steady ${i}`)));

    t.diagnostic(
      `silent cut of 5 s: ${duringCut.length} submissions started during it answered ` +
        `${duringCut.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; /readyz during it: ${readyDuring.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; ` +
        `after the cut /readyz 200 in ${readyAfterMs} ms, a submission 200 in ${submitAfterMs} ms; ` +
        `load after the cut: ${all.filter((r) => r.at >= resumedAt).map((r) => r.status).join(' ')}`,
    );

    for (const r of duringCut) {
      assert.notEqual(r.status, 'hung', `a submission during the silent cut got no answer in ${r.ms} ms`);
      assert.ok(r.ms < 4000, `a submission during the silent cut took ${r.ms} ms to answer (${r.status})`);
      // Answered while the database was silent: it cannot have succeeded.
      if (r.end < resumedAt) assert.equal(r.status, 503, JSON.stringify(r.json));
    }
    assert.match(duringCut[0]!.json.message, /did not answer in time; nothing was stored, retry later/);
    for (const r of readyDuring) {
      assert.equal(r.status, 503);
      assert.ok(r.ms < 4000, `/readyz during the silent cut took ${r.ms} ms`);
    }
    assert.equal(ready!.status, 200, `/readyz still ${ready!.status} ${readyAfterMs} ms after the network returned`);
    assert.ok(readyAfterMs < 5000, `/readyz took ${readyAfterMs} ms to be 200 again`);
    assert.equal(ok!.status, 200, `submissions still ${ok!.status} ${submitAfterMs} ms after the network returned`);
    assert.ok(submitAfterMs < 5000, `a submission took ${submitAfterMs} ms to succeed again`);
    assert.ok(all.every((r) => r.status !== 'hung'), 'no request of the load hung');
    assert.deepEqual(steady.map((r) => r.status), Array(5).fill(200), 'service is steady again');
  });
});

describe('database bounds (postgres)', { skip: postgres ? false : 'SIGNET_TEST_DATABASE_URL is not set; PostgreSQL only' }, () => {
  let direct: Awaited<ReturnType<NonNullable<typeof postgres>['open']>>;
  let db: Database | undefined;
  before(async () => {
    direct = await postgres!.open();
  });
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });
  after(async () => {
    await direct.close();
  });

  test('a statement past the timeout on a healthy server is DatabaseUnavailable, and its connection is replaced', async () => {
    db = await openDatabase({ url: postgres!.url!, schema: direct.schema!, timeoutMs: 300, maxConnections: 1 });
    const [before] = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const started = Date.now();
    await assert.rejects(
      db.transaction((tx) => tx.query('SELECT pg_sleep(3)')),
      (error: unknown) => error instanceof DatabaseUnavailable && /did not answer in time|statement timeout/i.test((error as Error).message),
    );
    assert.ok(Date.now() - started < 2000, `the statement ran ${Date.now() - started} ms`);
    await assert.rejects(db.query('SELECT pg_sleep(3)'), DatabaseUnavailable);
    const [after] = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    assert.notEqual(after!.pid, before!.pid, 'the connection that timed out was discarded');
  });

  test('a transaction left idle past the timeout is ended by the server (its locks freed) and fails as DatabaseUnavailable', async () => {
    db = await openDatabase({ url: postgres!.url!, schema: direct.schema!, timeoutMs: 300 });
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await sleep(1000); // the caller went quiet mid-transaction
        await tx.query('SELECT 2');
      }),
      DatabaseUnavailable,
    );
    assert.deepEqual(await db.query('SELECT 1 AS ok'), [{ ok: 1 }], 'the pool serves on');
  });

  test('a long transaction asked for without bounds (migrations) is not cut', async () => {
    db = await openDatabase({ url: postgres!.url!, schema: direct.schema!, timeoutMs: 200 });
    const [row] = await db.transaction((tx) => tx.query<{ ok: number }>('SELECT 1 AS ok FROM pg_sleep(0.6)'), { unbounded: true });
    assert.equal(row!.ok, 1);
    await assert.rejects(db.transaction((tx) => tx.query('SELECT pg_sleep(0.6)')), DatabaseUnavailable);
  });

  test('closing does not wait past the timeout for a connection that is not given back', async () => {
    db = await openDatabase({ url: postgres!.url!, schema: direct.schema!, timeoutMs: 300 });
    let entered!: () => void;
    const inTransaction = new Promise<void>((resolve) => (entered = resolve));
    const stuck = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      entered();
      await new Promise(() => {}); // a caller that never finishes
    });
    stuck.catch(() => {});
    await inTransaction;
    const started = Date.now();
    const closing = db.close();
    db = undefined; // closed here, not after the test
    const outcome = await Promise.race([closing.then(() => 'closed'), sleep(5000).then(() => 'still closing')]);
    assert.equal(outcome, 'closed');
    assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`);
  });
});

describe('SIGTERM during a silent database cut (postgres)', { skip: postgres ? false : 'SIGNET_TEST_DATABASE_URL is not set; PostgreSQL only' }, () => {
  const ADMIN_TOKEN = 'outage-test-admin-token-0123456789-xyz';
  let proxy: Proxy;
  let schema: string;
  let dataDir: string;
  let served: Served | undefined;

  before(async () => {
    const url = new URL(postgres!.url!);
    proxy = new Proxy({ host: url.hostname, port: Number(url.port || 5432) });
    schema = `signet_outage_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: postgres!.url! });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-outage-'));
  });
  afterEach(async () => {
    if (served && served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await new Promise((resolve) => served!.child.once('exit', resolve));
    }
    served = undefined;
    await proxy.close();
  });
  after(async () => {
    const client = new pg.Client({ connectionString: postgres!.url! });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** `signet serve` on the proxy; resolves once an organization exists and requests hang on a silenced database. */
  async function serveAndSilence(env: Record<string, string>) {
    await proxy.open();
    const url = new URL(postgres!.url!);
    url.port = String(proxy.port);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    served = await serve(
      { SIGNET_DATA_DIR: dataDir, SIGNET_PORT: String(port), SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_DATABASE_URL: url.toString(), ...env },
      baseUrl,
    );
    const response = await fetch(`${baseUrl}/admin/v1/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Outage' }),
    });
    assert.equal(response.status, 200);
    const org = (await response.json()) as Credentials;
    assert.equal((await submit(baseUrl, org, 'before')).status, 200);

    proxy.silence();
    const inFlight = Array.from({ length: 4 }, (_, i) => submit(baseUrl, org, `in flight ${i}`));
    await sleep(300); // the requests are waiting on the silent database
    return { inFlight };
  }

  function exit(child: Served['child']): Promise<number | null> {
    return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', resolve));
  }

  test('graceful: the requests in flight get 503 within the database bound, the pool closes, exit 0', async (t) => {
    const { inFlight } = await serveAndSilence({ SIGNET_DATABASE_TIMEOUT_MS: '1000', SIGNET_SHUTDOWN_TIMEOUT_MS: '10000' });
    const signalled = Date.now();
    served!.child.kill('SIGTERM');
    const code = await Promise.race([exit(served!.child), sleep(15_000).then(() => 'still running')]);
    const shutdownMs = Date.now() - signalled;
    const answers = await Promise.all(inFlight);
    t.diagnostic(`graceful shutdown during a silent cut: exit ${code} after ${shutdownMs} ms; in flight: ${answers.map((r) => `${r.status} in ${r.ms} ms`).join(', ')}`);
    assert.equal(code, 0, served!.output());
    assert.ok(shutdownMs < 6000, `shutdown took ${shutdownMs} ms`);
    for (const r of answers) assert.equal(r.status, 503);
    assert.match(served!.output(), /"msg":"Signet stopped"/);
  });

  test('past SIGNET_SHUTDOWN_TIMEOUT_MS the process logs it and exits 1', async (t) => {
    // Requests wait up to the default 5 s bound; shutdown may take 1.5 s.
    const { inFlight } = await serveAndSilence({ SIGNET_DATABASE_TIMEOUT_MS: '5000', SIGNET_SHUTDOWN_TIMEOUT_MS: '1500' });
    const signalled = Date.now();
    served!.child.kill('SIGTERM');
    const code = await Promise.race([exit(served!.child), sleep(15_000).then(() => 'still running')]);
    const shutdownMs = Date.now() - signalled;
    const answers = await Promise.all(inFlight);
    t.diagnostic(`bounded shutdown during a silent cut: exit ${code} after ${shutdownMs} ms; in flight: ${answers.map((r) => r.status).join(', ')}`);
    assert.equal(code, 1, served!.output());
    assert.ok(shutdownMs < 1500 + 1000, `shutdown took ${shutdownMs} ms with SIGNET_SHUTDOWN_TIMEOUT_MS=1500`);
    assert.match(served!.output(), /shutdown did not finish within 1500 ms/);
    for (const r of answers) assert.notEqual(r.status, 'hung', 'the connections in flight were closed, not left hanging');
  });
});
