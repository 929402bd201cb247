// Logo fetching at delivery: served from loopback (allowed only by the test settings), resized to
// fit 340×124 without enlarging, and every refusal (an address that is not public unicast, http,
// not a PNG, too large, redirect, too slow) a LogoError with its reason.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { fetchLogo, LogoError, type LogoOptions } from '../src/delivery/email/logo.ts';
import { isPublicUnicast } from '../src/wire/publicAddress.ts';

const open = { allowHttp: true, allowPrivate: true };

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 20, g: 120, b: 200, alpha: 1 } } }).png().toBuffer();
}

describe('logo fetching', () => {
  let server: http.Server;
  let base: string;
  const routes = new Map<string, (res: http.ServerResponse) => void>();

  before(async () => {
    const wide = await png(1000, 200);
    const small = await png(100, 50);
    const tall = await png(200, 400);
    const send = (body: Buffer, type = 'image/png') => (res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': type, 'content-length': body.length });
      res.end(body);
    };
    routes.set('/wide.png', send(wide));
    routes.set('/small.png', send(small));
    routes.set('/tall.png', send(tall));
    routes.set('/photo.jpg', send(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0]), 'image/jpeg'));
    routes.set('/redirect', (res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end());
    routes.set('/missing', (res) => res.writeHead(404).end());
    routes.set('/slow', () => {});
    server = http.createServer((req, res) => (routes.get(req.url ?? '') ?? ((r) => r.writeHead(404).end()))(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('a wide PNG is resized to fit the box, keeping its aspect', async () => {
    const logo = await fetchLogo(`${base}/wide.png`, open);
    assert.deepEqual([logo.width, logo.height], [340, 68]);
    const meta = await sharp(logo.png).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 340, 68]);
  });

  test('a tall PNG fits the height; a small one is never enlarged', async () => {
    const tall = await fetchLogo(`${base}/tall.png`, open);
    assert.deepEqual([tall.width, tall.height], [62, 124]);
    const small = await fetchLogo(`${base}/small.png`, open);
    assert.deepEqual([small.width, small.height], [100, 50]);
  });

  test('each refusal says why', async () => {
    const refused = async (url: string, options: LogoOptions, pattern: RegExp) =>
      assert.rejects(fetchLogo(url, options), (e: unknown) => e instanceof LogoError && pattern.test(e.message));
    await refused(`${base}/wide.png`, { allowHttp: true, allowPrivate: false }, /not public unicast/);
    await refused(`http://localhost:1/wide.png`, { allowHttp: true, allowPrivate: false }, /not public unicast/);
    await refused(`${base}/wide.png`, { allowHttp: false, allowPrivate: true }, /http: URLs are not fetched/);
    await refused(`${base}/photo.jpg`, open, /not a PNG/);
    await refused(`${base}/wide.png`, { ...open, maxBytes: 100 }, /larger than 100 bytes/);
    await refused(`${base}/redirect`, open, /redirects are not followed/);
    await refused(`${base}/missing`, open, /HTTP 404/);
    await refused(`${base}/slow`, { ...open, timeoutMs: 200 }, /within 200 ms/);
    await refused('ftp://example.com/logo.png', open, /ftp: URLs are not fetched/);
  });

  test('only public unicast addresses are allowed, whatever form carries a local one', () => {
    const refused = [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '192.0.2.1', '198.51.100.1', '203.0.113.1', '224.0.0.1', '255.255.255.255', '240.0.0.1',
      '::1', '::', 'fc00::1', 'fd00::1', 'fe80::1', 'ff02::1', '2001:db8::1',
      '::127.0.0.1', '::7f00:1', // IPv4-compatible (deprecated)
      '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', // IPv4-mapped: judged as the IPv4 address
      '2002:7f00:1::', '2002:a00:1::', // 6to4 of 127.0.0.1 and 10.0.0.1
      '2001::1', // Teredo
      '64:ff9b::7f00:1', '64:ff9b:1::1', // NAT64
      'not an address', '0x7f.1', '127.1',
    ];
    for (const address of refused) assert.equal(isPublicUnicast(address), false, address);
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      assert.equal(isPublicUnicast(address), true, address);
    }
  });

  test('a bracketed IPv6 host that carries a loopback address is refused before any connection', async () => {
    let connections = 0;
    const counter = http.createServer((_req, res) => res.writeHead(200).end());
    counter.on('connection', () => connections++);
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    const port = (counter.address() as AddressInfo).port;
    try {
      // SIGNET's own setting (private addresses refused), with http allowed so the loopback server can stand in.
      const signet = { allowHttp: true, allowPrivate: false, timeoutMs: 500 };
      for (const host of ['[::127.0.0.1]', '[2002:7f00:1::]', '[::ffff:127.0.0.1]']) {
        await assert.rejects(fetchLogo(`http://${host}:${port}/logo.png`, signet), (e: unknown) => {
          assert.ok(e instanceof LogoError, String(e));
          assert.match(e.message, /resolves to an address that is not public unicast/, host);
          return true;
        });
      }
      assert.equal(connections, 0);
    } finally {
      counter.closeAllConnections();
      counter.close();
    }
  });
});
