// Slow-body clients cannot take the descriptors every other client and the store need: `signet serve`
// under an open-file limit of 1,024 holds at most SIGNET_MAX_CONNECTIONS_PER_ADDRESS connections per
// client address and at most the limit less a reserve in all, closes the others as it accepts them,
// and keeps answering other clients and kept-alive connections meanwhile.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { connectionClient } from '../src/http/clientAddress.ts';
import { connectionBounds } from '../src/http/connectionLimits.ts';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { freePort, serve, type Served } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer } from './support/server.ts';
import { until } from './support/until.ts';

const OPEN_FILES = 1024;

interface Trickler {
  socket: net.Socket;
  closed: boolean;
  /** Bytes the server sent back (a refused connection gets none). */
  received: number;
}

/** A client that sends request headers and then one body byte every 500 ms, never finishing. */
function trickle(port: number, localAddress: string): Trickler {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  const trickler: Trickler = { socket, closed: false, received: 0 };
  socket.on('connect', () => {
    socket.write('POST /public/v1/submit/init_otp_auth HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
    const drip = setInterval(() => socket.writable && socket.write('{'), 500);
    socket.once('close', () => clearInterval(drip));
  });
  socket.on('data', (chunk) => (trickler.received += chunk.length));
  socket.on('error', () => {});
  socket.on('close', () => (trickler.closed = true));
  return trickler;
}

const open = (tricklers: Trickler[]) => tricklers.filter((t) => !t.closed).length;
/** Connected and sending, or closed. */
const settled = (tricklers: Trickler[]) => tricklers.filter((t) => t.closed || t.socket.readyState === 'open').length;

function adminCall(baseUrl: string, agent?: http.Agent): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${baseUrl}/admin/v1/organizations`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, reused: request.reusedSocket }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ name: 'During the attack' }));
  });
}

for (const tdb of testDatabases) {
  describe(`connection limits of signet serve under ulimit -n ${OPEN_FILES} (${tdb.name})`, () => {
    let store: ServerStore;
    let served: Served;
    let baseUrl: string;
    let port: number;
    let maxConnections: number;
    const attackers: Trickler[] = [];

    before(async () => {
      store = await serverStore(tdb, 'signet_connections');
      port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      const env = {
        ...store.env,
        SIGNET_PORT: String(port),
        SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
        // The slow clients stay for the whole test, and so does a kept-alive connection.
        SIGNET_REQUEST_TIMEOUT_MS: '120000',
        SIGNET_KEEP_ALIVE_TIMEOUT_MS: '120000',
      };
      served = await serve(env, baseUrl, 60_000, OPEN_FILES);
      maxConnections = connectionBounds(loadConfig(env), OPEN_FILES).maxConnections!;
    });
    after(async () => {
      for (const t of attackers) t.socket.destroy();
      if (served.child.exitCode === null) await served.stop();
      await store.dispose();
    });

    test('1,100 slow connections from one address: 64 are held, the others closed at once, and other clients are answered', async () => {
      const one = Array.from({ length: 1100 }, () => trickle(port, '127.0.0.2'));
      attackers.push(...one);
      await until(() => `the slow connections to be held or closed (${settled(one)} of 1100)`, () => settled(one) === one.length, { timeoutMs: 60_000 });
      // A connection is accepted, then closed by the server: waited for, however late the closes arrive.
      await until(() => `the server to close all but 64 (${open(one)} open)`, () => open(one) <= 64, { timeoutMs: 60_000 });

      assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);
      assert.equal((await adminCall(baseUrl)).status, 200);
      assert.equal(open(one), 64);
      assert.ok(one.filter((t) => t.closed).every((t) => t.received === 0), 'a refused connection gets no answer');

      // Connection 65 is refused while 64 are open, and accepted once one of them has gone.
      const sixtyFifth = trickle(port, '127.0.0.2');
      await until('connection 65 to be closed', () => sixtyFifth.closed);
      one.find((t) => !t.closed)!.socket.destroy();
      // The server counts the close when it sees it: a new connection until one is held (each one
      // closed meanwhile was refused, the address still full in the server's count).
      let replacement!: Trickler;
      await until('a new connection to be accepted once the address holds fewer than 64', async () => {
        replacement = trickle(port, '127.0.0.2');
        attackers.push(replacement);
        await new Promise((resolve) => setTimeout(resolve, 500));
        return !replacement.closed;
      });
      for (const t of one) t.socket.destroy();
      replacement.socket.destroy();
    });

    test('1,200 slow connections from 30 addresses: the server holds no more than its bound, and a kept-alive client is still served', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      assert.equal((await adminCall(baseUrl, agent)).status, 200);

      const many = Array.from({ length: 1200 }, (_, i) => trickle(port, `127.0.1.${1 + (i % 30)}`));
      attackers.push(...many);
      // The kept-alive connection is one of the server's too.
      await until(() => `the slow connections to be held or closed (${settled(many)} of 1200)`, () => settled(many) === many.length, { timeoutMs: 60_000 });
      await until(() => `the server to close those over its bound (${open(many)} open)`, () => open(many) <= maxConnections - 1, { timeoutMs: 60_000 });

      // The process has descriptors left for its store: the kept-alive client writes an organization.
      const during = await adminCall(baseUrl, agent);
      assert.deepEqual(during, { status: 200, reused: true });
      // The kept-alive connection is one of the server's too.
      assert.ok(open(many) <= maxConnections - 1 && open(many) >= maxConnections - 10, `${open(many)} held, bound ${maxConnections}`);

      for (const t of many) t.socket.destroy();
      agent.destroy();
      await until('a new connection to be served once the slow clients are gone', async () => {
        try {
          return (await fetch(`${baseUrl}/healthz`)).status === 200;
        } catch {
          return false;
        }
      });
      assert.doesNotMatch(served.output(), /EMFILE/);
      assert.match(served.output(), /all its open-file limit \(1024\) allows/);
      const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
      assert.match(metrics, /signet_connections_refused_total\{reason="address"\} [1-9]/);
      assert.match(metrics, /signet_connections_refused_total\{reason="server"\} [1-9]/);
    });
  });
}

test('the bound is the open-file limit less the reserve for the store, delivery and logs', () => {
  const postgres = loadConfig({ SIGNET_DATABASE_URL: 'postgres://db/signet', SIGNET_DATABASE_POOL_SIZE: '20' });
  assert.deepEqual(connectionBounds(postgres, 1024), { openFiles: 1024, reserve: 85, maxConnections: 939, perAddress: 64 });
  const embedded = loadConfig({ SIGNET_MAX_CONNECTIONS_PER_ADDRESS: '0' });
  assert.deepEqual(connectionBounds(embedded, 65536), { openFiles: 65536, reserve: 576, maxConnections: 64960, perAddress: 0 });
  // Too low a limit still leaves a few connections (and the start-up warns); unlimited sets no bound.
  assert.equal(connectionBounds(embedded, 256).maxConnections, 32);
  assert.equal(connectionBounds(embedded, undefined).maxConnections, undefined);
});

test('connections count against an IPv4 address, or an IPv6 /64', () => {
  assert.equal(connectionClient('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(connectionClient('2001:db8:1:2::1'), connectionClient('2001:db8:1:2:ffff:ffff:ffff:ffff'));
  assert.notEqual(connectionClient('2001:db8:1:2::1'), connectionClient('2001:db8:1:3::1'));
});

describe('the per-address cap', () => {
  test('refuses connection N+1 from one address, and does not apply to SIGNET_TRUSTED_PROXIES', async () => {
    const server = await startTestServer(testDatabases[0]!, {
      SIGNET_MAX_CONNECTIONS_PER_ADDRESS: '3',
      SIGNET_TRUSTED_PROXIES: '127.0.0.3',
      SIGNET_REQUEST_TIMEOUT_MS: '60000',
    });
    const port = Number(new URL(server.baseUrl).port);
    const clients: Trickler[] = [];
    try {
      const capped = Array.from({ length: 4 }, () => trickle(port, '127.0.0.2'));
      const proxied = Array.from({ length: 10 }, () => trickle(port, '127.0.0.3'));
      clients.push(...capped, ...proxied);
      await until('every connection to be held or closed', () => settled(clients) === clients.length);
      await until(() => `the server to close the fourth (${open(capped)} open)`, () => open(capped) <= 3);
      assert.equal(open(capped), 3);
      assert.equal(open(proxied), 10);
    } finally {
      for (const client of clients) client.socket.destroy();
      await server.close();
    }
  });
});
