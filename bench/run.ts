// The benchmark (npm run bench): `signet serve` as its own process, loaded by wrk (another process)
// replaying requests stamped beforehand, in rounds interleaved with a floor (bench/floor.ts), per
// scenario; prints activities/s, p50, p99, CPU ms per activity of Signet and of its PostgreSQL
// backends, statements per activity, peak RSS and the ratio to the floor. Signet is a black box:
// only its HTTP API, its process (/proc) and what it sends to PostgreSQL are looked at. With --profile,
// Signet and the floor are profiled (node --cpu-prof) and their time is told by bucket (bench/profileBuckets.ts).
//   npm run bench [-- --seconds 3 --rounds 3 --only create-16,abi-1 --json results.json --profile DIR --baseline DIR]
// Loopback only. Needs wrk (apt-get install -y wrk) and PostgreSQL on this machine (BENCH_DATABASE_URL).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createPrivateKey, createSign, randomBytes, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { encodeFunctionData, serializeTransaction } from 'viem';
import { largeAbi } from '../test/support/largeAbi.ts';
import { freePort, ROOT, SIGNET_BIN } from '../test/support/processes.ts';
import { BackendCpu, cpuMs, hostCpu, memoryMiB } from './processStats.ts';
import { BUCKET_MEANINGS, BUCKETS, bucketTimes, formatBucketTable, formatTopFunctions, readProfile, type BucketTimes, type Window } from './profileBuckets.ts';
import { StatementCounter } from './statementCounter.ts';

// ---------------------------------------------------------------------------------------------
// Options

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '3' },
    rounds: { type: 'string', default: process.env.BENCH_ROUNDS ?? '3' },
    warmup: { type: 'string', default: process.env.BENCH_WARMUP_SECONDS ?? '3' },
    idle: { type: 'string', default: process.env.BENCH_IDLE_SECONDS ?? '3' },
    'statement-requests': { type: 'string', default: process.env.BENCH_STATEMENT_REQUESTS ?? '200' },
    threads: { type: 'string', default: process.env.BENCH_WRK_THREADS ?? '1' },
    only: { type: 'string', default: process.env.BENCH_ONLY ?? '' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    json: { type: 'string', default: process.env.BENCH_JSON ?? '' },
    /**
     * A folder: every `signet serve` of the throughput rounds, and its floor, writes a V8 CPU profile
     * there (node --cpu-prof; <scenario>-<signet|floor>.cpuprofile, the rounds' windows beside it), and
     * the run prints where each one's time went, by bucket, per activity.
     */
    profile: { type: 'string', default: process.env.BENCH_PROFILE ?? '' },
    /**
     * Variables added to every `signet serve`'s environment, `NAME=value` separated by spaces (e.g.
     * `SIGNET_DATABASE_POOL_SIZE=20 NODE_OPTIONS=--max-semi-space-size=64`): how to compare two
     * settings, run by run. The bench's own settings (port, database, keys…) win.
     */
    'signet-env': { type: 'string', default: process.env.BENCH_SIGNET_ENV ?? '' },
    /**
     * Another build of Signet (a folder with its bin/signet.js and built dist/, e.g. an earlier commit
     * checked out and built there): measured in the same rounds as this one, interleaved with it and
     * the floor, on the same database — a before and after within one run, which a busy machine's
     * drift between runs cannot blur.
     */
    baseline: { type: 'string', default: process.env.BENCH_BASELINE ?? '' },
  },
});

function bounded(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

/** --signet-env parsed; a malformed pair stops the run rather than measuring something else than asked. */
function signetEnvironment(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of text.split(/\s+/).filter(Boolean)) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
    if (!match) fail(`--signet-env takes NAME=value pairs separated by spaces, got ${JSON.stringify(pair)}`);
    env[match[1]!] = match[2]!;
  }
  return env;
}

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const SECONDS = bounded('seconds', args.seconds, 1, 60);
const ROUNDS = bounded('rounds', args.rounds, 1, 10);
const WARMUP_SECONDS = bounded('warmup', args.warmup, 0, 30);
const IDLE_SECONDS = bounded('idle', args.idle, 1, 60);
const STATEMENT_REQUESTS = bounded('statement-requests', args['statement-requests'], 10, 5000);
const WRK_THREADS = bounded('threads', args.threads, 1, 16);
const SIGNET_ENV = signetEnvironment(args['signet-env']);
const BASELINE_BIN = args.baseline ? path.join(path.resolve(args.baseline), 'bin', 'signet.js') : undefined;
if (BASELINE_BIN && !fs.existsSync(BASELINE_BIN)) fail(`--baseline names no Signet: ${BASELINE_BIN} does not exist`);
const LUA_SCRIPT = path.join(ROOT, 'bench', 'replay.lua');

type Kind = 'contract' | 'otp' | 'abi' | 'sign' | 'token';
/** The kinds whose requests sign a transaction (sign_transaction): the floor of their scenarios signs too. */
const signs = (kind: Kind) => kind === 'sign' || kind === 'token';

interface Scenario {
  id: string;
  title: string;
  kind: Kind;
  connections: number;
  store: 'postgres' | 'embedded';
  /** The same few bodies again and again: every answer is a stored activity, none is new. */
  resubmit?: boolean;
  /** Rounds of the floor interleaved with Signet's, for the ratio. */
  floor: boolean;
  /**
   * Who stamps the requests: the organization's creator (root quorum, the default), or a second user
   * that only a policy allows, among 20 (see createPolicyUser).
   */
  signer?: 'root' | 'policy';
}

const SCENARIOS: Scenario[] = [
  { id: 'create-16', title: 'create_smart_contract_interface', kind: 'contract', connections: 16, store: 'postgres', floor: true },
  { id: 'policy-16', title: 'create_smart_contract_interface, non-root user allowed by 1 of 20 policies', kind: 'contract', connections: 16, store: 'postgres', signer: 'policy', floor: true },
  { id: 'create-64', title: 'create_smart_contract_interface', kind: 'contract', connections: 64, store: 'postgres', floor: true },
  { id: 'otp-16', title: 'init_otp_auth, worker on', kind: 'otp', connections: 16, store: 'postgres', floor: false },
  { id: 'resubmit-16', title: 'resubmission (16 bodies again)', kind: 'contract', connections: 16, store: 'postgres', resubmit: true, floor: false },
  { id: 'abi-1', title: '400 KiB ABI', kind: 'abi', connections: 1, store: 'postgres', floor: true },
  { id: 'abi-8', title: '400 KiB ABI', kind: 'abi', connections: 8, store: 'postgres', floor: true },
  { id: 'sign-16', title: 'sign_transaction (EIP-1559) with a wallet account', kind: 'sign', connections: 16, store: 'postgres', floor: true },
  {
    id: 'policy-abi-16',
    title: 'sign_transaction of an ERC-20 transfer (its ABI stored), non-root user allowed by a contract_call_args cap, 1 of 20 policies',
    kind: 'token',
    connections: 16,
    store: 'postgres',
    signer: 'policy',
    floor: true,
  },
  { id: 'embedded-16', title: 'create_smart_contract_interface, embedded', kind: 'contract', connections: 16, store: 'embedded', floor: false },
];

const only = args.only.split(',').map((s) => s.trim()).filter(Boolean);
for (const id of only) if (!SCENARIOS.some((s) => s.id === id)) fail(`unknown scenario ${id}; scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}`);
const selected = only.length > 0 ? SCENARIOS.filter((s) => only.includes(s.id)) : SCENARIOS;

// ---------------------------------------------------------------------------------------------
// Prerequisites: wrk, and PostgreSQL on loopback (its backends' CPU is read from /proc)

const wrkVersion = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
if (wrkVersion.error) fail('wrk is not installed; install it with `apt-get install -y wrk` (Debian, Ubuntu) and run npm run bench again');
const WRK = /wrk\s+\S+/.exec(wrkVersion.stdout + wrkVersion.stderr)?.[0] ?? 'wrk';

const adminUrl = new URL(args['database-url']);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(adminUrl.hostname)) {
  fail(`BENCH_DATABASE_URL must name a PostgreSQL server on this machine (127.0.0.1): the CPU of its backends is read from /proc; got ${adminUrl.hostname}`);
}
const DATABASE = `signet_bench_${process.pid}`;
const benchUrl = new URL(adminUrl);
benchUrl.pathname = `/${DATABASE}`;

const admin = new pg.Client({ connectionString: adminUrl.toString(), application_name: 'signet-bench' });
try {
  await admin.connect();
} catch (error) {
  fail(`cannot reach PostgreSQL at ${adminUrl.host} (${(error as Error).message}); start it or set BENCH_DATABASE_URL`);
}

// ---------------------------------------------------------------------------------------------
// Processes under test

const RUN_ID = randomBytes(4).toString('hex');
const ADMIN_TOKEN = `bench-${randomBytes(24).toString('hex')}`;
const OTP_SECRET = randomBytes(32).toString('hex');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-'));
/** One data folder for every Signet on PostgreSQL, so an OTP queued by one is delivered by the next (one secret). */
const sharedDataDir = path.join(workDir, 'signet-postgres');
const children = new Set<ChildProcess>();

interface Running {
  name: string;
  pid: number;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('SIGNET_') && value !== undefined) env[key] = value;
  return env;
}

async function startProcess(name: string, argv: string[], env: Record<string, string>, url: string): Promise<Running> {
  const child = spawn(process.execPath, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${output}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer /healthz within 60 s:\n${output}`);
    }
    await sleep(100);
  }
  return {
    name,
    pid: child.pid!,
    url,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
      children.delete(child);
    },
  };
}

/**
 * node's options that write CPU profiles into the --profile folder (none without one). Node names
 * them by process and thread (CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile): a process that loads
 * tsx writes one for its loader's thread too; scenarioBuckets keeps the main thread's.
 */
function profileOptions(profiled: boolean | undefined): string[] {
  return profiled && args.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(args.profile)] : [];
}

async function startSignet(options: { databaseUrl: string; worker: boolean; dataDir: string; profile?: boolean; bin?: string }): Promise<Running> {
  const port = await freePort();
  const profile = profileOptions(options.profile);
  return startProcess(
    options.bin ? 'baseline signet serve' : 'signet serve',
    [...profile, options.bin ?? SIGNET_BIN, 'serve'],
    {
      ...cleanEnvironment(),
      // Signet's own defaults (log level info: a line per request) unless --signet-env sets one, e.g.
      // SIGNET_LOG_LEVEL=warn to compare.
      ...SIGNET_ENV,
      SIGNET_HOST: '127.0.0.1',
      SIGNET_PORT: String(port),
      SIGNET_DATABASE_URL: options.databaseUrl,
      SIGNET_DATA_DIR: options.dataDir,
      SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
      SIGNET_OTP_SECRET: OTP_SECRET,
      SIGNET_AUTH_FAILURE_LIMIT: '999999/1',
      // Every load connection comes from this one address.
      SIGNET_MAX_CONNECTIONS_PER_ADDRESS: '0',
      SIGNET_OUTBOX_WORKER: String(options.worker),
    },
    `http://127.0.0.1:${port}`,
  );
}

async function startFloor(publicKey: string, profile?: boolean, signs?: boolean): Promise<Running> {
  const port = await freePort();
  return startProcess(
    'floor',
    [...profileOptions(profile), '--import', 'tsx', path.join(ROOT, 'bench', 'floor.ts')],
    {
      ...cleanEnvironment(),
      FLOOR_PORT: String(port),
      FLOOR_DATABASE_URL: benchUrl.toString(),
      FLOOR_PUBLIC_KEY: publicKey,
      // The floor of a signing scenario signs each transaction's hash with a secp256k1 key of its own.
      ...(signs ? { FLOOR_SIGNING_KEY: randomBytes(32).toString('hex') } : {}),
    },
    `http://127.0.0.1:${port}`,
  );
}

interface Credentials {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  key: KeyObject;
  /** The address of the organization's wallet account a signing scenario signs with. */
  signWith?: string;
}

async function adminPost<T>(signet: Running, route: string, body: unknown): Promise<T> {
  const response = await fetch(`${signet.url}/admin/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (response.status !== 200) throw new Error(`admin API POST ${route}: HTTP ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** The key object of an API private key as the admin API hands it out (the P-256 scalar, hex). */
function privateKeyOf(hex: string): KeyObject {
  // PKCS#8 of a P-256 scalar: a fixed prefix, then the 32 bytes.
  const prefix = Buffer.from('308141020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, Buffer.from(hex, 'hex')]), format: 'der', type: 'pkcs8' });
}

/** A new organization and its creator's API key: the root quorum, of that one user. */
async function createOrganization(signet: Running): Promise<Credentials> {
  const org = await adminPost<Omit<Credentials, 'key'>>(signet, '/organizations', { name: `bench ${RUN_ID} ${++organizationCount}` });
  if (!org.apiPrivateKey) throw new Error(`admin API: no API key for the new organization: ${JSON.stringify(org)}`);
  return { ...org, key: privateKeyOf(org.apiPrivateKey) };
}
let organizationCount = 0;

/**
 * Policies of the policy-16 scenario, all but one about other activities: ALLOW and DENY on other
 * resources and kinds (each DENY's condition evaluable for every activity: one that reads a field an
 * activity lacks would deny it), so that the decision weighs them all before the one that allows.
 */
const IRRELEVANT_POLICIES: Array<{ effect: 'EFFECT_ALLOW' | 'EFFECT_DENY'; condition: string; consensus?: string }> = [
  { effect: 'EFFECT_ALLOW', condition: "activity.resource == 'AUTH'" },
  { effect: 'EFFECT_DENY', condition: "activity.resource == 'OTP' && activity.action == 'VERIFY'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.kind == 'INIT_OTP'" },
  { effect: 'EFFECT_DENY', condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'DELETE'" },
  { effect: 'EFFECT_DENY', condition: "activity.kind == 'DELETE_USERS'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.resource == 'USER' && activity.action == 'UPDATE'", consensus: 'approvers.count() >= 2' },
  { effect: 'EFFECT_DENY', condition: "activity.resource == 'ORGANIZATION'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.kind == 'CREATE_USER_TAG'" },
  { effect: 'EFFECT_DENY', condition: "activity.resource == 'CREDENTIAL' && activity.action == 'DELETE'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.kind in ['OTP_AUTH', 'OTP_LOGIN', 'STAMP_LOGIN']" },
  { effect: 'EFFECT_DENY', condition: "activity.kind == 'DELETE_SUB_ORGANIZATION'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.resource == 'CREDENTIAL' && activity.action == 'CREATE'" },
  { effect: 'EFFECT_DENY', condition: "activity.resource == 'ACTIVITY' && activity.action == 'REJECT'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.resource == 'POLICY' && activity.action == 'UPDATE'", consensus: 'approvers.count() >= 2' },
  { effect: 'EFFECT_DENY', condition: "activity.kind == 'UPDATE_USER_EMAIL'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.resource == 'OTP' && activity.action == 'CREATE'" },
  { effect: 'EFFECT_DENY', condition: "activity.resource == 'USER' && activity.action == 'DELETE'" },
  { effect: 'EFFECT_ALLOW', condition: "activity.kind == 'INIT_OTP_AUTH'" },
];

/** The policy that allows the policy user's activities of a scenario's kind (the last of its 20). */
const decidingPolicies = (): Partial<Record<Kind, { policyName: string; condition: string }>> => ({
  contract: { policyName: 'bench operator creates interfaces', condition: "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'" },
  // Reads the transfer's calldata decoded with the token's stored ABI: an amount cap above 2^53.
  token: {
    policyName: 'bench operator sends tokens under a cap',
    condition:
      `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && eth.tx.to == '${ADDRESS}' && ` +
      `eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= ${TOKEN_CAP}`,
  },
});

/**
 * A second user of the root's organization, not in its root quorum, with an API key (admin API), and
 * 20 policies created by the root user's key through the public API: 19 that do not apply to
 * the scenario's activities, then one ALLOW that does (decidingPolicies), whose consensus counts
 * this user alone. Its activities are decided by the policies, not by the root quorum.
 */
async function createPolicyUser(signet: Running, root: Credentials, kind: Kind): Promise<Credentials> {
  const deciding = decidingPolicies()[kind];
  if (!deciding) throw new Error(`no policy allows a policy user's ${kind} activities`);
  const { organizationId } = root;
  const user = await adminPost<{ userId: string }>(signet, `/organizations/${organizationId}/users`, { userName: `bench operator ${RUN_ID}` });
  const key = await adminPost<{ apiPublicKey: string; apiPrivateKey: string }>(signet, `/organizations/${organizationId}/api-keys`, { userId: user.userId });
  if (!user.userId || !key.apiPrivateKey) throw new Error(`admin API: no user id or no API key: ${JSON.stringify({ user, key })}`);
  const policies = [
    ...IRRELEVANT_POLICIES.map((p, i) => ({ policyName: `bench other ${i + 1}`, ...p, notes: '' })),
    { ...deciding, effect: 'EFFECT_ALLOW', consensus: `approvers.any(user, user.id == '${user.userId}')`, notes: '' },
  ];
  const head = JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_POLICIES', timestampMs: String(Date.now()), organizationId, parameters: { policies } });
  const response = await fetch(`${signet.url}/public/v1/submit/create_policies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-stamp': stampOf(root, [head]) },
    body: head,
  });
  const answer = (await response.json()) as { activity?: { status?: string; result?: { createPoliciesResult?: { policyIds?: string[] } } } };
  const created = answer.activity?.result?.createPoliciesResult?.policyIds?.length;
  if (response.status !== 200 || answer.activity?.status !== 'ACTIVITY_STATUS_COMPLETED' || created !== policies.length) {
    throw new Error(`create_policies by the root user: HTTP ${response.status} ${JSON.stringify(answer).slice(0, 600)}`);
  }
  return { organizationId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey, key: privateKeyOf(key.apiPrivateKey) };
}

/** The credentials that stamp a scenario's requests, in a new organization (with a wallet, for a signing scenario). */
async function signerOf(signet: Running, scenario: Scenario): Promise<Credentials> {
  const root = await createOrganization(signet);
  if (scenario.kind === 'sign') return { ...root, signWith: await createWallet(signet, root) };
  if (scenario.signer !== 'policy') return root;
  let signWith: string | undefined;
  if (scenario.kind === 'token') {
    // The token's ABI (SMALL_ABI at ADDRESS) stored by the root user, and a wallet to sign with.
    await expectCompleted(signet, prepare(root, 'contract', 1), scenario);
    signWith = await createWallet(signet, root);
  }
  const user = { ...(await createPolicyUser(signet, root, scenario.kind)), ...(signWith ? { signWith } : {}) };
  await expectCompleted(signet, prepare(user, scenario.kind, 2 * scenario.connections), scenario);
  return user;
}

/** A wallet of one Ethereum account (m/44'/60'/0'/0/0) in the organization, by its root user; its address. */
async function createWallet(signet: Running, root: Credentials): Promise<string> {
  const body = JSON.stringify({
    type: 'ACTIVITY_TYPE_CREATE_WALLET',
    timestampMs: String(Date.now()),
    organizationId: root.organizationId,
    parameters: {
      walletName: `bench ${RUN_ID}`,
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    },
  });
  const response = await fetch(`${signet.url}/public/v1/submit/create_wallet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-stamp': stampOf(root, [body]) },
    body,
  });
  const answer = (await response.json()) as { activity?: { status?: string; result?: { createWalletResult?: { addresses?: string[] } } } };
  const address = answer.activity?.result?.createWalletResult?.addresses?.[0];
  if (response.status !== 200 || answer.activity?.status !== 'ACTIVITY_STATUS_COMPLETED' || !address) {
    throw new Error(`create_wallet by the root user: HTTP ${response.status} ${JSON.stringify(answer).slice(0, 600)}`);
  }
  return address;
}

/**
 * Sends the requests and stops the run unless every one answers 200 with a completed activity: a
 * scenario whose requests wait for approvals (ACTIVITY_STATUS_CONSENSUS_NEEDED) or are refused (403)
 * would measure something else than what it is named after.
 */
async function expectCompleted(signet: Running, requests: Prepared[], scenario: Scenario): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(scenario.connections, requests.length) }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const response = await fetch(signet.url + r.route, { method: 'POST', headers: { 'content-type': 'application/json', 'x-stamp': r.stamp }, body: bodyOf(r) });
        const text = await response.text();
        let status: unknown;
        try {
          status = (JSON.parse(text) as { activity?: { status?: unknown } }).activity?.status;
        } catch {
          status = undefined;
        }
        if (response.status !== 200 || status !== 'ACTIVITY_STATUS_COMPLETED') {
          throw new Error(`${scenario.id}: a request answered HTTP ${response.status} with status ${String(status)}, not 200 ACTIVITY_STATUS_COMPLETED: ${text.slice(0, 400)}`);
        }
      }
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Stamped requests

interface Prepared {
  route: string;
  stamp: string;
  /** The body is head + (the 400 KiB interface when shared) + tail. */
  head: string;
  tail: string;
  shared: boolean;
}

const CREATE_ROUTE = '/public/v1/submit/create_smart_contract_interface';
const OTP_ROUTE = '/public/v1/submit/init_otp_auth';
const SIGN_ROUTE = '/public/v1/submit/sign_transaction';
const ADDRESS = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const TOKEN_ABI = [
  { type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] },
] as const;
const SMALL_ABI = JSON.stringify(TOKEN_ABI);
/** What the policy-abi scenario's transfers send, and the cap its policy allows them under (base units, above 2^53). */
const TOKEN_RECIPIENT = '0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7';
const TOKEN_CAP = 10n ** 24n;
let largeInterface: string | undefined;
/** The 400 KiB ABI as a JSON string value (escaped), as it stands inside the body. */
const largeInterfaceJson = () => (largeInterface ??= JSON.stringify(largeAbi(409_600)));
let sequence = 0;

function stampOf(credentials: Credentials, parts: string[]): string {
  const signer = createSign('sha256');
  for (const part of parts) signer.update(part);
  const signature = signer.sign({ key: credentials.key, dsaEncoding: 'der' }).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey: credentials.apiPublicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
}

/** count distinct requests, each freshly timestamped and stamped with the organization's API key. */
function prepare(credentials: Credentials, kind: Kind, count: number): Prepared[] {
  const prepared: Prepared[] = [];
  for (let i = 0; i < count; i++) {
    const n = ++sequence;
    const timestampMs = String(Date.now());
    const organizationId = credentials.organizationId;
    let request: Omit<Prepared, 'stamp'>;
    if (kind === 'contract') {
      const parameters = { smartContractAddress: ADDRESS, smartContractInterface: SMALL_ABI, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: `bench ${n}` };
      request = { route: CREATE_ROUTE, head: JSON.stringify({ type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', timestampMs, organizationId, parameters }), tail: '', shared: false };
    } else if (signs(kind)) {
      if (!credentials.signWith) throw new Error('a signing scenario needs credentials with a wallet account (signerOf makes one)');
      // An EIP-1559 transaction with a nonce of its own, serialized unsigned (hex without 0x, as @turnkey/viem sends it):
      // a transfer of n wei, or (token) a call of the token's transfer of an amount above 2^53, under the cap.
      const call =
        kind === 'token'
          ? { value: 0n, gas: 60_000n, data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'transfer', args: [TOKEN_RECIPIENT, 10n ** 18n + BigInt(n)] }) }
          : { value: BigInt(n), gas: 21_000n };
      const unsignedTransaction = serializeTransaction({
        type: 'eip1559',
        chainId: 1,
        nonce: n,
        to: ADDRESS,
        ...call,
        maxFeePerGas: 30_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      }).slice(2);
      const parameters = { signWith: credentials.signWith, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' };
      request = { route: SIGN_ROUTE, head: JSON.stringify({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', timestampMs, organizationId, parameters }), tail: '', shared: false };
    } else if (kind === 'otp') {
      // A contact of its own per request: the per-contact rate limit (10 an hour) is not what is measured.
      const parameters = { otpType: 'OTP_TYPE_EMAIL', contact: `bench-${RUN_ID}-${n}@example.com`, appName: 'Bench' };
      request = { route: OTP_ROUTE, head: JSON.stringify({ type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', timestampMs, organizationId, parameters }), tail: '', shared: false };
    } else {
      const head =
        `{"type":"ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE","timestampMs":"${timestampMs}","organizationId":"${organizationId}",` +
        `"parameters":{"smartContractAddress":"${ADDRESS}","type":"SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM","label":"bench ${n}","smartContractInterface":`;
      request = { route: CREATE_ROUTE, head, tail: '}}', shared: true };
    }
    const stamp = stampOf(credentials, [request.head, request.shared ? largeInterfaceJson() : '', request.tail]);
    prepared.push({ ...request, stamp });
  }
  return prepared;
}

const bodyOf = (r: Prepared) => r.head + (r.shared ? largeInterfaceJson() : '') + r.tail;

let fileCount = 0;
/** The file bench/replay.lua reads: one request a line (path, stamp, head, tail[, "shared"]). */
function writeRequests(requests: Prepared[]): string {
  const file = path.join(workDir, `requests-${++fileCount}.txt`);
  fs.writeFileSync(file, requests.map((r) => [r.route, r.stamp, r.head, r.tail, ...(r.shared ? ['shared'] : [])].join('\t')).join('\n') + '\n');
  if (requests.some((r) => r.shared)) fs.writeFileSync(`${file}.shared`, largeInterfaceJson());
  return file;
}

/** Sends the requests from this process (statement rounds and priming, where latency is not measured). */
async function submitAll(url: string, requests: Prepared[], concurrency: number): Promise<{ ok: number; statuses: Map<number, number>; sample: string }> {
  let next = 0;
  let ok = 0;
  let sample = '';
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, requests.length) }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const response = await fetch(url + r.route, { method: 'POST', headers: { 'content-type': 'application/json', 'x-stamp': r.stamp }, body: bodyOf(r) });
        const text = await response.text();
        if (response.status === 200) ok++;
        else {
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          sample ||= text.slice(0, 300);
        }
      }
    }),
  );
  if (ok < requests.length) console.error(`bench: ${requests.length - ok} of ${requests.length} requests refused: ${JSON.stringify(Object.fromEntries(statuses))} ${sample}`);
  return { ok, statuses, sample };
}

// ---------------------------------------------------------------------------------------------
// Rounds under wrk

interface WrkResult {
  requests: number;
  durationUs: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  non2xx: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  overrun: number;
  statuses: Record<string, number>;
  sample: string;
}

/** Runs wrk for one round; its CPU is read every 200 ms while it runs (the last reading stands). */
function runWrk(url: string, file: string, connections: number, seconds: number, mode: 'once' | 'cycle'): Promise<WrkResult & { cpuMs: number }> {
  const threads = Math.min(WRK_THREADS, connections);
  const argv = ['-t', String(threads), '-c', String(connections), '-d', `${seconds}s`, '--timeout', '10s', '-s', LUA_SCRIPT, url, '--', file, mode, String(threads)];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let wrkCpu = 0;
    const reader = setInterval(() => (wrkCpu = cpuMs(child.pid!) ?? wrkCpu), 200);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), seconds * 1000 + 60_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      clearInterval(reader);
      children.delete(child);
      const line = /^BENCH_RESULT (.*)$/m.exec(output);
      if (!line) return reject(new Error(`wrk gave no result:\n${output}`));
      resolve({ ...(JSON.parse(line[1]!) as WrkResult), cpuMs: wrkCpu });
    });
  });
}

interface Target {
  /** This Signet, the floor, or the --baseline build. */
  role: 'signet' | 'floor' | 'baseline';
  process: Running;
  embedded: boolean;
  /** Answers/s of the last round, to stamp enough bodies for the next. */
  lastRate?: number;
  rounds: RoundResult[];
}

interface RoundResult {
  /** When the round ran, on the monotonic clock V8's profiles use (µs): what a profile counts of it. */
  window: Window;
  /** 200 answers per second (new activities, or stored ones for resubmission). */
  rate: number;
  ok: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerActivity: number;
  /** undefined for the embedded store (its database runs inside Signet's process). */
  pgCpuMsPerActivity: number | undefined;
  hostBusy: number;
  /** Share of all CPUs the hypervisor gave to others while this machine had work for them (steal). */
  stolen: number;
  /** Share of all CPUs used by the process measured, its PostgreSQL backends and wrk: the rest of hostBusy is someone else's. */
  ownBusy: number;
  backendsAppeared: number;
  backendsVanished: number;
  wrk: WrkResult;
}

const DEFAULT_RATE: Record<Kind, number> = { contract: 10000, otp: 6000, abi: 1000, sign: 6000, token: 6000 };

/** Now on the machine's monotonic clock, in µs: the clock of V8's profile timestamps (another process's too). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

async function round(target: Target, scenario: Scenario, credentials: Credentials, seconds: number, fixed?: string): Promise<RoundResult> {
  // Fresh bodies for three times the last rate (at least a generous default): each request a new activity.
  const expected = Math.max(3 * (target.lastRate ?? 0), DEFAULT_RATE[scenario.kind]);
  const file = fixed ?? writeRequests(prepare(credentials, scenario.kind, Math.ceil(expected * seconds) + 4 * scenario.connections));
  // The idle Signet's backends (one measured at a time) count with the loaded one's: idle, they spend next to nothing.
  const backends = target.embedded ? undefined : new BackendCpu(admin, DATABASE, target.role === 'floor' ? 'floor' : 'signet');
  await backends?.begin();
  const cpu0 = cpuMs(target.process.pid)!;
  const host0 = hostCpu();
  const startUs = monotonicUs();
  const wrk = await runWrk(target.process.url, file, scenario.connections, seconds, fixed ? 'cycle' : 'once');
  const endUs = monotonicUs();
  const cpu1 = cpuMs(target.process.pid);
  const host1 = hostCpu();
  const pgCpu = await backends?.end();
  if (cpu1 === undefined) throw new Error(`${target.process.name} died during the round:\n${target.process.output()}`);
  const refused = Object.values(wrk.statuses).reduce((a, b) => a + b, 0);
  if (refused > 0 && scenario.signer === 'policy' && target.role !== 'floor') {
    throw new Error(`${scenario.id}: ${refused} requests not answered 200 (${JSON.stringify(wrk.statuses)}): ${wrk.sample}`);
  }
  const ok = wrk.requests - refused;
  if (ok === 0) throw new Error(`${target.role}: no request answered 200 (${JSON.stringify(wrk.statuses)}): ${wrk.sample}\n${target.process.output()}`);
  const rate = ok / (wrk.durationUs / 1e6);
  // CPU ms of the whole host (all its CPUs) during the round: what the shares below are of.
  const hostMs = host1.total - host0.total;
  target.lastRate = rate;
  if (!fixed) fs.rmSync(file, { force: true });
  const result: RoundResult = {
    window: { startUs, endUs, activities: ok },
    rate,
    ok,
    p50Ms: wrk.p50Us / 1000,
    p99Ms: wrk.p99Us / 1000,
    cpuMsPerActivity: (cpu1 - cpu0) / ok,
    pgCpuMsPerActivity: pgCpu === undefined ? undefined : pgCpu / ok,
    hostBusy: (host1.busy - host0.busy) / hostMs,
    stolen: (host1.stolen - host0.stolen) / hostMs,
    ownBusy: (cpu1 - cpu0 + (pgCpu ?? 0) + wrk.cpuMs) / hostMs,
    backendsAppeared: backends?.appeared ?? 0,
    backendsVanished: backends?.vanished ?? 0,
    wrk,
  };
  const problems = [
    refused ? `non-200 ${JSON.stringify(wrk.statuses)} ${wrk.sample.slice(0, 160)}` : '',
    wrk.connectErrors + wrk.readErrors + wrk.writeErrors + wrk.timeouts ? `socket errors c${wrk.connectErrors} r${wrk.readErrors} w${wrk.writeErrors} t${wrk.timeouts}` : '',
    wrk.overrun ? `ran out of stamped bodies ${wrk.overrun}× (later requests were resubmissions)` : '',
  ].filter(Boolean);
  progress(
    `  ${scenario.id} ${target.role.padEnd(8)} ${fmt(rate, 0).padStart(6)}/s  p50 ${fmt(result.p50Ms, 1)} ms  p99 ${fmt(result.p99Ms, 1)} ms` +
      `${problems.length ? '  ! ' + problems.join('; ') : ''}`,
  );
  return result;
}

// ---------------------------------------------------------------------------------------------
// Statements per activity: separate short rounds through the counting proxy

interface StatementCount {
  perActivity: number;
  requests: number;
  byType: Record<string, number>;
  /** init_otp_auth only: what the delivery worker adds per activity (idle polling subtracted). */
  deliveryPerActivity?: number;
}

const mailCount = (dataDir: string) => {
  try {
    return fs.readdirSync(path.join(dataDir, 'mail')).filter((f) => f.endsWith('.eml')).length;
  } catch {
    return 0;
  }
};

async function waitForMail(dataDir: string, count: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (mailCount(dataDir) < count) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

const statementNotes: string[] = [];
const deliveryNotes: string[] = [];

async function countStatements(scenarios: Scenario[]): Promise<Map<string, StatementCount>> {
  const counts = new Map<string, StatementCount>();
  if (scenarios.length === 0) return counts;
  const counter = new StatementCounter(benchUrl.hostname.replace(/^\[|\]$/g, ''), Number(benchUrl.port || 5432));
  const proxied = new URL(benchUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(await counter.listen());
  progress('statements: Signet through the counting proxy, delivery worker off');
  let signet = await startSignet({ databaseUrl: proxied.toString(), worker: false, dataDir: sharedDataDir });
  let queuedOtp = 0;
  try {
    const rootCredentials = await createOrganization(signet);
    // Steady state: one activity first, so the key's first lookup (once per process, then kept in
    // memory) is not counted as part of every scenario's activities.
    await submitAll(signet.url, prepare(rootCredentials, 'contract', 1), 1);
    for (const scenario of scenarios) {
      // A policy user gets an organization of its own, primed the same way (signerOf sends a few
      // activities: the key's lookup and the user's tags, read once per authority version).
      const credentials = scenario.signer === 'policy' || scenario.kind === 'sign' ? await signerOf(signet, scenario) : rootCredentials;
      const n = scenario.kind === 'abi' ? Math.min(STATEMENT_REQUESTS, 40) : STATEMENT_REQUESTS;
      let requests: Prepared[];
      if (scenario.resubmit) {
        const few = prepare(credentials, scenario.kind, scenario.connections);
        await submitAll(signet.url, few, scenario.connections);
        requests = Array.from({ length: n }, (_, i) => few[i % few.length]!);
      } else {
        requests = prepare(credentials, scenario.kind, n);
      }
      await sleep(300);
      counter.reset();
      const { ok } = await submitAll(signet.url, requests, scenario.connections);
      await sleep(300);
      if (scenario.kind === 'otp') queuedOtp += ok;
      counts.set(scenario.id, { perActivity: counter.statements() / ok, requests: ok, byType: Object.fromEntries(counter.counts) });
      progress(`  ${scenario.id}: ${fmt(counter.statements() / ok, 2)} statements per ${scenario.resubmit ? 'answer' : 'activity'} (${ok} requests; ${describeTypes(counter.counts, ok)})`);
    }
    await signet.stop();

    const otp = scenarios.find((s) => s.kind === 'otp');
    if (otp) {
      progress('statements: init_otp_auth again with the delivery worker on, until every email is in the dev mailbox');
      signet = await startSignet({ databaseUrl: proxied.toString(), worker: true, dataDir: sharedDataDir });
      // The first Signet queued emails without a worker: this one delivers them before measuring.
      const drained = await waitForMail(sharedDataDir, queuedOtp, 60_000);
      if (!drained) statementNotes.push('the emails queued with the worker off were not all delivered within 60 s');
      await sleep(1000);
      counter.reset();
      await sleep(3000);
      const idlePerSecond = counter.statements() / 3;
      const before = mailCount(sharedDataDir);
      const requests = prepare(rootCredentials, 'otp', STATEMENT_REQUESTS);
      const started = performance.now();
      counter.reset();
      const { ok } = await submitAll(signet.url, requests, otp.connections);
      const delivered = await waitForMail(sharedDataDir, before + ok, 60_000);
      await sleep(1000);
      const elapsed = (performance.now() - started) / 1000;
      const total = counter.statements() - idlePerSecond * elapsed;
      const entry = counts.get(otp.id)!;
      entry.deliveryPerActivity = total / ok - entry.perActivity;
      statementNotes.push(
        `init_otp_auth with the worker on: ${fmt(total / ok, 2)} statements per activity in all, of which delivery ${fmt(entry.deliveryPerActivity, 2)} ` +
          `(idle polling, ${fmt(idlePerSecond, 1)}/s, subtracted${delivered ? '' : '; NOT all emails delivered within 60 s'})`,
      );
      progress(`  ${statementNotes.at(-1)}`);
      await signet.stop();
    }
  } finally {
    await signet.stop().catch(() => {});
    await counter.close();
  }
  return counts;
}

function describeTypes(counts: Map<string, number>, per: number): string {
  const names: Record<string, string> = { Q: 'Query', S: 'Sync', P: 'Parse', B: 'Bind', E: 'Execute', D: 'Describe' };
  return Object.keys(names)
    .filter((t) => counts.has(t))
    .map((t) => `${names[t]} ${fmt(counts.get(t)! / per, 1)}`)
    .join(', ');
}

// ---------------------------------------------------------------------------------------------
// One scenario: fresh processes, warm-up, interleaved rounds

interface ScenarioResult {
  scenario: Scenario;
  targets: Array<{ role: Target['role']; pid: number; peakRssMiB: number; rounds: RoundResult[] }>;
  idleRssMiB?: number;
  /** With --profile: each process's main-thread time in the measured rounds, by bucket. */
  buckets?: Array<{ role: Target['role']; times: BucketTimes }>;
}

/**
 * Once a scenario's processes have stopped (node writes its profiles at exit): each one's main-thread
 * profile renamed <scenario>-<signet|floor>.cpuprofile (another thread's removed), the windows of its
 * measured rounds beside it, for bench/profileBuckets.ts to read again, and its buckets.
 */
function scenarioBuckets(result: ScenarioResult): ScenarioResult['buckets'] {
  const folder = path.resolve(args.profile);
  return result.targets.map(({ role, pid, rounds }) => {
    const written = fs.readdirSync(folder).filter((name) => name.includes(`.${pid}.`) && name.endsWith('.cpuprofile'));
    const main = written.find((name) => name.includes(`.${pid}.0.`));
    if (!main) fail(`${role} (pid ${pid}) wrote no profile of its main thread into ${folder}`);
    const file = path.join(folder, `${result.scenario.id}-${role}.cpuprofile`);
    fs.renameSync(path.join(folder, main), file);
    for (const other of written) if (other !== main) fs.rmSync(path.join(folder, other));
    fs.writeFileSync(`${file}.windows.json`, JSON.stringify(rounds.map((r) => r.window)));
    const { profile, windows } = readProfile(file);
    return { role, times: bucketTimes(profile, windows) };
  });
}

async function runScenario(scenario: Scenario, measureIdle: boolean): Promise<ScenarioResult> {
  progress(`${scenario.id}: ${scenario.title}, ${scenario.connections} connection${scenario.connections > 1 ? 's' : ''}`);
  const embedded = scenario.store === 'embedded';
  const signet = await startSignet({
    databaseUrl: embedded ? '' : benchUrl.toString(),
    worker: true,
    dataDir: embedded ? fs.mkdtempSync(path.join(workDir, 'signet-embedded-')) : sharedDataDir,
    profile: true,
  });
  const started: Running[] = [signet];
  try {
    let idleRssMiB: number | undefined;
    if (measureIdle) {
      await sleep(IDLE_SECONDS * 1000);
      idleRssMiB = memoryMiB(signet.pid)?.rss;
      progress(`  idle RSS ${mib(idleRssMiB)} after ${IDLE_SECONDS} s`);
    }
    const credentials = await signerOf(signet, scenario);
    const targets: Target[] = [];
    if (scenario.floor) {
      const floor = await startFloor(credentials.apiPublicKey, true, signs(scenario.kind));
      started.push(floor);
      targets.push({ role: 'floor', process: floor, embedded: false, rounds: [] });
    }
    targets.push({ role: 'signet', process: signet, embedded, rounds: [] });
    if (BASELINE_BIN && !embedded) {
      // The same organization and data folder: the baseline reads what this Signet set up.
      const baseline = await startSignet({ databaseUrl: benchUrl.toString(), worker: true, dataDir: sharedDataDir, profile: true, bin: BASELINE_BIN });
      started.push(baseline);
      if (scenario.signer === 'policy') await expectCompleted(baseline, prepare(credentials, scenario.kind, 2 * scenario.connections), scenario);
      targets.push({ role: 'baseline', process: baseline, embedded, rounds: [] });
    }

    let fixed: string | undefined;
    if (scenario.resubmit) {
      const few = prepare(credentials, scenario.kind, scenario.connections);
      await submitAll(signet.url, few, scenario.connections);
      fixed = writeRequests(few);
    }
    const mailBefore = mailCount(sharedDataDir);
    let answered = 0;
    if (WARMUP_SECONDS > 0) for (const target of targets) answered += (await round(target, scenario, credentials, WARMUP_SECONDS, fixed)).ok;
    for (let r = 0; r < ROUNDS; r++) {
      // ABBA order, so a drift of the machine during the scenario weighs on both alike.
      const order = r % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const result = await round(target, scenario, credentials, SECONDS, fixed);
        target.rounds.push(result);
        answered += result.ok;
      }
    }
    // The rounds count 200 answers; a 200 could also be an activity left waiting for approvals.
    if (scenario.signer === 'policy') {
      for (const target of targets) if (target.role !== 'floor') await expectCompleted(target.process, prepare(credentials, scenario.kind, 2 * scenario.connections), scenario);
    }
    if (scenario.kind === 'otp') {
      // The worker sends while the rounds run; what it has not sent yet would weigh on the next scenario.
      const deliveredInRounds = mailCount(sharedDataDir) - mailBefore;
      const waitStarted = performance.now();
      const drained = await waitForMail(sharedDataDir, mailBefore + answered, 180_000);
      const note =
        `init_otp_auth: ${answered} emails queued during the rounds (warm-up included), ${deliveredInRounds} in the dev mailbox by the end of the last round, ` +
        (drained ? `the rest ${fmt((performance.now() - waitStarted) / 1000, 1)} s later` : 'NOT all within 180 s after it');
      deliveryNotes.push(note);
      progress(`  ${note}`);
    }
    return {
      scenario,
      idleRssMiB,
      targets: targets.map((t) => ({ role: t.role, pid: t.process.pid, peakRssMiB: memoryMiB(t.process.pid)?.peak ?? NaN, rounds: t.rounds })),
    };
  } finally {
    for (const running of started.reverse()) await running.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function progress(line: string) {
  process.stderr.write(`${line}\n`);
}

const mib = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(0)} MiB`);

function fmt(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Above this share of stolen CPU the run says its figures are not a quiet machine's. */
const STOLEN_WARNING = 0.05;

const medianOf = (rounds: RoundResult[], pick: (r: RoundResult) => number | undefined) => {
  const values = rounds.map(pick).filter((v): v is number => v !== undefined);
  return values.length ? median(values) : undefined;
};

function table(results: ScenarioResult[], statements: Map<string, StatementCount>): string {
  const header = ['scenario', 'conns', 'process', 'activities/s', 'p50 ms', 'p99 ms', 'CPU ms/act', 'PG ms/act', 'stmts/act', 'peak RSS MiB', 'vs floor', 'host busy (ours)', 'stolen'];
  const rows: string[][] = [];
  for (const { scenario, targets } of results) {
    const floor = targets.find((t) => t.role === 'floor');
    const floorRate = floor ? medianOf(floor.rounds, (r) => r.rate) : undefined;
    for (const target of [...targets.filter((t) => t.role !== 'floor'), ...(floor ? [floor] : [])]) {
      const rate = medianOf(target.rounds, (r) => r.rate);
      const count = statements.get(scenario.id);
      const stmts =
        target.role === 'floor'
          ? '1 (by design)'
          : target.role === 'baseline'
            ? 'not counted'
            : scenario.store === 'embedded'
            ? 'n/a (in process)'
            : count
              ? fmt(count.perActivity, 2) + (count.deliveryPerActivity !== undefined ? ` +${fmt(count.deliveryPerActivity, 2)} delivery` : '')
              : 'not counted';
      const name = { signet: scenario.title, baseline: `  baseline (${args.baseline})`, floor: '  floor (bench/floor.ts)' }[target.role];
      rows.push([
        name,
        String(scenario.connections),
        target.role === 'signet' && scenario.store === 'embedded' ? 'signet (PGlite)' : target.role,
        fmt(rate, 0),
        fmt(medianOf(target.rounds, (r) => r.p50Ms), 1),
        fmt(medianOf(target.rounds, (r) => r.p99Ms), 1),
        fmt(medianOf(target.rounds, (r) => r.cpuMsPerActivity), 2),
        scenario.store === 'embedded' ? 'in process' : fmt(medianOf(target.rounds, (r) => r.pgCpuMsPerActivity), 2),
        stmts,
        fmt(target.peakRssMiB, 0),
        target.role !== 'floor' && floorRate && rate ? `${fmt(rate / floorRate, 2)}×` : target.role === 'floor' ? '1×' : 'n/a',
        `${fmt(100 * (medianOf(target.rounds, (r) => r.hostBusy) ?? NaN), 0)}% (${fmt(100 * (medianOf(target.rounds, (r) => r.ownBusy) ?? NaN), 0)}%)`,
        `${fmt(100 * (medianOf(target.rounds, (r) => r.stolen) ?? NaN), 0)}%`,
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 || i === 8 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * With --profile: each scenario's main-thread time per activity by bucket, Signet beside its floor,
 * and the busiest functions of each bucket. The profiles' rounds are the ones measured above: the
 * profiler's own cost (a few %) is in their rates.
 */
function whereTheTimeGoes(results: ScenarioResult[]): string[] {
  const lines = [`where the time goes (--profile ${path.resolve(args.profile)}: CPU profiles of the measured rounds, main thread; bench/profileBuckets.ts):`];
  for (const result of results) {
    if (!result.buckets) continue;
    // This Signet first: the differences are its own against each other column.
    const order = ['signet', 'floor', 'baseline'];
    const columns = [...result.buckets].sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role)).map(({ role, times }) => ({ label: role, times }));
    const processCpu = result.targets.map(({ role, rounds }) => `${role} ${fmt(medianOf(rounds, (r) => r.cpuMsPerActivity), 3)}`).join(', ');
    lines.push('', `${result.scenario.id}: ${result.scenario.title}`, formatBucketTable(columns));
    lines.push(`  the whole process (/proc, all threads: the main one, GC helpers, libuv's pool), ms/act: ${processCpu}`);
    for (const { label, times } of columns) lines.push(formatTopFunctions(`  ${label}`, times).replaceAll('\n  ', '\n    '));
  }
  lines.push('', 'buckets: who a sample\'s stack charges, leaf first: the first frame of a package or of Signet (Node\'s modules and V8\'s builtins pass the charge on):');
  for (const bucket of BUCKETS) lines.push(`  ${bucket}: ${BUCKET_MEANINGS[bucket]}`);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// The run

async function sleep(ms: number) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

let cleaned = false;
async function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  for (const child of children) child.kill('SIGKILL');
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => {});
  await admin.end().catch(() => {});
  fs.rmSync(workDir, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void cleanUp().then(() => process.exit(130));
  });
}

const runStarted = performance.now();
const cpuModel = /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
const setting = async (name: string) => ((await admin.query(`SELECT current_setting('${name}') AS v`)).rows[0] as { v: string }).v;
const machine =
  `machine: ${cpuModel}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB; Node ${process.version}; ` +
  `PostgreSQL ${await setting('server_version')} (fsync ${await setting('fsync')}, synchronous_commit ${await setting('synchronous_commit')}); ${WRK}, ${WRK_THREADS} thread`;
progress(machine);

await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
await admin.query(`CREATE DATABASE ${DATABASE}`);
let exitCode = 0;
try {
  const onPostgres = selected.filter((s) => s.store === 'postgres');
  const statements = await countStatements(onPostgres);
  const results: ScenarioResult[] = [];
  let idlePostgres: number | undefined;
  let idleEmbedded: number | undefined;
  for (const scenario of selected) {
    const measureIdle = scenario.store === 'embedded' ? idleEmbedded === undefined : idlePostgres === undefined;
    const result = await runScenario(scenario, measureIdle);
    if (args.profile) result.buckets = scenarioBuckets(result);
    if (result.idleRssMiB !== undefined) {
      if (scenario.store === 'embedded') idleEmbedded = result.idleRssMiB;
      else idlePostgres = result.idleRssMiB;
    }
    results.push(result);
  }

  const minutes = (performance.now() - runStarted) / 60_000;
  const out: string[] = [];
  out.push(machine);
  out.push(
    `rounds: ${ROUNDS} × ${SECONDS} s per process, floor and Signet interleaved (ABBA), after ${WARMUP_SECONDS} s of warm-up each; figures are medians of the rounds; ` +
      `wrk replays bodies stamped beforehand, each a new activity (resubmission: the same 16 again); loopback; whole run ${fmt(minutes, 1)} min`,
  );
  if (Object.keys(SIGNET_ENV).length > 0) {
    out.push(`signet serve ran with: ${Object.entries(SIGNET_ENV).map(([name, value]) => `${name}=${value}`).join(' ')}`);
  }
  out.push(`signet serve's log level: ${SIGNET_ENV.SIGNET_LOG_LEVEL ?? 'info (its default; its output is read by this process)'}`);
  out.push('');
  out.push(table(results, statements));
  out.push('');
  out.push(
    'activities/s: 200 answers per second of the round; p50/p99: wrk latency (connection to answer); CPU ms/act: utime+stime of the ' +
      'process (/proc/<pid>/stat) over the round ÷ 200 answers; PG ms/act: the same for its PostgreSQL backends (pg_stat_activity of the ' +
      'bench database, read every 200 ms); peak RSS: VmHWM of the process at the end of its scenario (each scenario starts fresh processes); ' +
      'host busy: share of all CPUs in use on the machine during the round, and (ours) the share used by the process, its backends and wrk; ' +
      'the difference is other work on the machine, which makes the figures noisy; stolen: share of all CPUs the hypervisor gave to other ' +
      'virtual machines while this one had work for them (/proc/stat steal), which slows every process of the round unevenly.',
  );
  out.push(
    `stmts/act: Query + Sync messages Signet sent to PostgreSQL ÷ 200 answers, counted by a loopback proxy in the bench process in separate rounds ` +
      `(${STATEMENT_REQUESTS} requests, 40 for the 400 KiB ABI, worker off; a Signet started for it, pointed at the proxy, after one activity that loads the key into its cache); the throughput rounds connect directly.`,
  );
  for (const note of [...statementNotes, ...deliveryNotes]) out.push(note);
  out.push(
    `idle RSS (VmRSS ${IDLE_SECONDS} s after start, before any request): PostgreSQL ${mib(idlePostgres)}, embedded ${mib(idleEmbedded)}`,
  );

  const created16 = results.find((r) => r.scenario.id === 'create-16');
  const policy16 = results.find((r) => r.scenario.id === 'policy-16');
  const abi1 = results.find((r) => r.scenario.id === 'abi-1');
  const sign16 = results.find((r) => r.scenario.id === 'sign-16');
  const policyAbi16 = results.find((r) => r.scenario.id === 'policy-abi-16');
  const rateOf = (r: ScenarioResult | undefined, role: Target['role']) => {
    const t = r?.targets.find((x) => x.role === role);
    return t ? medianOf(t.rounds, (x) => x.rate) : undefined;
  };
  const check = (ok: boolean | undefined) => (ok === undefined ? '(not run)' : ok ? 'met' : 'NOT met');
  const perNew = statements.get('create-16')?.perActivity;
  const perOtp = statements.get('otp-16')?.perActivity;
  const ratio = (rateOf(created16, 'signet') ?? NaN) / (rateOf(created16, 'floor') ?? NaN);
  const policyRatio = (rateOf(policy16, 'signet') ?? NaN) / (rateOf(policy16, 'floor') ?? NaN);
  const signRatio = (rateOf(sign16, 'signet') ?? NaN) / (rateOf(sign16, 'floor') ?? NaN);
  const policyAbiRatio = (rateOf(policyAbi16, 'signet') ?? NaN) / (rateOf(policyAbi16, 'floor') ?? NaN);
  const abiP50 = abi1 ? medianOf(abi1.targets.find((t) => t.role === 'signet')!.rounds, (r) => r.p50Ms) : undefined;
  out.push('');
  out.push('targets:');
  out.push(`  statements per new activity ${fmt(perNew, 2)} (target 1) ${check(perNew === undefined ? undefined : perNew <= 1.0001)}; init_otp_auth ${fmt(perOtp, 2)} (at most 2) ${check(perOtp === undefined ? undefined : perOtp <= 2.0001)}`);
  out.push(`  create_smart_contract_interface at 16 connections, root user: ${fmt(ratio, 2)}× the floor (at least 0.7×) ${check(Number.isFinite(ratio) ? ratio >= 0.7 : undefined)}`);
  out.push(`  the same by a user allowed by 1 of 20 policies: ${fmt(policyRatio, 2)}× the floor (at least 0.6×) ${check(Number.isFinite(policyRatio) ? policyRatio >= 0.6 : undefined)}`);
  out.push(`  sign_transaction (EIP-1559) at 16 connections: ${fmt(signRatio, 2)}× the floor that signs (at least 0.6×) ${check(Number.isFinite(signRatio) ? signRatio >= 0.6 : undefined)}`);
  out.push(`  the same by a user a policy reading the decoded calldata allows (policy-abi-16): ${fmt(policyAbiRatio, 2)}× the floor that signs (stated)`);
  out.push(`  400 KiB ABI at 1 connection: p50 ${fmt(abiP50, 1)} ms (at most 25 ms) ${check(abiP50 === undefined ? undefined : abiP50 <= 25)}`);
  out.push(`  idle RSS on PostgreSQL ${mib(idlePostgres)} (at most 130 MiB) ${check(idlePostgres === undefined ? undefined : idlePostgres <= 130)}; embedded ${mib(idleEmbedded)} (stated)`);
  const stolen = medianOf(results.flatMap((r) => r.targets.flatMap((t) => t.rounds)), (r) => r.stolen);
  if (stolen !== undefined && stolen > STOLEN_WARNING) {
    out.push(
      `  the hypervisor took ${fmt(100 * stolen, 0)}% of the CPUs (median of the rounds): the rates and the ratios are not those of a quiet ` +
        'machine and move from one run to the next; run again when the "stolen" column stays near 0%',
    );
  }
  if (args.profile) out.push('', ...whereTheTimeGoes(results));
  console.log(out.join('\n'));

  if (args.json) {
    fs.writeFileSync(args.json, JSON.stringify({ machine, seconds: SECONDS, rounds: ROUNDS, statements: Object.fromEntries(statements), idleRss: { postgres: idlePostgres, embedded: idleEmbedded }, results }, null, 2));
  }
} catch (error) {
  console.error(`bench: ${(error as Error).stack ?? error}`);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
