// Tenants and their credentials for operators: organizations (with their first user, alone in their
// root quorum), API keys, WebAuthn authenticators and sender domains, checked before they reach the
// store. Used by the admin API and the development bootstrap; users themselves are in users.ts.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { invalidField, notFound, type SignetError } from '../errors.ts';
import { InvalidP256PublicKey, parseP256PublicKey } from '../keys/p256.ts';
import { insertApiKey, listApiKeys as listStoredApiKeys, revokeApiKey as revokeStoredApiKey } from '../store/apiKeys.ts';
import { insertAuthenticator } from '../store/authenticators.ts';
import type { Database, Queryable } from '../store/db.ts';
import { countOrganizations, insertOrganization, listOrganizations as listStoredOrganizations, organizationExists } from '../store/organizations.ts';
import type { Page, PageRequest } from '../store/pages.ts';
import { insertRootQuorum } from '../store/rootQuorums.ts';
import { listSubOrganizations as listStoredSubOrganizations } from '../store/subOrganizations.ts';
import { deleteSenderDomain, insertSenderDomain, listSenderDomains as listStoredSenderDomains } from '../store/senderDomains.ts';
import { holdActiveUser, insertUser, userExists } from '../store/users.ts';
import type {
  CreatedApiKey,
  CreatedOrganization,
  ListedApiKey,
  ListedOrganization,
  ListedSenderDomain,
  RegisteredAuthenticator,
  RevokedApiKey,
  SenderDomain,
  SubOrganization,
} from './answers.ts';

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
  try {
    return parseP256PublicKey(hex).compressed;
  } catch (error) {
    if (!(error instanceof InvalidP256PublicKey)) throw error;
    throw error.problem === 'encoding'
      ? invalidField(field, 'must be a P-256 public key in hex: 66 characters (compressed) or 130 (uncompressed)')
      : invalidField(field, 'is not a point on the P-256 curve');
  }
}

export async function createOrganization(
  db: Database,
  input: { name: string; userName?: string; apiKeyName?: string; publicKey?: string },
): Promise<CreatedOrganization> {
  const organizationId = randomUUID();
  const userId = randomUUID();
  return db.transaction(async (tx) => {
    await insertOrganization(tx, { id: organizationId, name: input.name });
    // A new organization has no user whose contact this one could take.
    await insertUser(tx, { id: userId, organizationId, userName: input.userName ?? 'root' });
    // Its creator is its root quorum, alone: with the organization, or not at all.
    if (!(await insertRootQuorum(tx, organizationId, { threshold: 1, userIds: [userId] }))) {
      throw new Error(`the root quorum of the new organization ${organizationId} was not written`);
    }
    const key = await addApiKey(tx, {
      organizationId,
      userId,
      name: input.apiKeyName ?? 'root key',
      ...(input.publicKey !== undefined ? { publicKey: input.publicKey } : {}),
    });
    return { organizationId, userId, ...key };
  });
}

/** Every organization, newest first, in pages; a sub-organization names its parent (and when it was deleted). */
export async function listOrganizations(
  db: Queryable,
  page: PageRequest,
): Promise<Page<ListedOrganization>> {
  const found = await listStoredOrganizations(db, page);
  return {
    ...found,
    rows: found.rows.map((r) => ({
      organizationId: r.id,
      name: r.name,
      createdAt: r.createdAt.toISOString(),
      parentId: r.parentId,
      deletedAt: r.deletedAt?.toISOString() ?? null,
    })),
  };
}

/** The organization's sub-organizations, deleted ones included, newest first, in pages. */
export async function listSubOrganizations(
  db: Queryable,
  organizationId: string,
  page: PageRequest,
): Promise<Page<SubOrganization>> {
  await requireOrganization(db, organizationId);
  const found = await listStoredSubOrganizations(db, organizationId, page);
  return {
    ...found,
    rows: found.rows.map((r) => ({ organizationId: r.id, name: r.name, createdAt: r.createdAt.toISOString(), deletedAt: r.deletedAt?.toISOString() ?? null })),
  };
}

export async function createApiKey(
  db: Database,
  input: { organizationId: string; userId: string; name?: string; expiresInSeconds?: number; publicKey?: string },
): Promise<CreatedApiKey> {
  return db.transaction(async (tx) => {
    await requireUser(tx, input.organizationId, input.userId);
    return addApiKey(tx, { ...input, name: input.name ?? 'api key' });
  });
}

async function addApiKey(
  db: Queryable,
  input: { organizationId: string; userId: string; name: string; expiresInSeconds?: number; publicKey?: string },
): Promise<CreatedApiKey> {
  const pair = input.publicKey === undefined ? generateApiKeyPair() : undefined;
  const apiPublicKey = pair ? pair.apiPublicKey : compressPublicKey(input.publicKey!);
  const apiKeyId = randomUUID();
  const expiresAt = input.expiresInSeconds !== undefined ? new Date(Date.now() + input.expiresInSeconds * 1000) : undefined;
  const inserted = await insertApiKey(db, {
    id: apiKeyId,
    organizationId: input.organizationId,
    userId: input.userId,
    name: input.name,
    publicKey: apiPublicKey,
    expiresAt: expiresAt ?? null,
  });
  if (!inserted) {
    throw invalidField(
      'publicKey',
      'this public key is already registered in this organization, its parent or one of their sub-organizations (revoked ones too); ' +
        'one public key names one user: give another one',
      'PUBLIC_KEY_TAKEN',
    );
  }
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
): Promise<RevokedApiKey> {
  const revokedAt = await revokeStoredApiKey(db, organizationId, apiKeyId);
  if (!revokedAt) {
    throw notFound('API_KEY_NOT_FOUND', `no API key ${apiKeyId} in organization ${organizationId}; list its API keys with \`signet apikey list --org ${organizationId}\``);
  }
  return { apiKeyId, revokedAt: revokedAt.toISOString() };
}

/** The organization's API keys, revoked and session keys included, newest first, in pages; of one user (removed ones too) when `userId` is given. */
export async function listApiKeys(db: Queryable, organizationId: string, page: PageRequest, userId?: string): Promise<Page<ListedApiKey>> {
  await requireOrganization(db, organizationId);
  if (userId !== undefined && !(await userExists(db, organizationId, userId))) throw unknownUser(organizationId, userId);
  const found = await listStoredApiKeys(db, organizationId, page, userId);
  return {
    ...found,
    rows: found.rows.map((k) => ({
      apiKeyId: k.id,
      userId: k.userId,
      name: k.name,
      publicKey: k.publicKey,
      kind: k.kind,
      createdAt: k.createdAt.toISOString(),
      expiresAt: k.expiresAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
    })),
  };
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export async function addSenderDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
): Promise<SenderDomain> {
  const normalized = domain.trim().toLowerCase();
  if (!DOMAIN.test(normalized)) throw invalidField('domain', 'must be a domain name such as "mail.example.com"');
  await requireOrganization(db, organizationId);
  const senderDomainId = await insertSenderDomain(db, { id: randomUUID(), organizationId, domain: normalized });
  return { senderDomainId, domain: normalized };
}

/** Unregisters the domain (any letter case): sendFromEmailAddress on it is refused from now on. */
export async function removeSenderDomain(db: Queryable, organizationId: string, domain: string): Promise<SenderDomain> {
  await requireOrganization(db, organizationId);
  const removed = await deleteSenderDomain(db, organizationId, domain.trim());
  if (!removed) {
    throw notFound(
      'SENDER_DOMAIN_NOT_FOUND',
      `no sender domain ${domain.trim().toLowerCase()} in organization ${organizationId}; list its sender domains with ` +
        `\`signet sender-domain list --org ${organizationId}\``,
    );
  }
  return { senderDomainId: removed.id, domain: removed.domain };
}

/** Newest first, in pages. */
export async function listSenderDomains(db: Queryable, organizationId: string, page: PageRequest): Promise<Page<ListedSenderDomain>> {
  await requireOrganization(db, organizationId);
  const found = await listStoredSenderDomains(db, organizationId, page);
  return {
    ...found,
    rows: found.rows.map((r) => ({ senderDomainId: r.id, domain: r.domain, createdAt: r.createdAt.toISOString() })),
  };
}

export async function registerAuthenticator(
  db: Database,
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
): Promise<RegisteredAuthenticator> {
  return db.transaction(async (tx) => {
    await requireUser(tx, input.organizationId, input.userId);
    const authenticatorId = randomUUID();
    if (!(await insertAuthenticator(tx, { id: authenticatorId, ...input }))) {
      throw invalidField('attestation', 'this credential is already registered');
    }
    return { authenticatorId, credentialId: input.credentialId };
  });
}

export { countOrganizations };

export async function requireOrganization(db: Queryable, organizationId: string): Promise<void> {
  if (!(await organizationExists(db, organizationId))) throw unknownOrganization(organizationId);
}

/** The 404 of an organization there is not, naming the command that lists them. */
export function unknownOrganization(organizationId: string): SignetError {
  return notFound('ORGANIZATION_NOT_FOUND', `no organization ${organizationId}; list organizations with \`signet org list\``);
}

/** The 404 of a user the organization does not have (or no longer has), naming the command that lists its users. */
export function unknownUser(organizationId: string, userId: string): SignetError {
  return notFound('USER_NOT_FOUND', `no user ${userId} in organization ${organizationId}; list its users with \`signet user list --org ${organizationId}\``);
}

/**
 * 404 unless the user is of the organization and not removed; inside a transaction that registers a
 * credential for it, holds the user so a concurrent removal revokes that credential too.
 */
async function requireUser(tx: Queryable, organizationId: string, userId: string): Promise<void> {
  if (!(await holdActiveUser(tx, organizationId, userId))) throw unknownUser(organizationId, userId);
}
