// How the CLI and the examples find the server and the API key to use, one way for all of them.
//
// The server: SIGNET_URL when it is set; else the server running from the data folder
// (SIGNET_DATA_DIR, default .signet), which `signet serve` names in server.json while it runs; else
// the baseUrl of the credentials file in use; else SIGNET_URL's default. The key: --credentials
// FILE, else SIGNET_CREDENTIALS (SIGNET_DEV_CREDENTIALS, its older name), else the data folder's
// credentials.json (`signet org create` writes it), else its dev-credentials.json (the embedded
// store's first start writes it). Every credentials file Signet writes names its server (baseUrl):
// a file naming another server than the one found is refused with both URLs, so a key is never
// sent to a server that does not know it. Only Node's own modules here: the examples import it too.
import fs from 'node:fs';
import path from 'node:path';
import { ALL_SETTINGS } from '../config.ts';

/**
 * The SIGNET_* variables read besides the settings (src/config/settings.ts): the credentials file
 * of the CLI and the examples, here, and the tests' SIGNET_SCREENSHOTS (test/support/console.ts);
 * `signet serve` and `signet config` name any other as unknown.
 */
export const OTHER_VARIABLES = ['SIGNET_CREDENTIALS', 'SIGNET_DEV_CREDENTIALS', 'SIGNET_SCREENSHOTS'] as const;

export const SERVER_FILE = 'server.json';
export const CREDENTIALS_FILE = 'credentials.json';
export const DEV_CREDENTIALS_FILE = 'dev-credentials.json';

/** Larger than any file of these; a bigger one is not one. */
const MAX_FILE_BYTES = 64 * 1024;

type Env = Record<string, string | undefined>;

/** A variable set to something (an empty one is not set, as for the settings). */
const given = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** SIGNET_DATA_DIR's default, as its setting declares it (.signet in the current folder). */
const DEFAULT_DATA_DIR = ALL_SETTINGS.find((setting) => setting.env === 'SIGNET_DATA_DIR')!.default!;

/** The data folder as `signet serve` reads SIGNET_DATA_DIR. */
export function dataFolder(env: Env = process.env): string {
  return path.resolve(given(env.SIGNET_DATA_DIR) ? env.SIGNET_DATA_DIR : DEFAULT_DATA_DIR);
}

/** The same server: equal origins and paths, a trailing slash aside. */
export function sameServer(a: string, b: string): boolean {
  const normal = (url: string) => {
    try {
      const parsed = new URL(url);
      return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
    } catch {
      return url;
    }
  };
  return normal(a) === normal(b);
}

/** A small file's text, or undefined when it does not exist; an Error for one too big or unreadable. */
function readSmall(file: string): string | undefined {
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Written by `signet serve` once it listens, removed when it stops: the URL of the server of this data folder. */
export function writeServerFile(dataDir: string, url: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, SERVER_FILE);
  const temporary = `${file}.${process.pid}`;
  fs.writeFileSync(temporary, `${JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o644 });
  fs.renameSync(temporary, file);
}

/** Removes server.json when it still names this process (another one on the same folder may have written it since). */
export function removeServerFile(dataDir: string): void {
  const file = path.join(dataDir, SERVER_FILE);
  try {
    if (JSON.parse(readSmall(file) ?? '{}').pid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // unreadable: not ours to remove
  }
}

/** The URL server.json names, when the process that wrote it still runs (a crashed server's file is ignored). */
export function runningServer(dataDir: string): string | undefined {
  try {
    const fields = JSON.parse(readSmall(path.join(dataDir, SERVER_FILE)) ?? 'null');
    if (typeof fields?.url !== 'string' || !Number.isInteger(fields.pid) || !processAlive(fields.pid)) return undefined;
    return fields.url;
  } catch {
    return undefined;
  }
}

/** Which credentials file to read, and how it was found (for the messages). */
export interface CredentialsLocation {
  file: string;
  from: string;
}

/** --credentials, SIGNET_CREDENTIALS (or its older name SIGNET_DEV_CREDENTIALS), else the data folder's credentials.json, else its dev-credentials.json. */
export function credentialsLocation(dataDir: string, flag?: string, env: Env = process.env): CredentialsLocation {
  if (flag !== undefined) return { file: flag, from: '--credentials' };
  if (given(env.SIGNET_CREDENTIALS)) return { file: env.SIGNET_CREDENTIALS, from: 'SIGNET_CREDENTIALS' };
  if (given(env.SIGNET_DEV_CREDENTIALS)) return { file: env.SIGNET_DEV_CREDENTIALS, from: 'SIGNET_DEV_CREDENTIALS' };
  const written = path.join(dataDir, CREDENTIALS_FILE);
  if (fs.existsSync(written)) return { file: written, from: 'the credentials in SIGNET_DATA_DIR, written by `signet org create`' };
  return { file: path.join(dataDir, DEV_CREDENTIALS_FILE), from: 'the development credentials in SIGNET_DATA_DIR' };
}

/** What to do without a credentials file, for every message that says there is none. */
export function noCredentialsHelp(dataDir: string): string {
  return (
    'give --credentials FILE or set SIGNET_CREDENTIALS to a JSON file {baseUrl, organizationId, apiPublicKey, apiPrivateKey}, ' +
    `or run \`signet org create --name NAME\` against the server of ${dataDir} (it writes ${path.join(dataDir, CREDENTIALS_FILE)}), ` +
    'or set SIGNET_DATA_DIR to the folder of a development server, whose first start wrote dev-credentials.json'
  );
}

/** The server to talk to, and where its URL came from. */
export interface FoundServer {
  url: string;
  from: string;
}

/**
 * The server: SIGNET_URL when set, else the running server of the data folder, else the credentials'
 * baseUrl, else `fallback` (SIGNET_URL's default). With credentials naming another server than the
 * one found, an Error saying both URLs and what to set.
 */
export function findServer(options: {
  dataDir: string;
  fallback: string;
  credentials?: { file: string; baseUrl?: string };
  env?: Env;
}): FoundServer {
  const env = options.env ?? process.env;
  const { dataDir, credentials } = options;
  const running = runningServer(dataDir);
  const found: FoundServer | undefined = given(env.SIGNET_URL)
    ? { url: env.SIGNET_URL.replace(/\/+$/, ''), from: 'SIGNET_URL' }
    : running
      ? { url: running, from: `the server running from SIGNET_DATA_DIR (${path.join(dataDir, SERVER_FILE)})` }
      : undefined;
  if (credentials?.baseUrl !== undefined) {
    if (found === undefined) return { url: credentials.baseUrl.replace(/\/+$/, ''), from: `the credentials file ${credentials.file}` };
    if (!sameServer(found.url, credentials.baseUrl)) {
      const use =
        found.from === 'SIGNET_URL'
          ? `set SIGNET_URL=${credentials.baseUrl} (or unset it) to use this file`
          : `set SIGNET_URL=${credentials.baseUrl} to use this file with that server`;
      throw new Error(
        `the credentials file ${credentials.file} is for the server at ${credentials.baseUrl}, but ${found.from} names ${found.url}: ` +
          `${use}, or give credentials of ${found.url} (--credentials FILE or SIGNET_CREDENTIALS; \`signet org create --name NAME\` makes a first key)`,
      );
    }
    return found;
  }
  return found ?? { url: options.fallback, from: `the default of SIGNET_URL (nothing in ${path.join(dataDir, SERVER_FILE)})` };
}

/** The credentials file's baseUrl, when it names one (a file without it is taken to be for the server found). */
export function credentialsBaseUrl(fields: Record<string, unknown>, file: string): string | undefined {
  const { baseUrl } = fields;
  if (baseUrl === undefined) return undefined;
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^\s]+$/.test(baseUrl) || baseUrl.length > 2048) {
    throw new Error(`the credentials file ${file}: baseUrl must be the server's http(s) URL`);
  }
  return baseUrl;
}

/** Reads a credentials file's JSON object: undefined when it does not exist; an Error naming the file when it is unreadable or not JSON. */
export function readCredentialsFile(file: string): Record<string, unknown> | undefined {
  let text: string | undefined;
  try {
    text = readSmall(file);
  } catch (error) {
    throw new Error(`cannot read the credentials file ${file}: ${(error as Error).message}`);
  }
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`the credentials file ${file} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`the credentials file ${file} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

/**
 * Writes a credentials file (mode 0600, its folder 0700 when made here). Without `replace` an
 * existing file is left as it is: false is returned.
 */
export function writeCredentialsFile(file: string, credentials: object, replace = false): boolean {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const text = `${JSON.stringify(credentials, null, 2)}\n`;
  try {
    fs.writeFileSync(file, text, { mode: 0o600, flag: replace ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  fs.chmodSync(file, 0o600);
  return true;
}
