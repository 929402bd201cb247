// Submission throughput and latency through the real HTTP stack, on PGlite and (when
// SIGNET_TEST_DATABASE_URL is set) PostgreSQL. Bodies are stamped before the clock starts, so the
// figures are the server's. Bounded: BENCH_REQUESTS per run (default 1000), BENCH_CONCURRENCY
// (default 16), loopback only. Run: npm run bench
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { createOrganization } from '../src/admin/organizations.ts';
import { loadConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

interface Prepared {
  path: string;
  body: string;
  headers: Record<string, string>;
}

async function prepare(db: Database, kind: 'contract' | 'otp'): Promise<Prepared[]> {
  const org = await createOrganization(db, { name: `bench ${kind}` });
  const stamper = new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey! });
  const prepared: Prepared[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const parameters =
      kind === 'contract'
        ? {
            smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
            smartContractInterface: JSON.stringify([{ type: 'function', name: 'transfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }] }]),
            type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
            label: `bench ${i}`,
          }
        : { otpType: 'OTP_TYPE_EMAIL', contact: `user${i}@example.com`, appName: 'Bench' };
    const body = JSON.stringify({
      type: kind === 'contract' ? 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE' : 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
      timestampMs: String(Date.now()),
      organizationId: org.organizationId,
      parameters,
    });
    const stamp = await stamper.stamp(body);
    prepared.push({
      path: kind === 'contract' ? '/public/v1/submit/create_smart_contract_interface' : '/public/v1/submit/init_otp_auth',
      body,
      headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
    });
  }
  return prepared;
}

async function drive(baseUrl: string, requests: Prepared[]) {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const t0 = performance.now();
        const response = await fetch(baseUrl + request.path, { method: 'POST', headers: request.headers, body: request.body });
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (response.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
  return { rps: (requests.length / seconds).toFixed(0), p50: pct(50), p95: pct(95), p99: pct(99), failures };
}

async function bench(store: string, open: () => Promise<Database>, cleanup: () => Promise<void>) {
  const db = await open();
  await migrate(db);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-'));
  const config = loadConfig({ SIGNET_PORT: '0', SIGNET_DATA_DIR: dataDir, SIGNET_ADMIN_TOKEN: 'bench', SIGNET_OUTBOX_WORKER: 'false' });
  const server = await startServer(config, { db });
  try {
    for (const kind of ['contract', 'otp'] as const) {
      const requests = await prepare(db, kind);
      const r = await drive(server.url, requests);
      const activity = kind === 'contract' ? 'create_smart_contract_interface' : 'init_otp_auth';
      console.log(
        `${store.padEnd(9)} ${activity.padEnd(32)} ${String(REQUESTS).padStart(5)} req  c=${CONCURRENCY}  ` +
          `${r.rps.padStart(5)} req/s  p50 ${r.p50} ms  p95 ${r.p95} ms  p99 ${r.p99} ms  non-200: ${r.failures}`,
      );
    }
    const replay = await prepare(db, 'contract');
    await drive(server.url, replay);
    const again = await drive(server.url, replay);
    console.log(`${store.padEnd(9)} ${'resubmission (idempotent read)'.padEnd(32)} ${String(REQUESTS).padStart(5)} req  c=${CONCURRENCY}  ${again.rps.padStart(5)} req/s  p50 ${again.p50} ms  p95 ${again.p95} ms  p99 ${again.p99} ms  non-200: ${again.failures}`);
  } finally {
    await server.close();
    await db.close();
    await cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`node ${process.version}, ${os.cpus().length} cores; bodies stamped before timing; outbox worker off`);
await bench('pglite', () => openDatabase({}), async () => {});
const url = process.env.SIGNET_TEST_DATABASE_URL;
if (url) {
  const schema = `signet_bench_${process.pid}`;
  await bench('postgres', () => openDatabase({ url, schema }), async () => {
    const db = await openDatabase({ url });
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
  });
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (server and client in one process)`);
