// Why a store cannot be opened or migrated, as one line an operator can act on: the setting
// (SIGNET_DATABASE_URL with its password masked, or SIGNET_DATA_DIR), what happened (PostgreSQL's
// error codes and the file system's, read here where the driver's errors are known), the OS user the
// process runs as, and the fix. Read by `signet serve` and `signet migrate`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, displayedValue, type Config } from '../config.ts';
import { DatabaseUnavailable } from '../errors.ts';
import { MigrationFailed } from './migrate.ts';

/** The OS user this process runs as, for the messages about permissions. */
function osUser(): { name: string; text: string } {
  try {
    const { username, uid } = os.userInfo();
    return { name: username, text: uid >= 0 ? `${username} (uid ${uid})` : username };
  } catch {
    const uid = process.getuid?.();
    return { name: String(uid), text: `uid ${uid}` };
  }
}

/** The nearest of `file` and its parents that exists and is not a folder. */
function fileInTheWay(file: string): string | undefined {
  for (let at = file; ; at = path.dirname(at)) {
    try {
      if (!fs.statSync(at).isDirectory()) return at;
    } catch {
      // missing: look at its parent
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** Why the data folder cannot be used, naming SIGNET_DATA_DIR, the OS user and the fix; undefined for an error of another kind or elsewhere. */
export function dataFolderProblem(error: unknown, dataDir: string): ConfigError | undefined {
  const { code, path: at } = error as NodeJS.ErrnoException;
  if (typeof at !== 'string') return undefined;
  const file = path.resolve(at);
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer + path.sep);
  if (!within(file, dataDir) && !within(dataDir, file)) return undefined;
  const setting = `SIGNET_DATA_DIR=${dataDir}`;
  const user = osUser();
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return new ConfigError(
        `cannot use the data folder ${setting}: the OS user ${user.text} this process runs as may not read or write ${file}; ` +
          (fs.existsSync(dataDir) ? `give that user the folder (chown -R ${user.name} ${dataDir})` : `make the folder for that user (mkdir -p ${dataDir} && chown ${user.name} ${dataDir})`) +
          ', or set SIGNET_DATA_DIR to a folder it may write',
        { cause: error },
      );
    case 'EEXIST':
    case 'ENOTDIR': {
      const inTheWay = fileInTheWay(file) ?? file;
      return new ConfigError(
        `cannot use the data folder ${setting}: ${inTheWay} is a file, not a folder; set SIGNET_DATA_DIR to a folder (it is made when missing), or move the file away`,
        { cause: error },
      );
    }
    case 'EROFS':
      return new ConfigError(`cannot use the data folder ${setting}: ${file} is on a read-only file system; set SIGNET_DATA_DIR to a writable folder`, { cause: error });
    case 'ENOSPC':
      return new ConfigError(`cannot use the data folder ${setting}: no space left on the device of ${file}; free some, or set SIGNET_DATA_DIR to a folder on another disk`, { cause: error });
    default:
      return undefined;
  }
}

/** The code of a driver or server error, looking through the DatabaseUnavailable and MigrationFailed that wrap it. */
function rootCode(error: unknown): { code?: string; message: string; timedOut: boolean } {
  let at = error as { code?: unknown; message?: string; cause?: unknown; errors?: unknown[] } | undefined;
  const timedOut = error instanceof DatabaseUnavailable && error.timedOut;
  while ((at instanceof DatabaseUnavailable || at instanceof MigrationFailed) && at.cause) at = at.cause as typeof at;
  const code = typeof at?.code === 'string' ? at.code : undefined;
  return { code, message: at?.message || (at?.errors?.[0] as Error | undefined)?.message || String(at), timedOut };
}

/** Why PostgreSQL at SIGNET_DATABASE_URL cannot be used, naming the URL (password masked) and the fix; undefined for another error. */
function databaseProblem(error: unknown, config: Config): ConfigError | undefined {
  const url = config.databaseUrl;
  if (!url) return undefined;
  const { code, message, timedOut } = rootCode(error);
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host') ?? (parsed.hostname || 'localhost');
  const port = parsed.port || '5432';
  const database = decodeURIComponent(parsed.pathname.slice(1)) || '(the user\'s name)';
  const user = osUser();
  const role = decodeURIComponent(parsed.username) || `${user.name} (none in the URL: the OS user's name)`;
  const at = `PostgreSQL at SIGNET_DATABASE_URL=${displayedValue('SIGNET_DATABASE_URL', url)}`;
  const fail = (why: string) => new ConfigError(`cannot use ${at}: ${why}`, { cause: error });
  if (code === 'ECONNREFUSED') return fail(`nothing accepts connections at ${host} port ${port}; start PostgreSQL there, or correct the host and port in SIGNET_DATABASE_URL`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return fail(`the host name ${host} does not resolve; correct the host in SIGNET_DATABASE_URL`);
  if (timedOut || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return fail(`no answer from ${host} port ${port} within ${config.database.timeoutMs} ms (SIGNET_DATABASE_TIMEOUT_MS); check that this machine reaches it (network, firewall) and that PostgreSQL listens there`);
  }
  if (code === '3D000') return fail(`the database "${database}" does not exist there; create it (createdb -h ${host} -p ${port} ${database}, or CREATE DATABASE in psql), or correct its name in SIGNET_DATABASE_URL`);
  if (code === '28P01') return fail(`the password of user ${role} was refused; correct the user or the password in SIGNET_DATABASE_URL`);
  if (code === '28000') return fail(`the server refused user ${role} (${message}); correct the user in SIGNET_DATABASE_URL, or allow it in the server's pg_hba.conf`);
  if (code === '3F000') return fail(`no schema to create Signet's tables in (${message}): the schema of search_path (the URL's options) does not exist or user ${role} may not use it; create it, or grant it USAGE and CREATE`);
  if (code === '42501') {
    return fail(`user ${role} may not create Signet's tables in "${database}" (${message}); make it the database's owner (ALTER DATABASE ... OWNER TO ...) or grant it CREATE on the schema`);
  }
  return undefined;
}

/** A store that cannot be opened or migrated, as one line naming the setting and the fix; other errors as they are. */
export function storeProblem(error: unknown, config: Config): unknown {
  if (error instanceof ConfigError) return error;
  return databaseProblem(error, config) ?? dataFolderProblem(error, config.dataDir) ?? error;
}
