// What `signet serve` says once it is ready: where it listens, its reference page, where it keeps its
// data, the development files (admin token, mailbox, SMS log) when it uses them, the credentials of
// the data folder that are this server's, and the exact commands that run the examples against it —
// or, when there are none, the command that makes a first key. One set of facts, two renderings: a
// short summary for a person at a terminal, and the fields of one `Signet is ready` log line otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { devCredentialsHelp, devCredentialsPath } from '../admin/devBootstrap.ts';
import { countOrganizations } from '../admin/organizations.ts';
import { adminTokenPath } from '../admin/localSecrets.ts';
import { displayedValue, type Config } from '../config.ts';
import type { ConnectionBounds } from '../http/connectionLimits.ts';
import type { Database } from '../store/db.ts';
import { findOrganizationPlace } from '../store/organizations.ts';
import { PACKAGE_ROOT, VERSION } from './packageInfo.ts';
import { CREDENTIALS_FILE, credentialsLocation, readCredentialsFile, sameServer } from './serverLocation.ts';
const EXAMPLES = ['submit.ts', 'verify.ts', 'otp-login.ts'];

export interface StartupFacts {
  version: string;
  url: string;
  docs: string;
  /** The console, at SIGNET_PUBLIC_URL (localhost by default, where passkeys work). */
  console: string;
  storage: string;
  dataDir: string;
  /** How many connections the server holds open at most, and why. */
  connections: string;
  /** dev-credentials.json, when it names this server and its store has the development organization. */
  devCredentials?: string;
  /** True on the start that created the development organization and wrote the file. */
  devCredentialsWritten?: true;
  /** credentials.json (`signet org create` wrote it), when it names this server and an organization its store has. */
  credentials?: string;
  /** With neither credentials file and no organization in the store: the command that makes a first organization and key, and writes credentials.json. */
  firstKey?: string;
  /** With neither credentials file but organizations in the store (a restored backup holds no credentials files): how many. */
  organizationsWithoutKey?: number;
  /** With organizationsWithoutKey: the commands that list them and their users, and give one a key. */
  keyCommands?: string[];
  /** SIGNET_DATA_DIR/otp-secret, when SIGNET_OTP_SECRET is not set: where the deployment secret is kept, and whether this start generated it. */
  secretFile?: { path: string; generated: boolean };
  /** The generated admin token, when SIGNET_ADMIN_TOKEN is not set. */
  adminTokenFile?: string;
  /** The development mailbox, when SIGNET_SMTP_URL is not set. */
  mailbox?: string;
  /** The development SMS log, when SIGNET_SMS_PROVIDER is not set. */
  smsLog?: string;
  /** The id of the key-encryption key in the HSM, when SIGNET_PKCS11_* are set. */
  hsmKey?: string;
  /** Commands that run the examples against this server with the credentials of the data folder. */
  examples?: string[];
}

/** A word the shell takes as it is, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command run from the package's folder that reads SIGNET_DATA_DIR (default .signet there): the
 * folder is named when the current one is another, the data folder when it is not the default, and
 * the credentials file when it is given (`credentials`).
 */
function packageCommand(dataDir: string, cwd: string, command: string, credentials?: string): string {
  const prefix = [
    ...(path.resolve(cwd) === PACKAGE_ROOT ? [] : [`cd ${shellWord(PACKAGE_ROOT)} &&`]),
    ...(dataDir === path.join(PACKAGE_ROOT, '.signet') ? [] : [`SIGNET_DATA_DIR=${shellWord(dataDir)}`]),
    ...(credentials === undefined ? [] : [`SIGNET_CREDENTIALS=${shellWord(credentials)}`]),
  ];
  return [...prefix, command].join(' ');
}

/**
 * The examples find the server and the key through SIGNET_DATA_DIR, as serverLocation.ts chooses
 * (credentials.json before dev-credentials.json): when that choice is not one of this server's
 * files (a credentials.json of a PostgreSQL server tried in the same folder), the commands name
 * this server's file with SIGNET_CREDENTIALS, so they are exact.
 */
export function exampleCommands(dataDir: string, cwd: string, credentials: ServerCredentials = {}): string[] {
  const own = [credentials.written, credentials.development].filter((file): file is string => file !== undefined);
  const chosen = credentialsLocation(dataDir, undefined, {}).file;
  const named = own.length === 0 || own.includes(chosen) ? undefined : own[0];
  const present = EXAMPLES.filter((file) => fs.existsSync(path.join(PACKAGE_ROOT, 'examples', file)));
  return present.map((file) => packageCommand(dataDir, cwd, `npx tsx examples/${file}`, named));
}

/** The command that makes a first organization and key for this server, writing the data folder's credentials.json. */
export function firstKeyCommand(dataDir: string, cwd: string): string {
  return packageCommand(dataDir, cwd, 'npx signet org create --name NAME');
}

/** For a store with organizations but no key of them in the data folder: list them, list a user, give it a key. */
export function keyCommands(dataDir: string, cwd: string): string[] {
  return ['npx signet org list', 'npx signet user list --org ID', 'npx signet apikey create --org ID --user ID'].map((command) => packageCommand(dataDir, cwd, command));
}

/** The credentials files of the data folder that are this server's: they name its URL and an organization its store has. */
export interface ServerCredentials {
  /** dev-credentials.json, for the development organization. */
  development?: string;
  /** credentials.json, written by `signet org create`. */
  written?: string;
  /** How many organizations the store holds (with no file of this server, a restored store still has them). */
  organizations?: number;
}

/** A credentials file's fields; undefined when it is missing or not a credentials file at all. */
function fieldsOf(file: string): Record<string, unknown> | undefined {
  try {
    return readCredentialsFile(file);
  } catch {
    return undefined;
  }
}

async function livingOrganization(db: Database, id: unknown): Promise<boolean> {
  if (typeof id !== 'string') return false;
  const place = await findOrganizationPlace(db, id);
  return place !== undefined && place.deletedAt === null;
}

/**
 * Which of the data folder's credentials files are for this server at `url`. On the embedded store
 * the data folder holds the store itself, so the development credentials of an organization it has
 * follow the server to another address: their baseUrl is rewritten to `url`.
 */
export async function serverCredentials(db: Database, config: Config, url: string): Promise<ServerCredentials> {
  const found: ServerCredentials = {};
  const development = devCredentialsPath(config);
  const dev = fieldsOf(development);
  if (dev && (await livingOrganization(db, dev.organizationId))) {
    if (db.kind === 'pglite' && !(typeof dev.baseUrl === 'string' && sameServer(dev.baseUrl, url))) {
      fs.writeFileSync(development, `${JSON.stringify({ ...dev, baseUrl: url }, null, 2)}\n`, { mode: 0o600 });
      dev.baseUrl = url;
    }
    if (typeof dev.baseUrl === 'string' && sameServer(dev.baseUrl, url)) found.development = development;
  }
  const written = path.join(config.dataDir, CREDENTIALS_FILE);
  const fields = fieldsOf(written);
  if (fields && typeof fields.baseUrl === 'string' && sameServer(fields.baseUrl, url) && (await livingOrganization(db, fields.organizationId))) {
    found.written = written;
  }
  if (found.development === undefined && found.written === undefined) found.organizations = await countOrganizations(db);
  return found;
}

/** The connection bounds in words: the server's, from the open-file limit, and the per-address cap. */
export function connectionsFact({ openFiles, reserve, maxConnections, perAddress }: ConnectionBounds): string {
  const server =
    maxConnections === undefined
      ? 'no bound from the open-file limit (unlimited or unknown)'
      : `at most ${maxConnections} (open-file limit ${openFiles}, ${reserve} kept for the store, delivery and logs)`;
  return `${server}; ${perAddress === 0 ? 'no cap per client address' : `${perAddress} per client address`}`;
}

export function startupFacts(
  config: Config,
  server: { url: string; devCredentials?: unknown; connections: ConnectionBounds; secretFile?: { path: string; generated: boolean }; kek?: { id: string } },
  credentials: ServerCredentials,
  cwd = process.cwd(),
): StartupFacts {
  const hasCredentials = credentials.development !== undefined || credentials.written !== undefined;
  return {
    version: VERSION,
    url: server.url,
    docs: `${server.url}/docs`,
    console: `${config.publicUrl}/console`,
    storage: config.databaseUrl ? `PostgreSQL ${displayedValue('SIGNET_DATABASE_URL', config.databaseUrl)}` : `embedded PGlite in ${path.join(config.dataDir, 'pglite')}`,
    dataDir: config.dataDir,
    connections: connectionsFact(server.connections),
    ...(credentials.development ? { devCredentials: credentials.development } : {}),
    ...(credentials.development && server.devCredentials ? { devCredentialsWritten: true as const } : {}),
    ...(credentials.written ? { credentials: credentials.written } : {}),
    ...(config.adminToken === undefined ? { adminTokenFile: adminTokenPath(config) } : {}),
    ...(config.smtpUrl === undefined ? { mailbox: path.join(config.dataDir, 'mail') } : {}),
    ...(config.sms.provider === 'development' ? { smsLog: path.join(config.dataDir, 'sms.log') } : {}),
    ...(config.pkcs11 && server.kek ? { hsmKey: server.kek.id } : {}),
    ...(server.secretFile ? { secretFile: server.secretFile } : {}),
    ...(hasCredentials
      ? { examples: exampleCommands(config.dataDir, cwd, credentials) }
      : credentials.organizations
        ? { organizationsWithoutKey: credentials.organizations, keyCommands: keyCommands(config.dataDir, cwd) }
        : { firstKey: firstKeyCommand(config.dataDir, cwd) }),
  };
}

/** Where the deployment secret is kept, and, on the start that generated it, that it was. */
function secretText(file: { path: string; generated: boolean }, storage: string): string {
  const shared = storage.startsWith('PostgreSQL') ? '; every process sharing the database needs the same: set SIGNET_OTP_SECRET' : '';
  return `${file.path} (${file.generated ? 'generated by this start, as ' : ''}SIGNET_OTP_SECRET is not set; back it up with the store${shared})`;
}

/** The summary a person reads at a terminal, whose log lines go to standard error at `logLevel`. */
export function renderSummary(facts: StartupFacts, logLevel: string): string {
  const rows: Array<[string, string | undefined]> = [
    ['API reference', facts.docs],
    ['Console', facts.console],
    ['Storage', facts.storage],
    ['Data folder', facts.dataDir],
    ['Connections', facts.connections],
    ['Admin token', facts.adminTokenFile && `${facts.adminTokenFile} (the signet CLI reads it)`],
    ['Deployment secret', facts.secretFile && secretText(facts.secretFile, facts.storage)],
    ['Dev mailbox', facts.mailbox && `${facts.mailbox}${path.sep} (OTP email, one .eml file each)`],
    ['SMS log', facts.smsLog],
    ['HSM key', facts.hsmKey && `${facts.hsmKey} (wraps the wallet keys' data keys)`],
    ['Dev credentials', facts.devCredentialsWritten ? undefined : facts.devCredentials],
    ['Credentials', facts.credentials],
  ];
  const lines = [
    `Signet ${facts.version} is ready at ${facts.url}`,
    ...rows.filter((row): row is [string, string] => row[1] !== undefined).map(([label, value]) => `  ${label.padEnd(18)}${value}`),
  ];
  if (facts.devCredentialsWritten && facts.devCredentials) lines.push('', devCredentialsHelp(facts.devCredentials));
  if (facts.examples?.length) lines.push('', 'Try the examples, in another terminal:', ...facts.examples.map((command) => `  ${command}`));
  if (facts.organizationsWithoutKey) {
    lines.push(
      '',
      `The store has ${facts.organizationsWithoutKey} organization${facts.organizationsWithoutKey === 1 ? '' : 's'}, but the data folder holds no API key of this server for them (the credentials files are neither in the store nor in a backup).`,
      'List them and a user of one, and give it a key, in another terminal:',
      ...(facts.keyCommands ?? []).map((command) => `  ${command}`),
    );
  }
  if (facts.firstKey) {
    lines.push(
      '',
      'No API key of this server in the data folder yet. Create an organization and its first key, in another terminal:',
      `  ${facts.firstKey}`,
      `It prints the key once and writes ${path.join(facts.dataDir, CREDENTIALS_FILE)}, which the signet CLI and the examples read.`,
    );
  }
  const logs =
    logLevel === 'warn'
      ? 'Logs: warnings and errors, as JSON lines on standard error (SIGNET_LOG_LEVEL=info for every event).'
      : `Logs: JSON lines at ${logLevel} on standard error.`;
  lines.push('', `${logs} Stop with Ctrl-C.`);
  return lines.join('\n');
}
