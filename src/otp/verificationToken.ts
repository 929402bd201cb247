// Verification tokens (verify_otp's result): the service's ES256 signing key, created lazily in the
// store with its private half sealed under the deployment secret, the JWT it signs, and its JWKS.
import { createPrivateKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, SignJWT } from 'jose';
import type { Queryable } from '../store/db.ts';
import { seal, unseal } from '../store/sealed.ts';

/** `iss` of every token; fixed until a deployment needs its own (then it becomes a setting). */
export const TOKEN_ISSUER = 'signet';
export const TOKEN_ALGORITHM = 'ES256';
/** signing_keys.purpose of the key that signs verification tokens. */
const PURPOSE = 'verification-token';

// A key of its own, so OTP hashes, outbox ciphertexts and sealed signing keys never share one.
const SEAL_LABEL = 'signet signing-key encryption v1';

export interface VerificationClaims {
  otpId: string;
  contact: string;
  otpType: string;
  organizationId: string;
  /** The client's P-256 public key (hex), when verify_otp was given one. */
  publicKey?: string;
  issuedAt: Date;
  /** Token lifetime from `issuedAt`. */
  expirationSeconds: number;
}

/** A P-256 public key as a JWKS entry. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: string;
  use: 'sig';
}

interface SigningKeyRow {
  kid: string;
  algorithm: string;
  public_jwk: { kty: string; crv: string; x: string; y: string };
  encrypted_private_key: string;
}

function sealKey(secret: Buffer, kid: string, plaintext: Buffer): string {
  return seal(secret, SEAL_LABEL, kid, plaintext);
}

function openKey(secret: Buffer, kid: string, sealed: string): Buffer {
  try {
    return unseal(secret, SEAL_LABEL, kid, sealed);
  } catch {
    // Logged by the HTTP layer as a 500; the client sees only "internal error".
    throw new Error(
      `signing key ${kid} cannot be decrypted with this deployment's secret: every Signet process sharing ` +
        'the database must use the same SIGNET_OTP_SECRET',
    );
  }
}

async function selectActiveKey(tx: Queryable): Promise<SigningKeyRow | undefined> {
  const [row] = await tx.query<SigningKeyRow>(
    `SELECT kid, algorithm, public_jwk, encrypted_private_key
       FROM signing_keys WHERE purpose = $1 AND retired_at IS NULL`,
    [PURPOSE],
  );
  return row;
}

/**
 * The active signing key, created on first use. Several processes may race to create it: each
 * inserts its own candidate with ON CONFLICT DO NOTHING on the one-active-key-per-purpose index, and
 * all then read the row that won (under READ COMMITTED the second SELECT sees the winner's commit).
 */
async function activeSigningKey(tx: Queryable, secret: Buffer): Promise<{ kid: string; privateKey: KeyObject }> {
  let row = await selectActiveKey(tx);
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
      [kid, PURPOSE, TOKEN_ALGORITHM, JSON.stringify(publicJwk), sealKey(secret, kid, der)],
    );
    row = await selectActiveKey(tx);
    if (!row) throw new Error('the verification-token signing key vanished right after it was created');
  }
  const der = openKey(secret, row.kid, row.encrypted_private_key);
  return { kid: row.kid, privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) };
}

/**
 * Signs a verification token with the active key (creating it on first use) in the caller's
 * transaction. `sub` is the OTP id: what was proved is this one OTP flow, and a contact as subject
 * would name the same person identically in every organization; relying parties read `contact`,
 * `otp_type` and `organization_id` together.
 */
export async function issueVerificationToken(tx: Queryable, secret: Buffer, claims: VerificationClaims): Promise<string> {
  const { kid, privateKey } = await activeSigningKey(tx, secret);
  const issuedAt = Math.floor(claims.issuedAt.getTime() / 1000);
  return new SignJWT({
    otp_id: claims.otpId,
    contact: claims.contact,
    otp_type: claims.otpType,
    organization_id: claims.organizationId,
    ...(claims.publicKey === undefined ? {} : { public_key: claims.publicKey }),
  })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid, typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setSubject(claims.otpId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + claims.expirationSeconds)
    .setJti(randomUUID())
    .sign(privateKey);
}

/** Public keys of every stored verification-token key, newest first (retired ones still verify old tokens). */
export async function loadPublicJwks(db: Queryable): Promise<PublicJwk[]> {
  const rows = await db.query<Pick<SigningKeyRow, 'kid' | 'algorithm' | 'public_jwk'>>(
    'SELECT kid, algorithm, public_jwk FROM signing_keys WHERE purpose = $1 ORDER BY created_at DESC, kid',
    [PURPOSE],
  );
  return rows.map(({ kid, algorithm, public_jwk: jwk }) => ({
    kty: jwk.kty,
    crv: jwk.crv,
    x: jwk.x,
    y: jwk.y,
    kid,
    alg: algorithm,
    use: 'sig',
  }));
}
