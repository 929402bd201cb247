// `signet backup FILE` and `signet restore FILE`: the embedded store and the deployment secret kept
// together in one file (docs/backups.md). The store's snapshot comes from the process that holds it:
// the running server (its admin API, GET /admin/v1/backup) or, when none runs on the data folder,
// this command, which then opens the folder itself. The secret is read where the server reads it and
// checked against the server's. A PostgreSQL store is backed up with pg_dump; these commands say so.
//
// The file: one JSON line (the header below, at most 64 KiB), then the gzip-compressed tarball of
// the PGlite data directory, of dataBytes bytes whose SHA-256 is dataSha256.
import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { constants as bufferConstants } from 'node:buffer';
import { z } from 'zod';
import { readDeploymentSecret, deploymentSecretPath, secretCheck } from '../admin/backup.ts';
import type { Config } from '../config.ts';
import { ADMIN_PREFIX, ADMIN_ROUTES, downloadHeader } from '../http/adminApi.ts';
import { embeddedStoreExists, restoreEmbeddedStore, snapshotEmbeddedStore } from '../store/backup.ts';
import { openDatabase } from '../store/db.ts';
import { EmbeddedStoreInUse } from '../store/embeddedLock.ts';
import { adminClient } from './adminClient.ts';
import { VERSION } from './packageInfo.ts';

export const BACKUP_FORMAT = 'signet-backup';
const FORMAT_VERSION = 1;
/** The header line is read at most this far into the file. */
const MAX_HEADER_BYTES = 64 * 1024;

const header = z.strictObject({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(FORMAT_VERSION),
  signetVersion: z.string().max(64),
  createdAt: z.iso.datetime(),
  store: z.literal('pglite'),
  secret: z.string().min(1).max(4096),
  secretFrom: z.enum(['SIGNET_OTP_SECRET', 'otp-secret']),
  dataBytes: z.number().int().min(1).max(bufferConstants.MAX_LENGTH),
  dataSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
type BackupHeader = z.infer<typeof header>;

const storeDirOf = (config: Config) => path.join(config.dataDir, 'pglite');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function refusePostgres(config: Config, command: 'backup' | 'restore'): void {
  if (!config.databaseUrl) return;
  throw new Error(
    command === 'backup'
      ? 'signet backup copies the embedded store, and this configuration uses PostgreSQL (SIGNET_DATABASE_URL): back that database up with ' +
          'pg_dump --format=custom, and keep SIGNET_OTP_SECRET with the dump (docs/backups.md)'
      : 'signet restore makes an embedded store, and this configuration uses PostgreSQL (SIGNET_DATABASE_URL): restore a pg_dump with ' +
          'pg_restore, and start Signet with the SIGNET_OTP_SECRET of the backup (docs/backups.md)',
  );
}

/** The snapshot and when it was taken: from the server that holds the store, else from the folder opened here. */
async function snapshot(config: Config, secret: string): Promise<{ data: Buffer; createdAt: string; from: string }> {
  const storeDir = storeDirOf(config);
  if (embeddedStoreExists(storeDir)) {
    try {
      const db = await openDatabase({ dataDir: storeDir, holder: 'signet backup' });
      try {
        const createdAt = new Date().toISOString();
        return { data: await snapshotEmbeddedStore(db), createdAt, from: `${storeDir} (no server was running on it)` };
      } finally {
        await db.close();
      }
    } catch (error) {
      if (!(error instanceof EmbeddedStoreInUse)) throw error;
      // A server holds it: the snapshot is its to take.
    }
  }
  const route = ADMIN_ROUTES.backup;
  // The server asked is the one the admin commands find (SIGNET_URL, else the one running from the data folder).
  const client = adminClient(config);
  const { headers, body } = await client.download(route.path.slice(ADMIN_PREFIX.length));
  const fields = route.answer.parse(Object.fromEntries(Object.keys(route.answer.shape).map((field) => [field, headers.get(downloadHeader(field))])));
  if (fields.secretCheck !== secretCheck(secret)) {
    throw new Error(
      `the deployment secret this command read is not the one of the server at ${client.server.url}: run signet backup with the server's ` +
        'SIGNET_OTP_SECRET, or with SIGNET_DATA_DIR set to its data folder (where it keeps otp-secret)',
    );
  }
  return { data: body, createdAt: fields.createdAt, from: `the server at ${client.server.url} (${client.server.from})` };
}

/** Writes `content` to `file` with mode 0600, whole or not at all: a temporary file beside it, then moved into place. */
function writeWhole(file: string, content: Buffer[], replace: boolean): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  let fd: number;
  try {
    fd = fs.openSync(temporary, 'wx', 0o600);
  } catch (error) {
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
  try {
    for (const part of content) fs.writeSync(fd, part);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    // Without --force, a link fails when FILE appeared meanwhile, where a rename would replace it.
    if (replace) fs.renameSync(temporary, file);
    else fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${file} already exists: choose another FILE, or pass --force to replace it`);
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

export async function backup(file: string, force: boolean, config: Config): Promise<number> {
  refusePostgres(config, 'backup');
  if (!force && fs.existsSync(file)) throw new Error(`${file} already exists: choose another FILE, or pass --force to replace it`);
  try {
    fs.accessSync(path.dirname(path.resolve(file)), fs.constants.W_OK);
  } catch {
    throw new Error(`cannot write ${file}: its folder ${path.dirname(path.resolve(file))} does not exist or is not writable`);
  }
  const secret = readDeploymentSecret(config);
  if (!secret) {
    throw new Error(
      `no deployment secret to keep with the store: SIGNET_OTP_SECRET is not set and ${deploymentSecretPath(config)} does not exist; ` +
        "run signet backup with the server's SIGNET_OTP_SECRET, or with SIGNET_DATA_DIR set to its data folder",
    );
  }
  const { data, createdAt, from } = await snapshot(config, secret.value);
  const line: BackupHeader = {
    format: BACKUP_FORMAT,
    version: FORMAT_VERSION,
    signetVersion: VERSION,
    createdAt,
    store: 'pglite',
    secret: secret.value,
    secretFrom: secret.from === 'SIGNET_OTP_SECRET' ? 'SIGNET_OTP_SECRET' : 'otp-secret',
    dataBytes: data.length,
    dataSha256: createHash('sha256').update(data).digest('hex'),
  };
  writeWhole(file, [Buffer.from(`${JSON.stringify(line)}\n`), data], force);
  process.stdout.write(
    `wrote ${file} (${mib(data.length)}, mode 0600): the embedded store as of ${createdAt}, from ${from}, and the deployment secret ` +
      `(from ${secret.from}). Keep it as secret as the secret itself; signet restore ${file} makes a data folder of it.\n`,
  );
  return 0;
}

/** The header of a backup file and where its data begins; an Error naming the file when it is no Signet backup. */
function readHeader(file: string): { header: BackupHeader; dataStart: number; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = Buffer.alloc(Math.min(size, MAX_HEADER_BYTES));
    const read = fs.readSync(fd, start, 0, start.length, 0);
    const end = start.subarray(0, read).indexOf(0x0a);
    const notBackup = `${file} is not a Signet backup (a file signet backup wrote begins with a line {"format":"${BACKUP_FORMAT}",…})`;
    if (end < 0) throw new Error(notBackup);
    let parsed: unknown;
    try {
      parsed = JSON.parse(start.subarray(0, end).toString('utf8'));
    } catch {
      throw new Error(notBackup);
    }
    const { format, version } = (parsed ?? {}) as { format?: unknown; version?: unknown };
    if (format !== BACKUP_FORMAT) throw new Error(notBackup);
    if (version !== FORMAT_VERSION) throw new Error(`${file} is a Signet backup of format version ${String(version)}, which this Signet (${VERSION}) cannot read: restore it with the Signet that made it`);
    const checked = header.safeParse(parsed);
    if (!checked.success) throw new Error(`${file} has a damaged header: ${checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
    return { header: checked.data, dataStart: end + 1, size };
  } finally {
    fs.closeSync(fd);
  }
}

/** Why a data folder cannot take a restore, or undefined when it can (absent or without a store and a secret). */
function occupied(config: Config): string | undefined {
  const storeDir = storeDirOf(config);
  if (fs.existsSync(storeDir) && fs.readdirSync(storeDir).length > 0) return `it already holds a store (${storeDir})`;
  if (fs.existsSync(`${storeDir}.lock`) && fs.readdirSync(`${storeDir}.lock`).length > 0) return `a process holds its store (${storeDir}.lock)`;
  if (fs.existsSync(deploymentSecretPath(config))) return `it already holds a deployment secret (${deploymentSecretPath(config)})`;
  return undefined;
}

function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

export async function restore(file: string, config: Config): Promise<number> {
  refusePostgres(config, 'restore');
  const { header: backup, dataStart, size } = readHeader(file);
  if (size !== dataStart + backup.dataBytes) {
    throw new Error(`${file} is ${size < dataStart + backup.dataBytes ? 'truncated' : 'longer than its header says'}: its store should be ${backup.dataBytes} bytes, and ${size - dataStart} follow the header`);
  }
  const why = occupied(config);
  if (why) throw new Error(`cannot restore into SIGNET_DATA_DIR ${config.dataDir}: ${why}; restore into an empty data folder`);
  if (config.otpSecret !== undefined && !sameSecret(config.otpSecret, backup.secret)) {
    throw new Error(
      "SIGNET_OTP_SECRET is set and is not the backup's deployment secret, without which its sessions, tokens and signing keys are lost: " +
        'unset it (restore then writes the backup\'s secret into SIGNET_DATA_DIR/otp-secret), or set it to the secret of the deployment backed up',
    );
  }
  const data = Buffer.alloc(backup.dataBytes);
  const fd = fs.openSync(file, 'r');
  try {
    for (let at = 0; at < data.length; ) {
      const read = fs.readSync(fd, data, at, data.length - at, dataStart + at);
      if (read === 0) throw new Error(`${file} is truncated`);
      at += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  if (createHash('sha256').update(data).digest('hex') !== backup.dataSha256) throw new Error(`${file} is damaged: its store does not have the SHA-256 its header records`);

  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const storeDir = storeDirOf(config);
  const { migrations } = await restoreEmbeddedStore(storeDir, data);
  let secretAt = 'SIGNET_OTP_SECRET, which is the same';
  if (config.otpSecret === undefined) {
    try {
      fs.writeFileSync(deploymentSecretPath(config), `${backup.secret}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      fs.rmSync(storeDir, { recursive: true, force: true });
      throw error;
    }
    secretAt = deploymentSecretPath(config);
  }
  process.stdout.write(
    `restored ${file} into ${config.dataDir}: the embedded store as of ${backup.createdAt} (schema ${migrations.at(-1) ?? 'empty'}) and the ` +
      `deployment secret (${secretAt}). Start it with signet serve; the admin token is not in a backup (SIGNET_ADMIN_TOKEN, or a new admin-token file).\n`,
  );
  return 0;
}
