// What the HTTP layer bounds and how it answers before any route runs: a slow client is cut off
// with a 408, an idle kept-alive connection is closed, and every answer of the HTTP parser (431,
// 400, 408) has the error shape of src/errors.ts (no body for a HEAD), a request id and `Connection: close`.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type TestServer } from './support/server.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection (only ever compared from below). */
  closedAfterMs: number;
}

function parseRaw(text: string): Omit<RawAnswer, 'closedAfterMs'> {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * The client's own patience: far beyond the timeouts the test server is given (1 s, 300 ms), far below
 * what the server would do without them (Fastify keeps an idle connection 72 s, Node a request 300 s).
 * Reaching it means the server did not close the connection; how fast it closed it is not asserted.
 */
const PATIENCE_MS = 45_000;

/** Opens a raw connection, lets `drive` write to it, and resolves when the server closes it. */
function rawExchange(port: number, drive: (socket: net.Socket) => void, localAddress?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) }, () => drive(socket));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', () => {});
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${PATIENCE_MS} ms; received: ${text.slice(0, 200)}`));
    }, PATIENCE_MS);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parseRaw(text), closedAfterMs: Date.now() - started });
    });
  });
}

function assertErrorShape(answer: Omit<RawAnswer, 'closedAfterMs'>, status: number, code: number, message: RegExp) {
  assert.equal(answer.status, status, answer.body);
  const json = JSON.parse(answer.body);
  assert.deepEqual(Object.keys(json).sort(), ['code', 'details', 'message']);
  assert.equal(json.code, code);
  assert.match(json.message, message);
  assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
  assert.equal(answer.headers['connection'], 'close');
  assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
}

const postHead = (contentLength: number) =>
  `POST /public/v1/submit/init_otp_auth HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`;

for (const tdb of testDatabases.slice(0, 1)) {
  describe('HTTP limits', () => {
    let server: TestServer;
    let port: number;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_REQUEST_TIMEOUT_MS: '1000', SIGNET_KEEP_ALIVE_TIMEOUT_MS: '300' });
      port = Number(new URL(server.baseUrl).port);
    });
    after(() => server.close());

    test('slow-body clients get a 408 and are disconnected at the request timeout, while others are served', async () => {
      // From four addresses, each under SIGNET_MAX_CONNECTIONS_PER_ADDRESS (64).
      const slow = Array.from({ length: 200 }, (_, i) =>
        rawExchange(
          port,
          (socket) => {
            socket.write(postHead(100_000));
            // One body byte every 200 ms: alive, but never done.
            const drip = setInterval(() => socket.writable && socket.write('{'), 200);
            socket.on('close', () => clearInterval(drip));
          },
          `127.0.0.${2 + (i % 4)}`,
        ),
      );
      // Meanwhile an ordinary client is answered at once.
      const healthy = await fetch(`${server.baseUrl}/healthz`);
      assert.equal(healthy.status, 200);
      const answers = await Promise.all(slow);
      for (const answer of answers) {
        assertErrorShape(answer, 408, 4, /not received in time \(SIGNET_REQUEST_TIMEOUT_MS\)/);
        // Cut by the server (the client would drip forever), not before the 1 s request timeout; how
        // soon after it depends on the machine's load and is not asserted.
        assert.ok(answer.closedAfterMs >= 900, `closed after ${answer.closedAfterMs} ms, before the request timeout`);
      }
    });

    test('a client that sends part of its headers and stops is cut off too', async () => {
      const answer = await rawExchange(port, (socket) => socket.write('POST /public/v1/submit/init_otp_auth HTTP/1.1\r\nHost: x\r\n'));
      assertErrorShape(answer, 408, 4, /not received in time/);
      assert.ok(answer.closedAfterMs >= 900, `closed after ${answer.closedAfterMs} ms, before the request timeout`);
    });

    test('an idle kept-alive connection is closed after SIGNET_KEEP_ALIVE_TIMEOUT_MS', async () => {
      const answer = await rawExchange(port, (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
      assert.equal(answer.status, 200);
      // Closed by the server, not before the 300 ms keep-alive timeout (Fastify's own would hold it 72 s).
      assert.ok(answer.closedAfterMs >= 250, `closed after ${answer.closedAfterMs} ms, before the keep-alive timeout`);
    });

    test('a 17 KB header gets 431 in the error shape with Connection: close, and the next request works', async () => {
      const answer = await rawExchange(port, (socket) =>
        socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`),
      );
      assertErrorShape(answer, 431, 3, /request headers are larger than the limit/);

      // A keep-alive client with one connection: it must not reuse the closed one (that was a reset).
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const get = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          http.get(`${server.baseUrl}/healthz`, { agent, headers }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode!));
          }).on('error', reject);
        });
      assert.equal(await get({ 'x-big': 'a'.repeat(17_000) }), 431);
      assert.equal(await get({}), 200);
      agent.destroy();
    });

    test('a HEAD with a 17 KB header gets its 431 without a body, which a client would take for a broken next answer', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const request = (method: string, headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          http
            .request(`${server.baseUrl}/healthz`, { method, agent, headers }, (response) => {
              response.resume();
              response.on('end', () => resolve(response.statusCode!));
            })
            .on('error', reject)
            .end();
        });
      assert.equal(await request('HEAD', { 'x-big': 'a'.repeat(17_000) }), 431);
      assert.equal(await request('HEAD', {}), 200);
      agent.destroy();

      const answer = await rawExchange(port, (socket) => socket.write(`HEAD /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`));
      assert.equal(answer.status, 431);
      assert.equal(answer.body, '');
      assert.equal(answer.headers['connection'], 'close');
    });

    test('malformed HTTP gets 400 in the error shape', async () => {
      const answer = await rawExchange(port, (socket) => socket.write('GARBAGE\r\n\r\n'));
      assertErrorShape(answer, 400, 3, /malformed HTTP request/);
    });

    test('a body over 1 MiB gets 413 in the error shape and the connection is closed', async () => {
      const answer = await rawExchange(port, (socket) => socket.write(postHead(2_000_000) + '{"a":'));
      assert.equal(answer.status, 413);
      assert.equal(JSON.parse(answer.body).code, 3);
      assert.match(answer.headers['x-request-id'] ?? '', /.+/);
      assert.equal(answer.headers['connection'], 'close');
    });

    test('a body over 1 MiB, declared or chunked, gets its 413 every time, without a reset, however much of it the client sends', async () => {
      // The client writes its whole body and reads what comes back, as most clients do; a reset
      // (EPIPE or ECONNRESET on its side) can destroy the 413 before it is read.
      const chunked = (size: number) => {
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const parts: Buffer[] = [];
        for (let sent = 0; sent < size; sent += chunk.length) parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
        return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')]);
      };
      const cases = [
        { name: '8 MiB', head: postHead(8 * 1024 * 1024), body: Buffer.alloc(8 * 1024 * 1024, 'a'), times: 50 },
        { name: '1 MiB + 1 byte', head: postHead(1024 * 1024 + 1), body: Buffer.alloc(1024 * 1024 + 1, 'a'), times: 50 },
        {
          name: '8 MiB chunked',
          head: 'POST /public/v1/submit/init_otp_auth HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
          body: chunked(8 * 1024 * 1024),
          times: 20,
        },
      ];
      for (const { name, head, body, times } of cases) {
        const failures: string[] = [];
        for (let i = 0; i < times; i++) {
          const errors: string[] = [];
          const answer = await rawExchange(port, (socket) => {
            socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
            socket.write(head);
            socket.write(body);
          });
          if (answer.status !== 413 || errors.length > 0) failures.push(`${answer.status || 'no answer'} ${errors.join(' ')}`);
          else assert.equal(JSON.parse(answer.body).code, 3);
        }
        assert.deepEqual(failures, [], `${name}: ${times - failures.length} of ${times} read their 413 without a reset`);
      }
    });

    test('a wrong content type is named in the 415', async () => {
      const response = await fetch(`${server.baseUrl}/public/v1/submit/init_otp_auth`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{}',
      });
      assert.equal(response.status, 415);
      assert.match((await response.json()).message, /Content-Type must be application\/json, got "text\/plain"/);
    });
  });
}

for (const tdb of testDatabases.slice(0, 1)) {
  test('the longest request timeout the setting allows (600000 ms) starts a server that serves, the headers bound with it', async () => {
    // Node checks headersTimeout <= requestTimeout as it makes the server, against its own default of
    // 300 s unless the server is given both: above 300000 ms the start used to fail.
    const server = await startTestServer(tdb, { SIGNET_REQUEST_TIMEOUT_MS: '600000' });
    try {
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
      assert.equal(server.server.app.server.requestTimeout, 600_000);
      assert.equal(server.server.app.server.headersTimeout, 600_000);
    } finally {
      await server.close();
    }
  });
}
