// A store written by the previous release opens with today's code: test/fixtures/release-0.1.0.sql
// is a pg_dump of a PostgreSQL database that release 0.1.0 served (scripts/make-upgrade-fixture.ts
// made it by driving that release with stamped requests), and release-0.1.0.json holds its keys and
// what it answered. The dump is loaded into a fresh PostgreSQL database, or executed in a new
// embedded store, without its psql meta-commands (`\restrict` and the like, the only lines psql alone
// understands). Then `signet migrate --status` lists its migrations as applied and today's new ones
// as pending, `--dry-run` applies those and changes nothing, `signet migrate` applies them, and a
// `signet serve` on the store answers as release 0.1.0 did: the same activities with the same
// fingerprints, the same organization, users and root quorum, and its keys still stamp. A pending
// migration that would fail is named by --dry-run and by signet migrate, and changes nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../src/store/db.ts';
import { migrationNames } from '../src/store/migrate.ts';
import { emptyEmbeddedImage, runSql, serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { freePort, ROOT, serve, signet, type Served } from './support/processes.ts';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'release-0.1.0');
const fixture = JSON.parse(fs.readFileSync(`${FIXTURE}.json`, 'utf8'));
const ADMIN_TOKEN = 'upgrade-admin-token-0123456789-abcdefghij';

/** The dump as plain SQL statements: psql's meta-commands (lines starting with a backslash) dropped. */
function dumpSql(): string {
  return fs
    .readFileSync(`${FIXTURE}.sql`, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
}

interface LoadedStore {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** The fixture in a fresh store: its own PostgreSQL database, or an embedded store in a new folder. */
async function loadFixture(url: string | undefined): Promise<LoadedStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-upgrade-'));
  if (url) {
    const database = `signet_upgrade_${randomBytes(6).toString('hex')}`;
    await runSql(url, `CREATE DATABASE ${database}`);
    const databaseUrl = Object.assign(new URL(url), { pathname: `/${database}` }).toString();
    await runSql(databaseUrl, dumpSql());
    return {
      env: { SIGNET_DATA_DIR: dataDir, SIGNET_DATABASE_URL: databaseUrl },
      async dispose() {
        await runSql(url, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  // From the image of an empty store: the dump needs no migration, and no initdb runs.
  const db = await openDatabase({ dataDir: path.join(dataDir, 'pglite'), image: await emptyEmbeddedImage() });
  try {
    await db.exec(dumpSql());
  } finally {
    await db.close();
  }
  return {
    env: { SIGNET_DATA_DIR: dataDir, SIGNET_DATABASE_URL: '' },
    dispose: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

for (const tdb of testDatabases) {
  describe(`a store of release 0.1.0 opens with this version (${tdb.name})`, () => {
    let store: LoadedStore;
    let served: Served | undefined;
    let baseUrl: string;
    let env: Record<string, string>;
    const pending = migrationNames().filter((name) => !fixture.migrations.includes(name));

    before(async () => {
      store = await loadFixture(tdb.url);
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      env = { ...store.env, SIGNET_PORT: String(port), SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_OTP_SECRET: fixture.otpSecret, SIGNET_LOG_LEVEL: 'warn' };
    });
    after(async () => {
      await served?.stop();
      await store?.dispose();
    });

    const status = async () => {
      const run = await signet(['migrate', '--status', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      return JSON.parse(run.stdout) as { applied: Array<{ name: string; appliedAt: string; known: boolean }>; pending: string[] };
    };

    test("--status lists the release's migrations as applied, with when, and this version's new ones as pending", async () => {
      const { applied, pending: listed } = await status();
      assert.deepEqual(applied.map((m) => m.name), fixture.migrations);
      assert.ok(applied.every((m) => m.known && !Number.isNaN(Date.parse(m.appliedAt))));
      assert.deepEqual(listed, pending);
      const text = await signet(['migrate', '--status'], env);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^applied {2}001_core\.sql {2}\d{4}-\d\d-\d\dT/m);
      assert.match(text.stdout, pending.length ? new RegExp(`^${pending.length} pending: `, 'm') : /^schema is up to date: \d+ applied, none pending$/m);
    });

    test('--dry-run applies the pending migrations and rolls them back: nothing changes', async () => {
      const run = await signet(['migrate', '--dry-run'], env);
      assert.equal(run.code, 0, run.stderr);
      for (const name of pending) assert.match(run.stdout, new RegExp(`^would apply ${name.replace('.', '\\.')}$`, 'm'));
      assert.match(run.stdout, /nothing was changed\n$/);
      assert.deepEqual((await status()).pending, pending);
    });

    test('signet migrate applies the pending ones; none is pending after', async () => {
      const run = await signet(['migrate', '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { applied: pending });
      const after = await status();
      assert.deepEqual(after.pending, []);
      assert.deepEqual(after.applied.map((m) => m.name), migrationNames());
    });

    test('a server on it lists and fetches the activities with their original fingerprints', async () => {
      served = await serve(env, baseUrl);
      const { acme } = fixture;
      const listed = await postStamped(baseUrl, '/public/v1/query/list_activities', JSON.stringify({ organizationId: acme.organizationId, paginationOptions: { limit: '100' } }), acme);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.json.activities.map((a: { id: string }) => a.id), fixture.acmeActivityIds);
      const keysOf: Record<string, { apiPublicKey: string; apiPrivateKey: string }> = {
        [acme.organizationId]: acme,
        [fixture.globex.organizationId]: fixture.globex,
        [fixture.subOrganization.organizationId]: fixture.subOrganization,
      };
      const types = new Set<string>();
      for (const expected of fixture.activities) {
        const read = await postStamped(baseUrl, '/public/v1/query/get_activity', JSON.stringify({ organizationId: expected.organizationId, activityId: expected.id }), keysOf[expected.organizationId]!);
        assert.equal(read.status, 200, read.text);
        const { id, type, status, fingerprint } = read.json.activity;
        assert.deepEqual({ organizationId: expected.organizationId, id, type, status, fingerprint }, expected);
        types.add(type);
      }
      assert.ok(types.size >= 5, [...types].join(', '));
    });

    test("get_organization shows the users and the root quorum; the release's keys still stamp new activities", async () => {
      const { acme, bob, subOrganization } = fixture;
      const organization = await postStamped(baseUrl, '/public/v1/query/get_organization', JSON.stringify({ organizationId: acme.organizationId }), bob);
      assert.equal(organization.status, 200, organization.text);
      const data = organization.json.organizationData;
      assert.equal(data.name, 'Acme');
      assert.deepEqual(data.users.map((u: { userId: string }) => u.userId).sort(), [acme.userId, bob.userId].sort());
      assert.equal(data.users.find((u: { userId: string }) => u.userId === bob.userId).userEmail, 'bob@example.com');
      assert.deepEqual(data.rootQuorum, { threshold: 1, userIds: [acme.userId] });
      assert.deepEqual(data.policies.map((p: { policyId: string }) => p.policyId), [fixture.policyId]);

      const body = JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
        timestampMs: String(Date.now()),
        organizationId: acme.organizationId,
        parameters: { smartContractAddress: '0x514910771AF9Ca656af840dff83E8264EcF986CA', smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'after the upgrade' },
      });
      const created = await postStamped(baseUrl, '/public/v1/submit/create_smart_contract_interface', body, acme);
      assert.equal(created.status, 200, created.text);
      assert.equal(created.json.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const interfaces = await postStamped(baseUrl, '/public/v1/query/list_smart_contract_interfaces', JSON.stringify({ organizationId: acme.organizationId }), acme);
      assert.ok(interfaces.json.smartContractInterfaces.some((i: { smartContractInterfaceId: string }) => i.smartContractInterfaceId === fixture.smartContractInterfaceId));

      const whoami = await postStamped(baseUrl, '/public/v1/query/whoami', JSON.stringify({ organizationId: subOrganization.organizationId }), subOrganization);
      assert.equal(whoami.status, 200, whoami.text);
      assert.equal(whoami.json.userId, subOrganization.userId);
    });

    test('while the server holds the embedded store, signet migrate --status and --dry-run say so', { skip: tdb.url ? 'PostgreSQL is shared by every process; only the embedded store is held' : false }, async () => {
      for (const flag of ['--status', '--dry-run']) {
        const run = await signet(['migrate', flag], env);
        assert.equal(run.code, 2, run.stdout);
        assert.match(run.stderr, /the embedded store in .* is in use by process \d+ \(signet serve on .*\); stop it first/);
      }
    });
  });
}

for (const tdb of testDatabases) {
  describe(`signet migrate --dry-run names the migration that would fail (${tdb.name})`, () => {
    let store: ServerStore;
    after(() => store?.dispose());

    test('a pending migration that fails: --status lists it, --dry-run exits 1 naming it and the error, and nothing changes', async () => {
      store = await serverStore(tdb, 'signet_dry_run');
      const migrated = await signet(['migrate'], store.env);
      assert.equal(migrated.code, 0, migrated.stderr);
      // 001 forgotten while its tables stay: applying it again fails.
      const db = await store.open();
      await db.query("DELETE FROM schema_migrations WHERE name = '001_core.sql'");
      await db.close();

      const status = await signet(['migrate', '--status'], store.env);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /^pending {2}001_core\.sql$/m);
      assert.match(status.stdout, /^1 pending: `signet migrate` applies them/m);
      const dryRun = await signet(['migrate', '--dry-run'], store.env);
      assert.equal(dryRun.code, 1, dryRun.stdout);
      assert.match(dryRun.stderr, /^signet: --dry-run: migration 001_core\.sql would fail: .*already exists; nothing was changed\n$/);
      const start = await signet(['migrate'], store.env);
      assert.equal(start.code, 1);
      assert.match(start.stderr, /^signet: migration 001_core\.sql failed: .*already exists; nothing was applied\n$/);
      assert.equal((await signet(['migrate', '--status'], store.env)).stdout, status.stdout);
    });
  });
}

test('on a data folder without an embedded store yet, --status and --dry-run say the first start makes it with every migration applied, and create nothing', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-no-store-'));
  try {
    const env = { SIGNET_DATA_DIR: dataDir, SIGNET_DATABASE_URL: '' };
    const status = await signet(['migrate', '--status', '--json'], env);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout), { applied: [], pending: [] });
    const dryRun = await signet(['migrate', '--dry-run'], env);
    assert.equal(dryRun.code, 0, dryRun.stderr);
    assert.equal(
      dryRun.stdout,
      `no embedded store in ${path.join(dataDir, 'pglite')} yet: the first \`signet serve\` or \`signet migrate\` makes it with ` +
        `this version's ${migrationNames().length} migrations already applied, so none will be pending\n`,
    );
    assert.deepEqual(fs.readdirSync(dataDir), []);
    // And so it does: the new store's status lists every migration applied.
    assert.equal((await signet(['migrate'], env)).stdout, 'schema is up to date\n');
    const made = JSON.parse((await signet(['migrate', '--status', '--json'], env)).stdout);
    assert.deepEqual(made.pending, []);
    assert.deepEqual(made.applied.map((m: { name: string }) => m.name), migrationNames());
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
