// The service's own P-256 signing keys (verification tokens, App Proofs), one active key per
// purpose, created on first use and kept in the store with the private half sealed under the
// deployment secret.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { sql } from './sql.ts';
import { seal, unseal } from '../wire/sealed.ts';

export interface PublicKeyJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
}

// A key of its own, so OTP hashes, outbox ciphertexts and sealed signing keys never share one.
const SEAL_LABEL = 'signet signing-key encryption v1';

interface SigningKeyRow {
  kid: string;
  algorithm: string;
  public_jwk: PublicKeyJwk;
  encrypted_private_key: string;
}

function sealKey(secret: Buffer, kid: string, plaintext: Buffer): string {
  return seal(secret, SEAL_LABEL, kid, plaintext);
}

/** A signing key of the store that the deployment secret in use does not open: the store was made with another secret. */
export class SealedUnderAnotherSecret extends Error {
  override name = 'SealedUnderAnotherSecret';
  constructor(readonly kid: string) {
    super(
      `signing key ${kid} cannot be decrypted with this deployment's secret: every Signet process sharing ` +
        'the database must use the same SIGNET_OTP_SECRET',
    );
  }
}

function openKey(secret: Buffer, kid: string, sealed: string): Buffer {
  try {
    return unseal(secret, SEAL_LABEL, kid, sealed);
  } catch {
    // A start checks this first (server.ts); past it, logged by the HTTP layer as a 500.
    throw new SealedUnderAnotherSecret(kid);
  }
}

async function selectActiveKey(tx: Queryable, purpose: string): Promise<SigningKeyRow | undefined> {
  const [row] = await tx.query<SigningKeyRow>(
    `SELECT kid, algorithm, public_jwk, encrypted_private_key
       FROM signing_keys WHERE purpose = $1 AND retired_at IS NULL`,
    [purpose],
  );
  return row;
}

/**
 * The active signing key, created on first use. Several processes may race to create it: each
 * inserts its own candidate with ON CONFLICT DO NOTHING on the one-active-key-per-purpose index, and
 * all then read the row that won (under READ COMMITTED the second SELECT sees the winner's commit).
 */
export async function activeSigningKey(
  tx: Queryable,
  secret: Buffer,
  key: { purpose: string; algorithm: string },
): Promise<{ kid: string; privateKey: KeyObject; publicJwk: PublicKeyJwk }> {
  let row = await selectActiveKey(tx, key.purpose);
  if (!row) {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
    const publicJwk = { kty: kty!, crv: crv!, x: x!, y: y! };
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    const der = privateKey.export({ format: 'der', type: 'pkcs8' });
    await tx.query(
      `INSERT INTO signing_keys (kid, purpose, algorithm, public_jwk, encrypted_private_key)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (purpose) WHERE retired_at IS NULL DO NOTHING`,
      [kid, key.purpose, key.algorithm, JSON.stringify(publicJwk), sealKey(secret, kid, der)],
    );
    row = await selectActiveKey(tx, key.purpose);
    if (!row) throw new Error(`the ${key.purpose} signing key vanished right after it was created`);
  }
  const der = openKey(secret, row.kid, row.encrypted_private_key);
  return { kid: row.kid, privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }), publicJwk: row.public_jwk };
}

/** Every key of a purpose, newest first (retired ones still verify what they signed). */
export async function listSigningKeys(db: Queryable, purpose: string) {
  const rows = await db.query<{ kid: string; algorithm: string; public_jwk: PublicKeyJwk; created_at: Date }>(
    'SELECT kid, algorithm, public_jwk, created_at FROM signing_keys WHERE purpose = $1 ORDER BY created_at DESC, kid',
    [purpose],
  );
  return rows.map((r) => ({ kid: r.kid, algorithm: r.algorithm, publicJwk: r.public_jwk, createdAt: r.created_at }));
}

/** listSigningKeys on behalf of a credential, checked in the same statement. */
export async function listSigningKeysFor(
  db: Queryable,
  use: CredentialUse,
  purpose: string,
): Promise<{ refused?: CredentialState; keys?: Array<{ kid: string; algorithm: string; publicJwk: PublicKeyJwk; createdAt: Date }> }> {
  const { refused, rows } = await runWithCredential<{ kid: string; algorithm: string; public_jwk: PublicKeyJwk; created_at: Date | string }>(
    db,
    use,
    sql`SELECT kid, algorithm, public_jwk, created_at FROM signing_keys WHERE purpose = ${purpose} ORDER BY created_at DESC, kid`,
  );
  if (refused) return { refused };
  return { keys: rows.map((r) => ({ kid: r.kid, algorithm: r.algorithm, publicJwk: r.public_jwk, createdAt: new Date(r.created_at) })) };
}
