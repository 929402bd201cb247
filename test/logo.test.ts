// Logo fetching at delivery: served from loopback (allowed only by the test settings), resized to
// fit 340×124 without enlarging, and every refusal (private address, http, not a PNG, too large,
// redirect, too slow) a LogoError with its reason.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { fetchLogo, isPrivateAddress, LogoError, type LogoOptions } from '../src/delivery/logo.ts';

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
    await refused(`${base}/wide.png`, { allowHttp: true, allowPrivate: false }, /private, loopback or link-local/);
    await refused(`http://localhost:1/wide.png`, { allowHttp: true, allowPrivate: false }, /private, loopback or link-local/);
    await refused(`${base}/wide.png`, { allowHttp: false, allowPrivate: true }, /http: URLs are not fetched/);
    await refused(`${base}/photo.jpg`, open, /not a PNG/);
    await refused(`${base}/wide.png`, { ...open, maxBytes: 100 }, /larger than 100 bytes/);
    await refused(`${base}/redirect`, open, /redirects are not followed/);
    await refused(`${base}/missing`, open, /HTTP 404/);
    await refused(`${base}/slow`, { ...open, timeoutMs: 200 }, /within 200 ms/);
    await refused('ftp://example.com/logo.png', open, /ftp: URLs are not fetched/);
  });

  test('private, loopback, link-local and mapped addresses are recognised', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1']) {
      assert.equal(isPrivateAddress(a), true, a);
    }
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPrivateAddress(a), false, a);
  });
});
