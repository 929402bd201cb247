// When PostgreSQL goes away, clients get 503 UNAVAILABLE (retry later), readiness says so, and
// service comes back by itself once the database does. Runs on PostgreSQL only: the database is
// reached through a loopback TCP proxy that the test cuts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { openDatabase } from '../src/store/db.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

class Proxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(port = 0): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Refuses new connections and resets the open ones, as a crashed database host would. */
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

const postgres = testDatabases.find((d) => d.name === 'postgres');

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
    const db = await openDatabase({ url: viaProxy.toString(), schema: direct.schema! });
    server = await startTestServer({ name: 'postgres-proxy', open: async () => db });
    org = await server.createOrganization();
  });
  after(async () => {
    await server.close();
    await proxy.cut();
    await direct.close();
  });

  test('503 while the database is gone, 200 again once it is back', async () => {
    const submit = async (label: string) => {
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
      const response = await fetch(`${server.baseUrl}/public/v1/submit/create_smart_contract_interface`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body,
      });
      return { status: response.status, json: (await response.json()) as any };
    };

    assert.equal((await submit('before')).status, 200);
    const port = proxy.port;
    await proxy.cut();

    const during = await submit('during');
    assert.equal(during.status, 503, JSON.stringify(during.json));
    assert.equal(during.json.code, 14);
    assert.match(during.json.message, /nothing was stored, retry later/);
    assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 503);
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, 'the process itself is fine');

    await proxy.open(port);
    assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
    assert.equal((await submit('after')).status, 200);
  });
});
