// Makes test/fixtures/release-0.1.0.sql and release-0.1.0.json: a store written by release 0.1.0
// (commit 1208a6a), which test/upgrade.test.ts opens with the code of today.
//
//   node --import tsx scripts/make-upgrade-fixture.ts [postgres://postgres@127.0.0.1:5432/postgres]
//
// It extracts the release into a temporary folder (git archive, this checkout's node_modules linked,
// built), creates a fresh PostgreSQL database on the server of the URL given (the database of the URL
// is only used to create and drop it), starts the release's `signet serve` on it and drives it as a
// client does, with requests stamped by @turnkey/api-key-stamper: two organizations made through the
// admin API, a second user with an API key, policies, smart contract interfaces, OTPs, an activity
// that waited for an approval, a sub-organization and an activity of its root user. Then it stops
// the server and saves the database with pg_dump as plain SQL, one INSERT per row (--inserts: PGlite
// has no COPY FROM stdin), without owners, privileges or the lz4 column compression of migration 011
// (PGlite has no lz4; the rows are the same either way); the test drops the lines only psql
// understands (its `\` meta-commands, such as \restrict) before executing it. The .json beside it
// holds what the test checks against: the keys (test keys, made for this fixture only), the
// deployment's OTP secret, the release's migrations, and every activity's id, type, status and
// fingerprint as release 0.1.0 answered them. Run it again only to make the fixture anew from the
// release (never from today's code); a later release gets a fixture of its own beside this one.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateP256KeyPair } from '@turnkey/crypto';

const RELEASE = '1208a6a';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures');
const serverUrl = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_TOKEN = 'fixture-admin-token-0123456789-abcdefghij';
const OTP_SECRET = 'fixture-otp-secret-of-release-0.1.0-not-a-real-one';
const ABI = JSON.stringify([{ type: 'function', name: 'transfer', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ type: 'bool' }], stateMutability: 'nonpayable' }]);

interface Keys {
  apiPublicKey: string;
  apiPrivateKey: string;
}

function newKeys(): Keys {
  const pair = generateP256KeyPair();
  return { apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey };
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const release = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-0.1.0-'));
const database = `signet_fixture_${randomBytes(4).toString('hex')}`;
const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${database}` }).toString();
let child: ReturnType<typeof spawn> | undefined;
let created = false;
try {
  execFileSync('sh', ['-c', `git -C "$0" archive --format=tar ${RELEASE} | tar -x -C "$1"`, ROOT, release]);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(release, 'node_modules'));
  execFileSync(process.execPath, [path.join(release, 'scripts', 'build.js')], { cwd: release, stdio: 'inherit' });

  await sql(serverUrl, `CREATE DATABASE ${database}`);
  created = true;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = path.join(release, 'data');
  let output = '';
  child = spawn(process.execPath, [path.join(release, 'bin', 'signet.js'), 'serve'], {
    cwd: release,
    env: { ...process.env, SIGNET_DATABASE_URL: databaseUrl, SIGNET_HOST: '127.0.0.1', SIGNET_PORT: String(port), SIGNET_DATA_DIR: dataDir, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_OTP_SECRET: OTP_SECRET, SIGNET_SMTP_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null || tries > 300) throw new Error(`release 0.1.0 did not start:\n${output}`);
    if (await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }

  async function admin<T = any>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(`${baseUrl}/admin/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`admin ${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json as T;
  }

  async function stamped<T = any>(keys: Keys, route: string, body: object): Promise<T> {
    const text = JSON.stringify(body);
    const stamp = await new ApiKeyStamper(keys).stamp(text);
    const response = await fetch(`${baseUrl}/public/v1/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue }, body: text });
    const json = await response.json();
    if (!response.ok) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
    return json as T;
  }

  const activities: Array<{ organizationId: string; id: string; type: string; status: string; fingerprint: string }> = [];
  async function submit(keys: Keys, organizationId: string, route: string, type: string, parameters: object): Promise<any> {
    const { activity } = await stamped(keys, `submit/${route}`, { type, timestampMs: String(Date.now()), organizationId, parameters });
    activities.push({ organizationId, id: activity.id, type: activity.type, status: activity.status, fingerprint: activity.fingerprint });
    return activity;
  }

  // Two organizations, each with its root user and API key (its root quorum, threshold 1).
  const acme = await admin('POST', '/organizations', { name: 'Acme' });
  const globex = await admin('POST', '/organizations', { name: 'Globex' });
  // A second user of Acme with an API key of its own, not in the root quorum.
  const bob = await admin('POST', `/organizations/${acme.organizationId}/users`, { userName: 'bob', email: 'Bob@Example.com', phoneNumber: '+14155550123' });
  const bobKeys = newKeys();
  const bobKey = await admin('POST', `/organizations/${acme.organizationId}/api-keys`, { userId: bob.userId, name: 'bob laptop', publicKey: bobKeys.apiPublicKey });

  const policy = await submit(acme, acme.organizationId, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
    policyName: 'interfaces need two approvers',
    effect: 'EFFECT_ALLOW',
    condition: "activity.type == 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE'",
    consensus: 'approvers.count() >= 2',
    notes: 'made by release 0.1.0',
  });
  const contract = await submit(acme, acme.organizationId, 'create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
    smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    smartContractInterface: ABI,
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    label: 'USDT',
  });
  await submit(acme, acme.organizationId, 'init_otp_auth', 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', { otpType: 'OTP_TYPE_EMAIL', contact: 'alice@example.com', appName: 'Acme' });
  // Bob is not in the root quorum: his activity waits for a second approver, the root user.
  const waiting = await submit(bobKeys, acme.organizationId, 'create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
    smartContractAddress: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
    smartContractInterface: ABI,
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    label: 'DAI',
  });
  if (waiting.status !== 'ACTIVITY_STATUS_CONSENSUS_NEEDED') throw new Error(`bob's activity is ${waiting.status}, not waiting`);
  // approve_activity answers the activity it approved (now completed), not an activity of its own.
  await stamped(acme, 'submit/approve_activity', { type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY', timestampMs: String(Date.now()), organizationId: acme.organizationId, parameters: { fingerprint: waiting.fingerprint } });
  const subKeys = newKeys();
  const sub = await submit(acme, acme.organizationId, 'create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
    subOrganizationName: 'Acme customer 1',
    rootUsers: [{ userName: 'carol', userEmail: 'carol@example.com', apiKeys: [{ apiKeyName: 'carol key', publicKey: subKeys.apiPublicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [] }],
    rootQuorumThreshold: 1,
  });
  const { subOrganizationId, rootUserIds } = sub.result.createSubOrganizationResultV8;
  await submit(subKeys, subOrganizationId, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', { policyName: 'deny deletes', effect: 'EFFECT_DENY', condition: "activity.type == 'ACTIVITY_TYPE_DELETE_USERS'", notes: '' });
  await submit(globex, globex.organizationId, 'init_otp', 'ACTIVITY_TYPE_INIT_OTP_V3', { otpType: 'OTP_TYPE_EMAIL', contact: 'dave@globex.example', appName: 'Globex' });
  await submit(globex, globex.organizationId, 'create_smart_contract_interface', 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', {
    smartContractAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    smartContractInterface: ABI,
    type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
    label: 'USDC',
  });
  await submit(globex, globex.organizationId, 'delete_smart_contract_interface', 'ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE', {
    smartContractInterfaceId: (await stamped(globex, 'query/list_smart_contract_interfaces', { organizationId: globex.organizationId })).smartContractInterfaces[0].smartContractInterfaceId,
  });
  // The release's answers, for the test to compare with after the upgrade.
  const listed = await stamped(acme, 'query/list_activities', { organizationId: acme.organizationId, paginationOptions: { limit: '100' } });
  for (const activity of activities) {
    const { activity: read } = await stamped(activity.organizationId === subOrganizationId ? subKeys : activity.organizationId === globex.organizationId ? globex : acme, 'query/get_activity', { organizationId: activity.organizationId, activityId: activity.id });
    activity.status = read.status;
  }

  child.kill('SIGTERM');
  await new Promise((resolve) => child!.once('exit', resolve));
  child = undefined;

  const dump = execFileSync('pg_dump', ['--inserts', '--no-owner', '--no-privileges', '--no-comments', '--no-toast-compression', '--dbname', databaseUrl], { maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
  fs.mkdirSync(FIXTURES, { recursive: true });
  fs.writeFileSync(path.join(FIXTURES, 'release-0.1.0.sql'), dump);
  const expected = {
    release: '0.1.0',
    commit: RELEASE,
    migrations: fs.readdirSync(path.join(release, 'src', 'store', 'migrations')).filter((f) => f.endsWith('.sql')).sort(),
    otpSecret: OTP_SECRET,
    acme: { ...acme, name: 'Acme' },
    globex: { ...globex, name: 'Globex' },
    bob: { userId: bob.userId, apiKeyId: bobKey.apiKeyId, ...bobKeys },
    subOrganization: { organizationId: subOrganizationId, userId: rootUserIds[0], ...subKeys },
    policyId: policy.result.createPolicyResult.policyId,
    smartContractInterfaceId: contract.result.createSmartContractInterfaceResult.smartContractInterfaceId,
    acmeActivityIds: listed.activities.map((a: { id: string }) => a.id),
    activities,
  };
  fs.writeFileSync(path.join(FIXTURES, 'release-0.1.0.json'), `${JSON.stringify(expected, null, 2)}\n`);
  console.log(`wrote ${path.join(FIXTURES, 'release-0.1.0.sql')} (${dump.length} bytes) and release-0.1.0.json: ${activities.length} activities`);
} finally {
  if (child) child.kill('SIGKILL');
  if (created) await sql(serverUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  fs.rmSync(release, { recursive: true, force: true });
}
