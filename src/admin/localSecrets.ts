// Secrets a deployment needs when the environment does not give them: generated once into the
// data folder with mode 0600, then read back on every start.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { deploymentSecretPath } from './backup.ts';

/** The file's value, and whether this call wrote it (it did not exist). */
function readOrCreate(file: string, create: () => string): { value: string; created: boolean } {
  try {
    return { value: fs.readFileSync(file, 'utf8').trim(), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = create();
  try {
    // 'wx': two processes starting together must not overwrite each other's secret.
    fs.writeFileSync(file, value + '\n', { mode: 0o600, flag: 'wx' });
    return { value, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { value: fs.readFileSync(file, 'utf8').trim(), created: false };
    throw error;
  }
}

export function adminTokenPath(config: Config): string {
  return path.join(config.dataDir, 'admin-token');
}

/** The admin API's bearer token: SIGNET_ADMIN_TOKEN, else the generated file. */
export function loadAdminToken(config: Config): string {
  return adminToken(config).token;
}

/** The admin token, and whether this call generated its file. */
export function adminToken(config: Config): { token: string; generated: boolean } {
  if (config.adminToken !== undefined) return { token: config.adminToken, generated: false };
  const { value, created } = readOrCreate(adminTokenPath(config), () => randomBytes(32).toString('base64url'));
  return { token: value, generated: created };
}

/**
 * The 32-byte deployment secret that keys OTP hashes and encrypts the outbox. Every process of a
 * deployment must share it: set SIGNET_OTP_SECRET when several processes share one PostgreSQL.
 */
export function loadDeploymentSecret(config: Config): Buffer {
  return deploymentSecret(config).key;
}

/** The deployment secret's key, and, when SIGNET_OTP_SECRET is not set, the file it is kept in and whether this call generated it. */
export interface DeploymentSecret {
  key: Buffer;
  /** SIGNET_DATA_DIR/otp-secret, when SIGNET_OTP_SECRET is not set. */
  file?: string;
  /** True when the file did not exist and was generated now. */
  generated: boolean;
}

export function deploymentSecret(config: Config): DeploymentSecret {
  const digest = (raw: string) => createHash('sha256').update(raw, 'utf8').digest();
  if (config.otpSecret !== undefined) return { key: digest(config.otpSecret), generated: false };
  const file = deploymentSecretPath(config);
  const { value, created } = readOrCreate(file, () => randomBytes(32).toString('hex'));
  return { key: digest(value), file, generated: created };
}

