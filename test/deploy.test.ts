// deploy/ as docs/operations.md shows it: the systemd unit, its environment file and the nginx
// server block are in the page verbatim; systemd accepts the unit; and nginx with the server block
// (on plain HTTP and a free port instead of TLS) in front of a real Signet passes stamped requests
// through, sets X-Request-Id, keeps /admin and /metrics private, and gives Signet each client's own
// address in X-Forwarded-For (SIGNET_TRUSTED_PROXIES).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { ALL_SETTINGS } from '../src/config.ts';
import { testDatabases } from './support/databases.ts';
import { stampHeaders } from './support/http.ts';
import { strangerKey } from './support/keys.ts';
import { freePort, ROOT, run, terminate } from './support/processes.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { until } from './support/until.ts';

const DEPLOY = path.join(ROOT, 'deploy');
const read = (file: string) => fs.readFileSync(path.join(DEPLOY, file), 'utf8');
const FILES: Array<[string, string]> = [
  ['signet.service', 'ini'],
  ['signet.env', 'ini'],
  ['nginx.conf', 'nginx'],
];

/** The first of these names that is an executable file on PATH (or in /usr/sbin, /sbin), if any. */
function executable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin'];
  return dirs.map((dir) => path.join(dir, name)).find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

test('docs/operations.md shows every file of deploy/ as it is', () => {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  assert.deepEqual(fs.readdirSync(DEPLOY).sort(), FILES.map(([file]) => file).sort());
  for (const [file, language] of FILES) {
    assert.ok(page.includes(`\`deploy/${file}\``), `the page names deploy/${file}`);
    assert.ok(page.includes('```' + language + '\n' + read(file) + '```'), `docs/operations.md's copy of deploy/${file} differs from the file; paste the file in again`);
  }
});

test('the environment file and the unit set only settings Signet declares', () => {
  const declared = new Set(ALL_SETTINGS.map((setting) => setting.env));
  const named = [
    ...[...read('signet.env').matchAll(/^(SIGNET_\w+)=/gm)].map((m) => m[1]!),
    ...[...read('signet.service').matchAll(/^Environment=(SIGNET_\w+)=/gm)].map((m) => m[1]!),
  ];
  assert.ok(named.includes('SIGNET_DATABASE_URL') && named.includes('SIGNET_TRUSTED_PROXIES') && named.includes('SIGNET_DATA_DIR'), String(named));
  assert.deepEqual(named.filter((name) => !declared.has(name)), []);
});

const systemdAnalyze = executable('systemd-analyze');
test('systemd-analyze verify accepts the unit without a warning', { skip: !systemdAnalyze && 'systemd-analyze is not installed (it comes with systemd)' }, async () => {
  const unit = read('signet.service');
  const execStart = /^ExecStart=\/usr\/local\/bin\/signet serve$/m;
  assert.match(unit, execStart);
  // verify insists that ExecStart's program exists: the copy runs this checkout's bin/signet.js with
  // this node instead of the installed /usr/local/bin/signet, which this machine need not have.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-unit-'));
  try {
    const copy = path.join(dir, 'signet.service');
    fs.writeFileSync(copy, unit.replace(execStart, `ExecStart=${process.execPath} ${path.join(ROOT, 'bin', 'signet.js')} serve`));
    const result = await run(systemdAnalyze!, ['verify', copy], {}, 60_000, dir);
    const about = (result.stdout + result.stderr).split('\n').filter((line) => line.includes('signet'));
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual(about, [], 'no warning about the unit');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request from `localAddress` (any 127.x.y.z is this host's loopback), on a connection of its own. */
function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const nginx = executable('nginx');
describe('nginx with deploy/nginx.conf in front of Signet', { skip: !nginx && 'nginx is not installed (apt-get install nginx-light; .ci/run installs it)' }, () => {
  const tdb = testDatabases[0]!;
  let server: TestServer;
  let org: Credentials;
  let dir: string;
  let proxy: ChildProcess;
  let proxyOutput = '';
  let proxyUrl: string;

  before(async () => {
    server = await startTestServer(tdb, { SIGNET_TRUSTED_PROXIES: '127.0.0.1,::1', SIGNET_AUTH_FAILURE_LIMIT: '3/60' });
    org = await server.createOrganization('Behind nginx');
    const port = await freePort();
    proxyUrl = `http://127.0.0.1:${port}`;

    // The server block as shipped, but on plain HTTP at a free loopback port (no certificate here),
    // without the redirect to HTTPS, and in front of this test's server.
    let block = read('nginx.conf');
    const edits: Array<[RegExp, string]> = [
      [/\nserver \{[^{}]*return 301[^{}]*\}\n/, '\n'],
      [/^ {4}listen 443 ssl;$/m, `    listen 127.0.0.1:${port};`],
      [/^ {4}listen \[::\]:443 ssl;\n/m, ''],
      [/^ {4}ssl_certificate .*\n/m, ''],
      [/^ {4}ssl_certificate_key .*\n/m, ''],
      [/^ {4}ssl_protocols .*\n/m, ''],
      [/server 127\.0\.0\.1:8080;/, `server ${new URL(server.baseUrl).host};`],
    ];
    for (const [pattern, replacement] of edits) {
      assert.match(block, pattern, `deploy/nginx.conf changed: adapt this test's edit ${pattern}`);
      block = block.replace(pattern, replacement);
    }
    // A port this test's servers were given may hold the digits 443 (127.0.0.1:44393): only 443 itself counts.
    assert.ok(!/ssl|\b443\b|:80\b/.test(block), block);

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-nginx-'));
    fs.chmodSync(dir, 0o755); // nginx's workers run as nobody when the test runs as root
    fs.writeFileSync(path.join(dir, 'signet.conf'), block);
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${path.join(dir, kind)};`).join(' ');
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      `daemon off;\nworker_processes 1;\npid ${path.join(dir, 'nginx.pid')};\nerror_log stderr warn;\nevents {}\n` +
        `http {\n  access_log off;\n  ${temp}\n  include ${path.join(dir, 'signet.conf')};\n}\n`,
    );
    proxy = spawn(nginx!, ['-e', 'stderr', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    proxy.stdout!.on('data', (d) => (proxyOutput += d));
    proxy.stderr!.on('data', (d) => (proxyOutput += d));
    await until(
      () => `nginx to pass /healthz on:\n${proxyOutput}`,
      async () => {
        if (proxy.exitCode !== null) assert.fail(`nginx exited ${proxy.exitCode}:\n${proxyOutput}`);
        return (await request(`${proxyUrl}/healthz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 20_000, everyMs: 50 },
    );
  });
  after(async () => {
    if (proxy) await terminate(proxy);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  test('a stamped query and an activity go through, signed over the bytes nginx passes on', async () => {
    const proxied = new TurnkeyClient({ baseUrl: proxyUrl }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));
    assert.equal((await proxied.getWhoami({ organizationId: org.organizationId })).organizationId, org.organizationId);
    const { activity } = (await proxied.createPolicy({
      type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
      timestampMs: String(Date.now()),
      organizationId: org.organizationId,
      parameters: { policyName: 'Through nginx', effect: 'EFFECT_ALLOW', condition: "activity.resource == 'SMART_CONTRACT_INTERFACE'", consensus: '', notes: '' },
    })) as any;
    assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
  });

  test("nginx sets X-Request-Id, which Signet keeps and answers with", async () => {
    const answer = await request(`${proxyUrl}/healthz`, { headers: { 'x-request-id': 'chosen-by-the-client' } });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers['x-request-id']), /^[0-9a-f]{32}$/);
  });

  test('each client behind nginx is judged on its own address, which a forged X-Forwarded-For does not change', async () => {
    const body = JSON.stringify({ organizationId: org.organizationId, paginationOptions: { limit: '1' } });
    const from = async (localAddress: string, extra: Record<string, string> = {}) =>
      (await request(`${proxyUrl}/public/v1/query/list_activities`, { method: 'POST', headers: { ...(await stampHeaders(strangerKey(), body)), ...extra }, body, localAddress })).status;
    // SIGNET_AUTH_FAILURE_LIMIT=3/60: the fourth failure of one address is throttled.
    assert.deepEqual([await from('127.0.0.5'), await from('127.0.0.5'), await from('127.0.0.5')], [401, 401, 401]);
    assert.equal(await from('127.0.0.5'), 429);
    // Another client through the same proxy has its own budget: Signet did not see nginx's address.
    assert.equal(await from('127.0.0.6'), 401);
    // nginx appends the address it sees; Signet takes the rightmost one its proxies did not add.
    assert.equal(await from('127.0.0.5', { 'x-forwarded-for': '127.0.0.7' }), 429);
  });

  test('/admin/v1 and /metrics are not served through the proxy', async () => {
    for (const route of ['/admin/v1/organizations', '/metrics']) {
      const answer = await request(`${proxyUrl}${route}`, { headers: { authorization: 'Bearer anything' } });
      assert.equal(answer.status, 404, route);
      assert.match(answer.text, /nginx/, `${route}: nginx's own page, Signet was not asked`);
    }
    assert.equal((await request(`${server.baseUrl}/metrics`)).status, 200, 'on the host itself, they are');
  });

  test("a body over Signet's 1 MiB reaches Signet, which refuses it in its own error shape", async () => {
    const answer = await request(`${proxyUrl}/public/v1/submit/create_policy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(1_500_000) }),
    });
    assert.equal(answer.status, 413);
    assert.match(JSON.parse(answer.text).message, /larger than the limit of 1048576 bytes/);
  });
});
