// PostgreSQL gone, with a reset or silently: 503 once the database bound passes (not when the network
// returns), readiness says so, service returns by itself, shutdown is bounded. The test servers get
// short bounds (1 s) and the test waits generously for what they do; how long they took is reported,
// never asserted (tests pass on a loaded machine). PostgreSQL only: reached through a loopback TCP proxy the test cuts or silences.
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
import { until } from './support/until.ts';
import { freePort, serve, type Served } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

/** A loopback TCP proxy to PostgreSQL that can fail the way networks do. */
class Proxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly links = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private silent = false;
  /** The client connections that sent something since the silence began (and were never answered). */
  readonly unanswered = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(port = 0): Promise<void> {
    // allowHalfOpen: a FIN from one side is not answered by the proxy itself; it is forwarded or not.
    this.server = net.createServer({ allowHalfOpen: true }, (client) => {
      this.track(client);
      if (this.silent) {
        this.swallow(client); // accepted, never answered
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

  /** Reads what the client sends and drops it: nothing is forwarded or answered. */
  private swallow(client: net.Socket): void {
    client.on('data', () => this.unanswered.add(client));
    client.resume();
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
    this.unanswered.clear();
    for (const { client, upstream } of this.links) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      upstream.pause();
      this.swallow(client);
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
/**
 * How long a request may go unanswered before the test calls it hung: far beyond the servers' 1 s
 * database bound, so a loaded machine does not make an answer look like a hang.
 */
const PATIENCE_MS = 60_000;

/** A submission signed with the organization's API key; `hung` when no answer came within the test's patience, `dropped` when the connection closed unanswered. */
async function submit(baseUrl: string, org: Credentials, label: string, patienceMs = PATIENCE_MS) {
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

async function readyz(baseUrl: string, patienceMs = PATIENCE_MS) {
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
  after(async () => {
    await proxy.close();
    await server.close();
    await direct.close();
  });

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

  test('a silent cut under steady load: requests answer 503 while the database is still silent, and service comes back by itself after it', async (t) => {
    // Several pooled connections, all about to go silent.
    const warm = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(server.baseUrl, org, `warm ${i}`)));
    assert.deepEqual(warm.map((r) => r.status), Array(6).fill(200));

    proxy.silence();
    // A light steady load (a submission every 200 ms) all through the cut and the recovery.
    const load: Array<Promise<Awaited<ReturnType<typeof submit>> & { at: number; end: number }>> = [];
    const settled = new Set<number>();
    let loading = true;
    const generator = (async () => {
      for (let i = 0; loading; i++) {
        const at = Date.now();
        load.push(submit(server.baseUrl, org, `load ${i}`).then((r) => (settled.add(i), { ...r, at, end: Date.now() })));
        await sleep(200);
      }
    })();

    // The cut lasts until the server has answered requests that could only wait on the silent
    // database: three submissions of the load and three /readyz, one after the other.
    const readyDuring: Array<Awaited<ReturnType<typeof readyz>>> = [];
    await until(
      () => `answers during the silent cut (${settled.size} submissions, ${readyDuring.length} /readyz)`,
      async () => {
        if (readyDuring.length < 3) readyDuring.push(await readyz(server.baseUrl));
        return readyDuring.length >= 3 && settled.size >= 3;
      },
      { timeoutMs: 4 * PATIENCE_MS },
    );
    proxy.resume();
    const resumedAt = Date.now();
    const startedDuringCut = load.slice();

    const ready = await until('/readyz 200 after the network returned', async () => (await readyz(server.baseUrl)).status === 200, { timeoutMs: PATIENCE_MS, everyMs: 100 });
    const readyAfterMs = Date.now() - resumedAt;
    await until('a submission 200 after the network returned', async () => (await submit(server.baseUrl, org, 'recovered')).status === 200, { timeoutMs: PATIENCE_MS, everyMs: 100 });
    const submitAfterMs = Date.now() - resumedAt;
    loading = false;
    await generator;
    const duringCut = await Promise.all(startedDuringCut);
    const all = await Promise.all(load);
    const steady = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(server.baseUrl, org, `steady ${i}`)));

    t.diagnostic(
      `silent cut: ${duringCut.length} submissions started during it answered ` +
        `${duringCut.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; /readyz during it: ${readyDuring.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; ` +
        `after the cut /readyz 200 in ${readyAfterMs} ms, a submission 200 in ${submitAfterMs} ms; ` +
        `load after the cut: ${all.filter((r) => r.at >= resumedAt).map((r) => r.status).join(' ')}`,
    );

    const answeredDuringCut = duringCut.filter((r) => r.end < resumedAt);
    assert.ok(answeredDuringCut.length >= 3, `${answeredDuringCut.length} submissions answered during the cut`);
    for (const r of duringCut) assert.notEqual(r.status, 'hung', `a submission during the silent cut got no answer in ${r.ms} ms`);
    // Answered while the database was silent: it cannot have succeeded.
    for (const r of answeredDuringCut) assert.equal(r.status, 503, JSON.stringify(r.json));
    assert.match(answeredDuringCut[0]!.json.message, /did not answer in time; nothing was stored, retry later/);
    for (const r of readyDuring) assert.equal(r.status, 503);
    assert.equal(ready, true);
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
    // Statements of 30 s: not cut at the 300 ms bound, they would end and resolve.
    await assert.rejects(
      db.transaction((tx) => tx.query('SELECT pg_sleep(30)')),
      (error: unknown) => error instanceof DatabaseUnavailable && /did not answer in time|statement timeout/i.test((error as Error).message),
    );
    await assert.rejects(db.query('SELECT pg_sleep(30)'), DatabaseUnavailable);
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
    const closing = db.close();
    db = undefined; // closed here, not after the test
    // Without the bound, close would wait for ever for the stuck connection.
    const outcome = await Promise.race([closing.then(() => 'closed'), sleep(PATIENCE_MS).then(() => 'still closing')]);
    assert.equal(outcome, 'closed');
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
      // At debug the server logs each request as it arrives: the test waits for the ones it sends.
      { SIGNET_DATA_DIR: dataDir, SIGNET_PORT: String(port), SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_DATABASE_URL: url.toString(), SIGNET_LOG_LEVEL: 'debug', ...env },
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
    const arrived = () => served!.output().split('\n').filter((line) => line.includes('"msg":"incoming request"') && line.includes('/public/v1/submit/')).length;
    const before = arrived();
    const inFlight = Array.from({ length: 4 }, (_, i) => submit(baseUrl, org, `in flight ${i}`));
    // In flight: the server has read all four (a request still unread at the signal is not in flight),
    // and they wait on the silent database, which was sent what it never answers.
    await until('the four requests to arrive and wait on the silent database', () => arrived() >= before + 4 && proxy.unanswered.size > 0, { timeoutMs: PATIENCE_MS });
    return { inFlight };
  }

  function exit(child: Served['child']): Promise<number | null> {
    return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', resolve));
  }

  test('graceful: the requests in flight get 503 at the database bound, the pool closes, exit 0', async (t) => {
    // The shutdown bound far beyond the database's: exit 0 says the shutdown finished without it.
    const { inFlight } = await serveAndSilence({ SIGNET_DATABASE_TIMEOUT_MS: '1000', SIGNET_SHUTDOWN_TIMEOUT_MS: String(PATIENCE_MS) });
    const signalled = Date.now();
    served!.child.kill('SIGTERM');
    const code = await Promise.race([exit(served!.child), sleep(2 * PATIENCE_MS).then(() => 'still running')]);
    const shutdownMs = Date.now() - signalled;
    const answers = await Promise.all(inFlight);
    t.diagnostic(`graceful shutdown during a silent cut: exit ${code} after ${shutdownMs} ms; in flight: ${answers.map((r) => `${r.status} in ${r.ms} ms`).join(', ')}`);
    assert.equal(code, 0, served!.output());
    for (const r of answers) assert.equal(r.status, 503);
    assert.match(served!.output(), /"msg":"Signet stopped"/);
  });

  test('past SIGNET_SHUTDOWN_TIMEOUT_MS the process logs it and exits 1', async (t) => {
    // Requests wait on the database far longer than shutdown may take (1.5 s), so the shutdown bound
    // is what ends them.
    const { inFlight } = await serveAndSilence({ SIGNET_DATABASE_TIMEOUT_MS: String(PATIENCE_MS), SIGNET_SHUTDOWN_TIMEOUT_MS: '1500' });
    const signalled = Date.now();
    served!.child.kill('SIGTERM');
    const code = await Promise.race([exit(served!.child), sleep(PATIENCE_MS).then(() => 'still running')]);
    const shutdownMs = Date.now() - signalled;
    const answers = await Promise.all(inFlight);
    t.diagnostic(`bounded shutdown during a silent cut: exit ${code} after ${shutdownMs} ms; in flight: ${answers.map((r) => r.status).join(', ')}`);
    assert.equal(code, 1, served!.output());
    assert.match(served!.output(), /shutdown did not finish within 1500 ms/);
    for (const r of answers) assert.notEqual(r.status, 'hung', 'the connections in flight were closed, not left hanging');
  });
});
