// A backup's two parts: the embedded store's snapshot, which the server holding the store takes
// (GET /admin/v1/backup), and the deployment secret, which never crosses the admin API: the
// `signet backup` command reads it where the server does (SIGNET_OTP_SECRET, else the otp-secret
// file of SIGNET_DATA_DIR) and compares it with the server's by a check value (secretCheck).
import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { SignetError } from '../errors.ts';
import { snapshotEmbeddedStore } from '../store/backup.ts';
import type { Database } from '../store/db.ts';

/** The file the server generates the deployment secret into when SIGNET_OTP_SECRET is not set. */
export function deploymentSecretPath(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'otp-secret');
}

/** The deployment secret as the server reads it (SIGNET_OTP_SECRET, else the file), and where it came from; undefined when neither exists. Never creates it. */
export function readDeploymentSecret(config: Pick<Config, 'dataDir' | 'otpSecret'>): { value: string; from: string } | undefined {
  if (config.otpSecret !== undefined) return { value: config.otpSecret, from: 'SIGNET_OTP_SECRET' };
  const file = deploymentSecretPath(config);
  try {
    return { value: fs.readFileSync(file, 'utf8').trim(), from: file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * A value that tells whether two deployment secrets are the same without showing either: an HMAC,
 * keyed by the secret's key as the server derives it (localSecrets.ts), of a fixed label.
 */
export function secretCheck(secret: string): string {
  const key = createHash('sha256').update(secret, 'utf8').digest();
  return createHmac('sha256', key).update('signet backup: the deployment secret').digest('base64url');
}

export interface StoreSnapshot {
  fields: { createdAt: string; store: 'pglite'; secretCheck: string };
  /** The gzip-compressed tarball of the PGlite data directory. */
  file: Buffer;
}

/** A consistent snapshot of the embedded store this server holds, with the check of its deployment secret. */
export async function storeSnapshot(db: Database, config: Config): Promise<StoreSnapshot> {
  if (db.kind !== 'pglite') {
    throw new SignetError(
      'INVALID_REQUEST',
      "this server's store is PostgreSQL (SIGNET_DATABASE_URL): back it up with pg_dump, and keep SIGNET_OTP_SECRET with it (docs/backups.md)",
    );
  }
  const secret = readDeploymentSecret(config);
  if (!secret) throw new Error(`the deployment secret is missing: neither SIGNET_OTP_SECRET nor ${deploymentSecretPath(config)}`);
  const createdAt = new Date().toISOString();
  const file = await snapshotEmbeddedStore(db);
  return { fields: { createdAt, store: 'pglite', secretCheck: secretCheck(secret.value) }, file };
}
