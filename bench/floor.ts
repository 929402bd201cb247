// The benchmark's floor (bench/run.ts): the least a server accepting stamped activities does per
// request — bare Fastify keeping the raw body, the API-key stamp checked as Signet checks it (P-256
// ECDSA over the raw bytes, the one public key parsed once), and one INSERT of the body. Its own process:
//   FLOOR_PORT=… FLOOR_DATABASE_URL=postgres://… FLOOR_PUBLIC_KEY=02… node --import tsx bench/floor.ts
import { createPublicKey, ECDH, randomUUID, verify } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const port = Number(process.env.FLOOR_PORT ?? 0);
const databaseUrl = process.env.FLOOR_DATABASE_URL;
const publicKeyHex = (process.env.FLOOR_PUBLIC_KEY ?? '').toLowerCase();
if (!databaseUrl || !/^0[23][0-9a-f]{64}$/.test(publicKeyHex)) {
  console.error('floor: set FLOOR_DATABASE_URL and FLOOR_PUBLIC_KEY (compressed P-256 key, hex)');
  process.exit(2);
}

// Parsed once: the cached key Signet keeps for a key that has authenticated.
const point = ECDH.convertKey(Buffer.from(publicKeyHex, 'hex'), 'prime256v1', undefined, undefined, 'uncompressed') as Buffer;
const key = createPublicKey({
  key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') },
  format: 'jwk',
});

// The pool Signet has by default (SIGNET_DATABASE_POOL_SIZE 10); the name tells the benchmark which backends are ours.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, application_name: 'signet-bench-floor' });
pool.on('error', () => {});
await pool.query(
  'CREATE TABLE IF NOT EXISTS floor_activities (id uuid PRIMARY KEY, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
);

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

const refuse = (message: string) => ({ code: 16, message });

app.post('/public/v1/submit/:activity', async (request, reply) => {
  const body = request.body as Buffer;
  const header = request.headers['x-stamp'];
  if (typeof header !== 'string' || header.length > 8192) return reply.status(401).send(refuse('missing stamp'));
  let stamp: { publicKey?: unknown; scheme?: unknown; signature?: unknown };
  try {
    stamp = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    return reply.status(401).send(refuse('malformed stamp'));
  }
  if (
    stamp.publicKey !== publicKeyHex ||
    stamp.scheme !== 'SIGNATURE_SCHEME_TK_API_P256' ||
    typeof stamp.signature !== 'string' ||
    !/^(?:[0-9a-f]{2}){8,72}$/.test(stamp.signature)
  ) {
    return reply.status(401).send(refuse('unknown key or malformed stamp'));
  }
  if (!verify('sha256', body, { key, dsaEncoding: 'der' }, Buffer.from(stamp.signature, 'hex'))) {
    return reply.status(401).send(refuse('bad signature'));
  }
  const id = randomUUID();
  await pool.query('INSERT INTO floor_activities (id, body) VALUES ($1, $2)', [id, body.toString('utf8')]);
  return reply.status(200).send({ activity: { id, status: 'ACTIVITY_STATUS_COMPLETED' } });
});
app.get('/healthz', async () => ({ ok: true }));

const address = await app.listen({ host: '127.0.0.1', port });
console.log(`floor listening on ${address}`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void app.close().then(() => pool.end()).then(() => process.exit(0));
  });
}
