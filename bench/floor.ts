// The benchmark's floor (bench/run.ts): the least a server accepting stamped activities does per
// request — bare Fastify keeping the raw body, the API-key stamp checked as Signet checks it (P-256
// ECDSA over the raw bytes, the one public key parsed once), and one INSERT of the body. With
// FLOOR_SIGNING_KEY (a secp256k1 private key, hex) it also signs, as a signing activity must: the body
// parsed, its parameters.unsignedTransaction (hex) hashed with Keccak-256 and signed with that key by
// the curve library Signet signs with (@noble/curves), the signature inserted beside the body. Its own process:
//   FLOOR_PORT=… FLOOR_DATABASE_URL=postgres://… FLOOR_PUBLIC_KEY=02… [FLOOR_SIGNING_KEY=…] node --import tsx bench/floor.ts
import { createPublicKey, ECDH, randomUUID, verify } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import Fastify from 'fastify';
import pg from 'pg';

const port = Number(process.env.FLOOR_PORT ?? 0);
const databaseUrl = process.env.FLOOR_DATABASE_URL;
const publicKeyHex = (process.env.FLOOR_PUBLIC_KEY ?? '').toLowerCase();
if (!databaseUrl || !/^0[23][0-9a-f]{64}$/.test(publicKeyHex)) {
  console.error('floor: set FLOOR_DATABASE_URL and FLOOR_PUBLIC_KEY (compressed P-256 key, hex)');
  process.exit(2);
}

const signingKeyHex = process.env.FLOOR_SIGNING_KEY;
if (signingKeyHex !== undefined && !/^[0-9a-f]{64}$/.test(signingKeyHex)) {
  console.error('floor: FLOOR_SIGNING_KEY is a secp256k1 private key, 64 hex digits');
  process.exit(2);
}
const signingKey = signingKeyHex === undefined ? undefined : Buffer.from(signingKeyHex, 'hex');

/** The transaction's signature, hex (r ‖ s ‖ recovery), or a refusal when the body holds no hex transaction. */
function signTransactionOf(body: Buffer, key: Uint8Array): string | undefined {
  let unsigned: unknown;
  try {
    unsigned = (JSON.parse(body.toString('utf8')) as { parameters?: { unsignedTransaction?: unknown } }).parameters?.unsignedTransaction;
  } catch {
    return undefined;
  }
  if (typeof unsigned !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(unsigned)) return undefined;
  const signature = secp256k1.sign(keccak_256(Buffer.from(unsigned, 'hex')), key);
  return signature.toCompactHex() + signature.recovery.toString(16).padStart(2, '0');
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
  'CREATE TABLE IF NOT EXISTS floor_activities (id uuid PRIMARY KEY, body text NOT NULL, signature text, created_at timestamptz NOT NULL DEFAULT now())',
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
  let signature: string | undefined;
  if (signingKey) {
    signature = signTransactionOf(body, signingKey);
    if (signature === undefined) return reply.status(400).send({ code: 3, message: 'parameters.unsignedTransaction: not hex' });
  }
  const id = randomUUID();
  await pool.query('INSERT INTO floor_activities (id, body, signature) VALUES ($1, $2, $3)', [id, body.toString('utf8'), signature ?? null]);
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
