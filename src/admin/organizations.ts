// Tenants and their credentials: organizations, users, API keys, WebAuthn authenticators and
// sender domains. Used by the admin API and the development bootstrap.
import { createPublicKey, ECDH, generateKeyPairSync, randomUUID } from 'node:crypto';
import { invalidField, notFound } from '../errors.ts';
import type { Database, Queryable } from '../store/db.ts';
import { selectPage, type PageRequest } from '../store/pages.ts';

export interface ApiKeyPair {
  /** Compressed SEC1 P-256 public key, lowercase hex (66 chars), as @turnkey/api-key-stamper expects. */
  apiPublicKey: string;
  /** The 32-byte private scalar, lowercase hex. */
  apiPrivateKey: string;
}

export function generateApiKeyPair(): ApiKeyPair {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = privateKey.export({ format: 'jwk' });
  const uncompressed = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, 'base64url'),
    Buffer.from(jwk.y!, 'base64url'),
  ]);
  return {
    apiPublicKey: compressPublicKey(uncompressed.toString('hex')),
    apiPrivateKey: Buffer.from(jwk.d!, 'base64url').toString('hex'),
  };
}

/** Validates a P-256 public key given in hex (compressed or uncompressed) and returns it compressed. */
export function compressPublicKey(hex: string, field = 'publicKey'): string {
  if (!/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(hex)) {
    throw invalidField(field, 'must be a P-256 public key in hex: 66 characters (compressed) or 130 (uncompressed)');
  }
  try {
    const compressed = ECDH.convertKey(hex.toLowerCase(), 'prime256v1', 'hex', 'hex', 'compressed') as string;
    // convertKey does not reject every point off the curve; importing the key does.
    const full = ECDH.convertKey(compressed, 'prime256v1', 'hex', undefined, 'uncompressed') as Buffer;
    createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: full.subarray(1, 33).toString('base64url'), y: full.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    return compressed;
  } catch {
    throw invalidField(field, 'is not a point on the P-256 curve');
  }
}

export interface CreatedOrganization {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  /** Present only when Signet generated the key pair. */
  apiPrivateKey?: string;
}

export async function createOrganization(
  db: Database,
  input: { name: string; userName?: string; apiKeyName?: string; publicKey?: string },
): Promise<CreatedOrganization> {
  const organizationId = randomUUID();
  const userId = randomUUID();
  return db.transaction(async (tx) => {
    await tx.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organizationId, input.name]);
    await tx.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [
      userId,
      organizationId,
      input.userName ?? 'root',
    ]);
    const key = await insertApiKey(tx, {
      organizationId,
      userId,
      name: input.apiKeyName ?? 'root key',
      ...(input.publicKey !== undefined ? { publicKey: input.publicKey } : {}),
    });
    return { organizationId, userId, ...key };
  });
}

export async function createUser(db: Queryable, organizationId: string, userName: string): Promise<{ userId: string }> {
  await requireOrganization(db, organizationId);
  const userId = randomUUID();
  await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [
    userId,
    organizationId,
    userName,
  ]);
  return { userId };
}

export interface CreatedApiKey {
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey?: string;
  expiresAt?: string;
}

export async function createApiKey(
  db: Queryable,
  input: { organizationId: string; userId: string; name?: string; expiresInSeconds?: number; publicKey?: string },
): Promise<CreatedApiKey> {
  await requireUser(db, input.organizationId, input.userId);
  return insertApiKey(db, { ...input, name: input.name ?? 'api key' });
}

async function insertApiKey(
  db: Queryable,
  input: { organizationId: string; userId: string; name: string; expiresInSeconds?: number; publicKey?: string },
): Promise<CreatedApiKey> {
  const pair = input.publicKey === undefined ? generateApiKeyPair() : undefined;
  const apiPublicKey = pair ? pair.apiPublicKey : compressPublicKey(input.publicKey!);
  const apiKeyId = randomUUID();
  const expiresAt =
    input.expiresInSeconds !== undefined ? new Date(Date.now() + input.expiresInSeconds * 1000) : undefined;
  const inserted = await db.query(
    `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (organization_id, public_key) DO NOTHING RETURNING id`,
    [apiKeyId, input.organizationId, input.userId, input.name, apiPublicKey, expiresAt ?? null],
  );
  if (inserted.length === 0) throw invalidField('publicKey', 'this public key is already registered in the organization');
  return {
    apiKeyId,
    apiPublicKey,
    ...(pair ? { apiPrivateKey: pair.apiPrivateKey } : {}),
    ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
  };
}

export async function revokeApiKey(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
): Promise<{ apiKeyId: string; revokedAt: string }> {
  const [row] = await db.query<{ revoked_at: Date }>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
      WHERE id = $1 AND organization_id = $2 RETURNING revoked_at`,
    [apiKeyId, organizationId],
  );
  if (!row) throw notFound(`no API key ${apiKeyId} in organization ${organizationId}`);
  return { apiKeyId, revokedAt: row.revoked_at.toISOString() };
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export async function addSenderDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
): Promise<{ senderDomainId: string; domain: string }> {
  const normalized = domain.trim().toLowerCase();
  if (!DOMAIN.test(normalized)) throw invalidField('domain', 'must be a domain name such as "mail.example.com"');
  await requireOrganization(db, organizationId);
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO sender_domains (id, organization_id, domain) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, domain) DO UPDATE SET domain = EXCLUDED.domain RETURNING id`,
    [randomUUID(), organizationId, normalized],
  );
  return { senderDomainId: row!.id, domain: normalized };
}

/** Newest first, in pages. */
export async function listSenderDomains(db: Queryable, organizationId: string, page: PageRequest) {
  await requireOrganization(db, organizationId);
  const found = await selectPage<{ id: string; domain: string; created_at: Date }>(
    db,
    { table: 'sender_domains', columns: 'id, domain, created_at', organizationId, size: '512' },
    page,
  );
  return {
    ...found,
    rows: found.rows.map((r) => ({ senderDomainId: r.id, domain: r.domain, createdAt: r.created_at.toISOString() })),
  };
}

export async function insertAuthenticator(
  db: Queryable,
  input: {
    organizationId: string;
    userId: string;
    name: string;
    credentialId: string;
    publicKey: Uint8Array;
    signCount: number;
    transports: string[];
    aaguid: string;
  },
): Promise<{ authenticatorId: string; credentialId: string }> {
  await requireUser(db, input.organizationId, input.userId);
  const authenticatorId = randomUUID();
  const inserted = await db.query(
    `INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, public_key, sign_count, transports, aaguid)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (credential_id) DO NOTHING RETURNING id`,
    [authenticatorId, input.organizationId, input.userId, input.name, input.credentialId,
      Buffer.from(input.publicKey), input.signCount, input.transports, input.aaguid],
  );
  if (inserted.length === 0) throw invalidField('attestation', 'this credential is already registered');
  return { authenticatorId, credentialId: input.credentialId };
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return row!.n;
}

export async function requireOrganization(db: Queryable, organizationId: string): Promise<void> {
  const rows = await db.query('SELECT 1 FROM organizations WHERE id = $1', [organizationId]);
  if (rows.length === 0) throw notFound(`no organization ${organizationId}`);
}

async function requireUser(db: Queryable, organizationId: string, userId: string): Promise<void> {
  const rows = await db.query('SELECT 1 FROM users WHERE id = $1 AND organization_id = $2', [userId, organizationId]);
  if (rows.length === 0) throw notFound(`no user ${userId} in organization ${organizationId}`);
}
