// The restore drill of docs/backups.md, on real servers: a `signet serve` with organizations, an OTP
// login's session and an unused verification token is backed up while activities are being
// submitted to it; the backup is restored into a new, empty store and served; the restored server
// holds every activity completed before the backup began and none in part, publishes the same keys,
// and accepts the session and the verification token issued before. On the embedded store with
// `signet backup` / `signet restore`; on PostgreSQL with pg_dump / pg_restore and the same
// SIGNET_OTP_SECRET, the procedure the page gives for it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair, verifyOtpVerificationToken, verifySessionJwtSignature } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { runSql, type ServerStore, serverStore, testDatabases, urlWithSchema } from './support/databases.ts';
import { freePort, run, serve, signet, type Served } from './support/processes.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const ADMIN_TOKEN = 'backup-test-admin-token-0123456789-abcdef';
const OTP_SECRET = 'backup-test-otp-secret-0123456789-abcdefghijklmnop';
type KeyPair = ReturnType<typeof generateP256KeyPair>;
type Keys = Record<'otpEncryptionBundleSignerPublicKey' | 'verificationTokenSignerPublicKey' | 'sessionSignerPublicKey' | 'appProofSignerPublicKey', string>;

/** A running `signet serve` and how to reach it. */
interface Server {
  served: Served;
  baseUrl: string;
  env: Record<string, string>;
}

async function start(storeEnv: Record<string, string>, smtp: SmtpSink): Promise<Server> {
  const port = await freePort();
  const env = {
    ...storeEnv,
    SIGNET_PORT: String(port),
    SIGNET_URL: `http://127.0.0.1:${port}`,
    SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
    SIGNET_LOG_LEVEL: 'warn',
    SIGNET_SMTP_URL: smtp.url,
    SIGNET_EMAIL_FROM: 'otp@signet.test',
    SIGNET_OUTBOX_POLL_MS: '20',
  };
  const baseUrl = env.SIGNET_URL;
  return { served: await serve(env, baseUrl), baseUrl, env };
}

async function admin<T = any>(server: Server, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.baseUrl}/admin/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await response.json();
  assert.ok(response.ok, `admin ${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
  return json as T;
}

const keysOf = async (server: Server): Promise<Keys> => (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as Keys;
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

function client(server: Server, key: { apiPublicKey: string; apiPrivateKey: string }): TurnkeyClient {
  return new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper(key));
}

const envelope = (organizationId: string, type: string, parameters: object) => ({ type, timestampMs: String(Date.now()), organizationId, parameters }) as any;

/** init_otp and verify_otp V2 for a new user of the organization: its verification token and the key it is bound to. */
async function verificationToken(server: Server, smtp: SmtpSink, org: Organization, keys: Keys): Promise<{ token: string; key: KeyPair; userId: string }> {
  const email = `drill-${randomBytes(4).toString('hex')}@example.com`;
  const { userId } = await admin(server, 'POST', `/organizations/${org.organizationId}/users`, { email });
  const api = client(server, org);
  const init = (await api.initOtp(envelope(org.organizationId, 'ACTIVITY_TYPE_INIT_OTP_V3', { otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Drill' }))) as any;
  const { otpId, otpEncryptionTargetBundle } = init.activity.result.initOtpResultV2;
  const key = generateP256KeyPair();
  const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), otpEncryptionTargetBundle, key.publicKey, keys.otpEncryptionBundleSignerPublicKey);
  const verified = (await api.verifyOtp(envelope(org.organizationId, 'ACTIVITY_TYPE_VERIFY_OTP_V2', { otpId, encryptedOtpBundle }))) as any;
  return { token: verified.activity.result.verifyOtpResult.verificationToken, key, userId };
}

/** otp_login with a verification token, the session key being the token's own: the session JWT and the login's activity. */
async function login(server: Server, org: Organization, token: string, key: KeyPair): Promise<{ session: string; activityId: string }> {
  const message = JSON.stringify({ login: { publicKey: key.publicKey }, tokenId: claimsOf(token).id, type: 'USAGE_TYPE_LOGIN' });
  const signature = await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).sign(message, SignatureFormat.Raw);
  const clientSignature = { publicKey: key.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature };
  const answer = (await client(server, org).otpLogin(
    envelope(org.organizationId, 'ACTIVITY_TYPE_OTP_LOGIN_V2', { verificationToken: token, publicKey: key.publicKey, clientSignature }),
  )) as any;
  return { session: answer.activity.result.otpLoginResult.session, activityId: answer.activity.id };
}

interface Organization {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

/** A create_sub_organization activity the load submitted: its id, the sub-organization it made and when its answer came. */
interface Submitted {
  activityId: string;
  made: string;
  answeredAt: number;
}

const LOAD_TYPE = 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8';

/** Submits create_sub_organization from `workers` clients at once until stopped; each answer is recorded. */
function load(server: Server, org: Organization, workers: number) {
  const submitted: Submitted[] = [];
  let stopping = false;
  let failure: unknown;
  let count = 0;
  const run = randomBytes(3).toString('hex');
  const api = client(server, org);
  const loops = Array.from({ length: workers }, async () => {
    try {
      while (!stopping) {
        const n = ++count;
        const rootUser = { userName: 'root', userEmail: `load-${n}-${run}@example.com`, apiKeys: [], authenticators: [], oauthProviders: [] };
        const parameters = { subOrganizationName: `load-${n}`, rootUsers: [rootUser], rootQuorumThreshold: 1 };
        const { activity } = (await api.createSubOrganization(envelope(org.organizationId, LOAD_TYPE, parameters))) as any;
        assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
        submitted.push({ activityId: activity.id, made: activity.result.createSubOrganizationResultV8.subOrganizationId, answeredAt: Date.now() });
      }
    } catch (error) {
      failure ??= error;
      stopping = true;
    }
  });
  return {
    submitted,
    /** Resolves once `count` answers came; rejects with the load's failure. */
    async reach(count: number) {
      while (submitted.length < count) {
        if (failure) throw failure;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      stopping = true;
      await Promise.all(loops);
      if (failure) throw failure;
    },
  };
}

/** Every activity of the load the server holds: id → status and the sub-organization it made. */
async function loadActivities(server: Server, org: Organization): Promise<Map<string, { status: string; made?: string }>> {
  const found = new Map<string, { status: string; made?: string }>();
  const api = client(server, org);
  for (let after: string | undefined; ; ) {
    const { activities } = (await api.getActivities({
      organizationId: org.organizationId,
      filterByType: [LOAD_TYPE],
      paginationOptions: { limit: '100', ...(after ? { after } : {}) },
    } as any)) as any;
    if (activities.length === 0) return found;
    for (const a of activities) found.set(a.id, { status: a.status, made: a.result?.createSubOrganizationResultV8?.subOrganizationId });
    after = activities.at(-1).id;
  }
}

/** The ids of the sub-organizations the load made, as the admin API lists them. */
async function loadSubOrganizations(server: Server, org: Organization): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let after = ''; ; ) {
    const { subOrganizations } = await admin<{ subOrganizations: Array<{ organizationId: string; name: string }> }>(
      server,
      'GET',
      `/organizations/${org.organizationId}/suborgs?limit=500${after && `&after=${after}`}`,
    );
    if (subOrganizations.length === 0) return ids;
    for (const made of subOrganizations) if (made.name.startsWith('load-')) ids.add(made.organizationId);
    after = subOrganizations.at(-1)!.organizationId;
  }
}

/** What a store's kind of backup does: back up the running first server, and make the second store of the file. */
interface Procedure {
  backup(file: string): Promise<void>;
  /** The environment of the second server's store, restored from the file. */
  restore(file: string): Promise<Record<string, string>>;
  dispose(): Promise<void>;
}

function embeddedProcedure(first: () => Server, restoreDir: string): Procedure {
  return {
    async backup(file) {
      const done = await signet(['backup', file], first().env);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /^wrote .+ \(\d+\.\d MiB, mode 0600\): the embedded store as of \S+, from the server at http:\/\/127\.0\.0\.1:\d+ \(SIGNET_URL\), and the deployment secret \(from .+otp-secret\)\./);
    },
    async restore(file) {
      const env = { SIGNET_DATA_DIR: restoreDir, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' };
      const done = await signet(['restore', file], env);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /^restored .+ into .+: the embedded store as of \S+ \(schema \d+_\S+\.sql\) and the deployment secret \(.+otp-secret\)/);
      assert.equal(fs.statSync(path.join(restoreDir, 'otp-secret')).mode & 0o777, 0o600);
      assert.equal(fs.readFileSync(path.join(restoreDir, 'otp-secret'), 'utf8'), fs.readFileSync(path.join(first().env.SIGNET_DATA_DIR!, 'otp-secret'), 'utf8'));
      return env;
    },
    async dispose() {
      fs.rmSync(restoreDir, { recursive: true, force: true });
    },
  };
}

function postgresProcedure(url: string, schema: string, restoreDir: string): Procedure {
  const database = `signet_restore_${randomBytes(6).toString('hex')}`;
  const restoredUrl = new URL(url);
  restoredUrl.pathname = `/${database}`;
  const onServer = (sql: string) => runSql(url, sql);
  return {
    async backup(file) {
      const done = await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${file}`, url], {});
      assert.equal(done.code, 0, done.stderr);
    },
    async restore(file) {
      await onServer(`CREATE DATABASE ${database}`);
      const done = await run('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, file], {});
      assert.equal(done.code, 0, done.stderr);
      return { SIGNET_DATA_DIR: restoreDir, SIGNET_DATABASE_URL: urlWithSchema(restoredUrl.toString(), schema), SIGNET_OTP_SECRET: OTP_SECRET };
    },
    async dispose() {
      await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      fs.rmSync(restoreDir, { recursive: true, force: true });
    },
  };
}

function hasTool(name: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, name)));
}

for (const tdb of testDatabases) {
  describe(`backup and restore (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let store: ServerStore;
    let first: Server | undefined;
    let second: Server | undefined;
    let procedure: Procedure;
    let work: string;

    before(async () => {
      smtp = await startSmtpSink();
      store = await serverStore(tdb, 'signet_backup');
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-backup-'));
      const restoreDir = path.join(work, 'restored');
      if (tdb.url) {
        const schema = new URL(store.env.SIGNET_DATABASE_URL).searchParams.get('options')!.replace('-c search_path=', '');
        procedure = postgresProcedure(tdb.url, schema, restoreDir);
      } else {
        procedure = embeddedProcedure(() => first!, restoreDir);
      }
    });
    after(async () => {
      for (const server of [first, second]) if (server && server.served.child.exitCode === null) await server.served.stop();
      await procedure?.dispose();
      await store?.dispose();
      await smtp?.close();
      fs.rmSync(work, { recursive: true, force: true });
    });

    test('a backup taken under load restores every activity completed before it, none in part, the same keys, sessions and tokens', async (t) => {
      if (tdb.url && (!hasTool('pg_dump') || !hasTool('pg_restore'))) return t.skip('needs pg_dump and pg_restore on the PATH, the tools the PostgreSQL procedure uses');
      first = await start({ ...store.env, SIGNET_OTP_SECRET: tdb.url ? OTP_SECRET : '' }, smtp);
      const org = await admin<Organization>(first, 'POST', '/organizations', { name: 'Backed up' });
      const keys = await keysOf(first);
      // A session from an OTP login, and a verification token not used yet.
      const used = await verificationToken(first, smtp, org, keys);
      const { session, activityId: loginId } = await login(first, org, used.token, used.key);
      const unused = await verificationToken(first, smtp, org, keys);

      if (!tdb.url) {
        // A secret that is not the server's is refused: the file would hold a store without its secret.
        const wrong = await signet(['backup', path.join(work, 'wrong.backup')], { ...first.env, SIGNET_OTP_SECRET: OTP_SECRET });
        assert.equal(wrong.code, 1);
        assert.match(wrong.stderr, /^signet: the deployment secret this command read is not the one of the server at http:\/\/127\.0\.0\.1:\d+: run signet backup with the server's SIGNET_OTP_SECRET/);
        assert.equal(fs.existsSync(path.join(work, 'wrong.backup')), false);
      }

      const traffic = load(first, org, 4);
      await traffic.reach(20);
      const file = path.join(work, tdb.url ? 'signet.dump' : 'signet.backup');
      const began = Date.now();
      const completedBefore = traffic.submitted.filter((s) => s.answeredAt <= began);
      await procedure.backup(file);
      const ended = Date.now();
      // Leave some more after it: they must not be in the backup, nor break it.
      await traffic.reach(traffic.submitted.length + 10);
      await traffic.stop();
      const during = traffic.submitted.filter((s) => s.answeredAt > began && s.answeredAt < ended);
      assert.ok(during.length > 0, 'activities were completed while the backup was taken');
      if (!tdb.url) assert.equal(fs.statSync(file).mode & 0o777, 0o600);

      await first.served.stop();
      second = await start(await procedure.restore(file), smtp);

      // The same signing keys, unsealed by the same secret: what was signed before verifies.
      assert.deepEqual(await keysOf(second), keys);
      assert.equal(await verifySessionJwtSignature(session, keys.sessionSignerPublicKey), true);
      const claims = await verifyOtpVerificationToken(unused.token, (await keysOf(second)).verificationTokenSignerPublicKey);
      assert.equal(claims.organization_id, org.organizationId);
      // The session's key stamps requests to the restored server.
      const asSession = client(second, { apiPublicKey: used.key.publicKey, apiPrivateKey: used.key.privateKey });
      const seen = (await asSession.getActivity({ organizationId: org.organizationId, activityId: loginId })) as any;
      assert.equal(seen.activity.id, loginId);
      // The token issued before logs in on the restored server, which signs the new session with the same key.
      const later = await login(second, org, unused.token, unused.key);
      assert.equal(await verifySessionJwtSignature(later.session, keys.sessionSignerPublicKey), true);
      assert.equal(claimsOf(later.session).user_id, unused.userId);

      // Activities: every one answered before the backup began; none that was not submitted; none in part.
      const restored = await loadActivities(second, org);
      const submitted = new Map(traffic.submitted.map((s) => [s.activityId, s]));
      for (const s of completedBefore) assert.equal(restored.get(s.activityId)?.status, 'ACTIVITY_STATUS_COMPLETED', `activity ${s.activityId} completed before the backup`);
      const made = await loadSubOrganizations(second, org);
      for (const [activityId, activity] of restored) {
        assert.ok(submitted.has(activityId), `activity ${activityId} was submitted`);
        assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
        assert.equal(activity.made, submitted.get(activityId)!.made);
        assert.ok(made.has(activity.made!), `the sub-organization of activity ${activityId} is there`);
      }
      // And no sub-organization of the load without its activity.
      assert.equal(made.size, restored.size);
      assert.ok(restored.size < traffic.submitted.length, 'the activities after the backup are not in it');
      t.diagnostic(`backup took ${ended - began} ms; ${completedBefore.length} activities before the backup, ${during.length} during it, ${restored.size} restored of ${traffic.submitted.length}`);
    });

    if (!tdb.url) {
      test('restore refuses a data folder that holds a store or a secret, and a file that is no backup; backup does not overwrite', async () => {
        const file = path.join(work, 'signet.backup');
        assert.ok(fs.existsSync(file), 'the backup of the test before');
        const restoredDir = path.join(work, 'restored');
        const again = await signet(['restore', file], { SIGNET_DATA_DIR: restoredDir, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' });
        assert.equal(again.code, 1);
        assert.equal(again.stderr, `signet: cannot restore into SIGNET_DATA_DIR ${restoredDir}: it already holds a store (${path.join(restoredDir, 'pglite')}); restore into an empty data folder\n`);

        const onlySecret = path.join(work, 'only-secret');
        fs.mkdirSync(onlySecret);
        fs.writeFileSync(path.join(onlySecret, 'otp-secret'), `${OTP_SECRET}\n`, { mode: 0o600 });
        const secretThere = await signet(['restore', file], { SIGNET_DATA_DIR: onlySecret, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' });
        assert.equal(secretThere.code, 1);
        assert.match(secretThere.stderr, /it already holds a deployment secret \(.+only-secret\/otp-secret\); restore into an empty data folder/);

        const empty = path.join(work, 'empty');
        const otherSecret = await signet(['restore', file], { SIGNET_DATA_DIR: empty, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: OTP_SECRET });
        assert.equal(otherSecret.code, 1);
        assert.match(otherSecret.stderr, /^signet: SIGNET_OTP_SECRET is set and is not the backup's deployment secret/);

        const notBackup = path.join(work, 'notes.txt');
        fs.writeFileSync(notBackup, 'not a backup\n'.repeat(10_000));
        for (const wrong of [notBackup, path.join(work, 'signet.dump-absent')]) {
          const refused = await signet(['restore', wrong], { SIGNET_DATA_DIR: empty, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' });
          assert.equal(refused.code, 1);
          assert.match(refused.stderr, wrong === notBackup ? /is not a Signet backup/ : /^signet: cannot read .+signet\.dump-absent: ENOENT/);
        }
        const truncated = path.join(work, 'truncated.backup');
        fs.writeFileSync(truncated, fs.readFileSync(file).subarray(0, fs.statSync(file).size - 1000));
        const short = await signet(['restore', truncated], { SIGNET_DATA_DIR: empty, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' });
        assert.equal(short.code, 1);
        assert.match(short.stderr, /truncated\.backup is truncated/);
        assert.equal(fs.existsSync(empty), false, 'nothing was written by a refused restore');

        // With SIGNET_OTP_SECRET set to the backup's secret, restore writes the store and no secret file.
        const secret = JSON.parse(fs.readFileSync(file).subarray(0, 4096).toString('utf8').split('\n')[0]!).secret;
        const withSecret = path.join(work, 'with-secret');
        const restoredWithSecret = await signet(['restore', file], { SIGNET_DATA_DIR: withSecret, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: secret });
        assert.equal(restoredWithSecret.code, 0, restoredWithSecret.stderr);
        assert.match(restoredWithSecret.stdout, /and the deployment secret \(SIGNET_OTP_SECRET, which is the same\)/);
        assert.deepEqual(fs.readdirSync(withSecret), ['pglite']);

        const overwrite = await signet(['backup', file], { SIGNET_DATA_DIR: store.dataDir, SIGNET_DATABASE_URL: '' });
        assert.equal(overwrite.code, 1);
        assert.match(overwrite.stderr, /already exists: choose another FILE, or pass --force to replace it/);
      });

      test('with no server running, signet backup opens the data folder itself', async () => {
        const file = path.join(work, 'offline.backup');
        const done = await signet(['backup', file], { SIGNET_DATA_DIR: store.dataDir, SIGNET_DATABASE_URL: '', SIGNET_OTP_SECRET: '' });
        assert.equal(done.code, 0, done.stderr);
        assert.match(done.stdout, /from .+pglite \(no server was running on it\)/);
        assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        const header = JSON.parse(fs.readFileSync(file).subarray(0, 4096).toString('utf8').split('\n')[0]!);
        assert.deepEqual(Object.keys(header), ['format', 'version', 'signetVersion', 'createdAt', 'store', 'secret', 'secretFrom', 'dataBytes', 'dataSha256']);
        assert.equal(header.format, 'signet-backup');
        assert.equal(header.secret, fs.readFileSync(path.join(store.dataDir, 'otp-secret'), 'utf8').trim());
      });
    } else {
      test('signet backup on PostgreSQL says to use pg_dump and keep SIGNET_OTP_SECRET, and writes nothing', async () => {
        const file = path.join(work, 'refused.backup');
        const refused = await signet(['backup', file], { ...store.env, SIGNET_OTP_SECRET: OTP_SECRET });
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /^signet: signet backup copies the embedded store, and this configuration uses PostgreSQL \(SIGNET_DATABASE_URL\): back that database up with pg_dump --format=custom, and keep SIGNET_OTP_SECRET with the dump \(docs\/backups\.md\)\n$/);
        assert.equal(fs.existsSync(file), false);
      });
    }
  });
}
