// The sub-organization row of the benchmark: a parent with 100,000 sub-organizations (inserted with
// SQL, one user each with a verified email), then list_verified_suborgs by email through the whole
// HTTP stack (stamp check, credential check in the statement, the page read from the indexes), one
// request at a time, interleaved with whoami as a baseline; prints p50 and p99, and the plans (EXPLAIN
// ANALYZE) of its statement and of whoami's and get_user's. On PostgreSQL (BENCH_DATABASE_URL, a fresh
// database dropped at the end) and on the embedded store.
//   node --import tsx bench/subOrganizations.ts [--count 100000] [--requests 2000] [--store postgres,embedded]
import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import pg from 'pg';
import { createOrganization } from '../src/admin/organizations.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { subOrganizationsStatement, type SubOrganizationFilter } from '../src/store/subOrganizations.ts';
import { credentialedStatement } from '../src/store/credentials.ts';
import { run, sql, type Sql } from '../src/store/sql.ts';
import { userStatement, whoamiStatement } from '../src/store/users.ts';
import { USER_CREDENTIALS_LIMIT } from '../src/queries/users.ts';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '200' },
    store: { type: 'string', default: 'postgres,embedded' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const COUNT = Number(args.count);
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(store: 'postgres' | 'embedded'): Promise<string[]> {
  const out: string[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-suborgs-'));
  let dropDatabase: (() => Promise<void>) | undefined;
  let databaseUrl = '';
  if (store === 'postgres') {
    const adminUrl = new URL(args['database-url']);
    const name = `signet_bench_suborgs_${process.pid}`;
    const admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
  const config = loadConfig({
    SIGNET_PORT: '0',
    SIGNET_DATA_DIR: dataDir,
    SIGNET_ADMIN_TOKEN: 'bench-admin-token-0123456789-abcdefghij',
    SIGNET_OUTBOX_WORKER: 'false',
    ...(databaseUrl ? { SIGNET_DATABASE_URL: databaseUrl } : {}),
  });
  const server = await startServer(config);
  try {
    const { db } = server;
    const parent = await createOrganization(db, { name: 'bench parent' });
    const seeded = performance.now();
    // Sub-organizations created a second apart, newest last; each with one user whose email is verified.
    // Seeding takes longer than the statement timeout requests get.
    await db.transaction(async (tx) => {
      await run(
        tx,
        sql`INSERT INTO organizations (id, name, parent_id, created_at)
            SELECT gen_random_uuid(), 'sub ' || i, ${parent.organizationId}::uuid, now() - make_interval(secs => ${COUNT}::int - i)
              FROM generate_series(1, ${COUNT}::int) AS i`,
      );
      await run(
        tx,
        sql`INSERT INTO users (id, organization_id, user_name, email, email_verified_at, created_at, updated_at)
            SELECT gen_random_uuid(), o.id, o.name, 'user' || substr(o.name, 5) || '@bench.example', now(), o.created_at, o.created_at
              FROM organizations o WHERE o.parent_id = ${parent.organizationId}::uuid`,
      );
    }, { unbounded: true });
    await db.query('ANALYZE organizations');
    await db.query('ANALYZE users');
    out.push(`${store}: ${COUNT} sub-organizations seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    // Bodies stamped beforehand (a query carries no timestamp): each names another sub-organization's email.
    const stamper = new ApiKeyStamper({ apiPublicKey: parent.apiPublicKey, apiPrivateKey: parent.apiPrivateKey! });
    const bodies = await Promise.all(
      Array.from({ length: 64 }, async (_, i) => {
        const body = JSON.stringify({
          organizationId: parent.organizationId,
          filterType: 'EMAIL',
          filterValue: `User${1 + ((i * 1543) % COUNT)}@Bench.example`,
        });
        const stamp = await stamper.stamp(body);
        return { body, headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue } };
      }),
    );
    // whoami through the same stack, interleaved request by request, as the baseline: what any stamped
    // query costs here (stamp check, credential check, one small statement), whatever else loads the machine.
    const whoamiBody = JSON.stringify({ organizationId: parent.organizationId });
    const whoamiStamp = await stamper.stamp(whoamiBody);
    const whoami = { body: whoamiBody, headers: { 'content-type': 'application/json', [whoamiStamp.stampHeaderName]: whoamiStamp.stampHeaderValue } };
    const latencies = { verified: [] as number[], whoami: [] as number[] };
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      for (const which of ['verified', 'whoami'] as const) {
        const { body, headers } = which === 'verified' ? bodies[i % bodies.length]! : whoami;
        const started = performance.now();
        const response = await fetch(`${server.url}/public/v1/query/${which === 'verified' ? 'list_verified_suborgs' : 'whoami'}`, { method: 'POST', headers, body });
        const answer = (await response.json()) as { organizationIds?: string[] };
        const elapsed = performance.now() - started;
        if (response.status !== 200 || (which === 'verified' && answer.organizationIds?.length !== 1)) throw new Error(`${which} answered ${response.status} ${JSON.stringify(answer)}`);
        if (i >= WARMUP) latencies[which].push(elapsed);
      }
    }
    for (const [which, list] of Object.entries(latencies)) {
      list.sort((a, b) => a - b);
      out.push(
        `${store}: ${which === 'verified' ? 'list_verified_suborgs by email' : 'whoami (baseline)'}, ${REQUESTS} requests one at a time: p50 ${percentile(list, 50).toFixed(2)} ms, p99 ${percentile(list, 99).toFixed(2)} ms`,
      );
    }

    // The statements' plans (without the credential check around them, which reads one API key by id):
    // list_verified_suborgs in full, then the scans of each list_suborgs filter and of no filter.
    const explain = async (filter?: SubOrganizationFilter) => {
      const page = { limit: 10, maxBytes: 8 * 1024 * 1024 };
      const statement = subOrganizationsStatement(parent.organizationId, filter, page);
      const rows = await run<Record<string, string>>(db, sql`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ${statement}`);
      return rows.map((row) => Object.values(row)[0]!);
    };
    out.push(`${store}: plan of list_verified_suborgs (EMAIL):`, ...(await explain({ kind: 'VERIFIED_EMAIL', value: 'user77777@bench.example' })).map((line) => `    ${line}`));
    // whoami and get_user, on every login too: each one statement, the credential check included.
    const credential = { kind: 'apiKey' as const, apiKeyId: parent.apiKeyId, now: new Date() };
    const plan = async (statement: Sql) =>
      (await run<Record<string, string>>(db, sql`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ${credentialedStatement(credential, statement)}`)).map(
        (row) => `    ${Object.values(row)[0]!}`,
      );
    out.push(`${store}: plan of whoami:`, ...(await plan(whoamiStatement(parent.organizationId, parent.userId))));
    out.push(
      `${store}: plan of get_user:`,
      ...(await plan(userStatement({ organizationId: parent.organizationId, userId: parent.userId, now: new Date(), credentialsLimit: USER_CREDENTIALS_LIMIT }))),
    );
    const filters: Array<[string, SubOrganizationFilter | undefined]> = [
      ['no filter', undefined],
      ['NAME', { kind: 'NAME', value: 'sub 77777' }],
      ['USERNAME', { kind: 'USERNAME', value: 'sub 77777' }],
      ['EMAIL', { kind: 'EMAIL', value: 'user77777@bench.example' }],
      ['PHONE_NUMBER', { kind: 'PHONE_NUMBER', value: '+14155550100' }],
      ['CREDENTIAL_ID', { kind: 'CREDENTIAL_ID', value: 'AAAA' }],
      ['PUBLIC_KEY', { kind: 'PUBLIC_KEY', value: parent.apiPublicKey }],
    ];
    for (const [label, filter] of filters) {
      const scans = (await explain(filter)).filter((line) => /Scan|Cond/.test(line)).map((line) => line.trim().replace(/^->\s*/, ''));
      out.push(`${store}: list_suborgs ${label}: ${scans.join('; ')}`);
    }
  } finally {
    await server.close();
    await dropDatabase?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

for (const store of args.store.split(',').map((s) => s.trim()).filter(Boolean)) {
  if (store !== 'postgres' && store !== 'embedded') throw new Error(`--store takes postgres and embedded, got ${store}`);
  console.log((await measure(store)).join('\n'));
}
