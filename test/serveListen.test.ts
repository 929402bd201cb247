// Where `signet serve` listens: --host and --port stand in for SIGNET_HOST and SIGNET_PORT, and a
// port it cannot have is one line of Signet's own naming the port and the setting that chooses it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, serve, signet } from './support/processes.ts';

describe('signet serve --host/--port', () => {
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-listen-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('the flags win over SIGNET_HOST and SIGNET_PORT, and what follows from the address follows them', async () => {
    const [port, other] = [await freePort(), await freePort()];
    const baseUrl = `http://127.0.0.1:${port}`;
    const served = await serve({ SIGNET_DATA_DIR: dataDir, SIGNET_HOST: '0.0.0.0', SIGNET_PORT: String(other) }, baseUrl, 60_000, undefined, ['--host', '127.0.0.1', '--port', String(port)]);
    try {
      assert.equal((await fetch(`${baseUrl}/readyz`)).status, 200);
      await assert.rejects(fetch(`http://127.0.0.1:${other}/healthz`), 'nothing listens on SIGNET_PORT');
      const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8'));
      assert.equal(credentials.baseUrl, baseUrl);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test('a port another process holds: one line naming the port and how to choose another, exit 1', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      for (const [env, args] of [
        [{ SIGNET_PORT: String(port) }, []],
        [{}, ['--port', String(port)]],
      ] as const) {
        const result = await signet(['serve', ...args], { SIGNET_DATA_DIR: dataDir, ...env });
        assert.equal(result.code, 1, result.stderr);
        assert.equal(
          result.stderr,
          `signet: cannot listen on 127.0.0.1 port ${port}: another process listens there; stop it, or choose another port with SIGNET_PORT (signet serve --port N)\n`,
        );
      }
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  test('a port out of range is a wrong command line (exit 2), named as the flag', async () => {
    const result = await signet(['serve', '--port', '70000'], { SIGNET_DATA_DIR: dataDir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^signet: --port must be a whole number from 0 to 65535, got "70000"\n\nUsage: signet serve \[--host ADDRESS\] \[--port N\]/);
  });
});
