// Secrets a deployment needs when the environment does not give them: generated once into the
// data folder with mode 0600, then read back on every start.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

function readOrCreate(file: string, create: () => string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = create();
  try {
    // 'wx': two processes starting together must not overwrite each other's secret.
    fs.writeFileSync(file, value + '\n', { mode: 0o600, flag: 'wx' });
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}

export function adminTokenPath(config: Config): string {
  return path.join(config.dataDir, 'admin-token');
}

/** The admin API's bearer token: SIGNET_ADMIN_TOKEN, else the generated file. */
export function loadAdminToken(config: Config): string {
  return config.adminToken ?? readOrCreate(adminTokenPath(config), () => randomBytes(32).toString('base64url'));
}

/**
 * The 32-byte deployment secret that keys OTP hashes and encrypts the outbox. Every process of a
 * deployment must share it: set SIGNET_OTP_SECRET when several processes share one PostgreSQL.
 */
export function loadDeploymentSecret(config: Config): Buffer {
  const raw = config.otpSecret ?? readOrCreate(path.join(config.dataDir, 'otp-secret'), () => randomBytes(32).toString('hex'));
  return createHash('sha256').update(raw, 'utf8').digest();
}
