// What `signet serve` says once it is ready: where it listens, its reference page, where it keeps its
// data, the development files (credentials, admin token, mailbox, SMS log) when it uses them, and the
// exact commands that run the examples against it. One set of facts, two renderings: a short summary
// for a person at a terminal, and the fields of one `Signet is ready` log line otherwise.
import fs from 'node:fs';
import path from 'node:path';
import { devCredentialsHelp, devCredentialsPath } from '../admin/devBootstrap.ts';
import { adminTokenPath } from '../admin/localSecrets.ts';
import { displayedValue, type Config } from '../config.ts';
import type { ConnectionBounds } from '../http/connectionLimits.ts';
import { PACKAGE_ROOT, VERSION } from './packageInfo.ts';
const EXAMPLES = ['submit.ts', 'verify.ts', 'otp-login.ts'];

export interface StartupFacts {
  version: string;
  url: string;
  docs: string;
  storage: string;
  dataDir: string;
  /** How many connections the server holds open at most, and why. */
  connections: string;
  /** dev-credentials.json, when the embedded store's development organization has one. */
  devCredentials?: string;
  /** True on the start that created the development organization and wrote the file. */
  devCredentialsWritten?: true;
  /** The generated admin token, when SIGNET_ADMIN_TOKEN is not set. */
  adminTokenFile?: string;
  /** The development mailbox, when SIGNET_SMTP_URL is not set. */
  mailbox?: string;
  /** The development SMS log, when SIGNET_SMS_PROVIDER is not set. */
  smsLog?: string;
  /** Commands that run the examples against this server with the development credentials. */
  examples?: string[];
}

/** A word the shell takes as it is, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The examples run from the package's folder and read SIGNET_DATA_DIR (default .signet there) to
 * find dev-credentials.json, which holds this server's URL: so the folder is named when the current
 * one is another, and the data folder when it is not the examples' default.
 */
export function exampleCommands(dataDir: string, cwd: string): string[] {
  const present = EXAMPLES.filter((file) => fs.existsSync(path.join(PACKAGE_ROOT, 'examples', file)));
  const prefix = [
    ...(path.resolve(cwd) === PACKAGE_ROOT ? [] : [`cd ${shellWord(PACKAGE_ROOT)} &&`]),
    ...(dataDir === path.join(PACKAGE_ROOT, '.signet') ? [] : [`SIGNET_DATA_DIR=${shellWord(dataDir)}`]),
  ];
  return present.map((file) => [...prefix, 'npx tsx', `examples/${file}`].join(' '));
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
  server: { url: string; devCredentials?: unknown; connections: ConnectionBounds },
  cwd = process.cwd(),
): StartupFacts {
  const credentials = devCredentialsPath(config);
  const hasCredentials = fs.existsSync(credentials);
  return {
    version: VERSION,
    url: server.url,
    docs: `${server.url}/docs`,
    storage: config.databaseUrl ? `PostgreSQL ${displayedValue('SIGNET_DATABASE_URL', config.databaseUrl)}` : `embedded PGlite in ${path.join(config.dataDir, 'pglite')}`,
    dataDir: config.dataDir,
    connections: connectionsFact(server.connections),
    ...(hasCredentials ? { devCredentials: credentials } : {}),
    ...(server.devCredentials ? { devCredentialsWritten: true as const } : {}),
    ...(config.adminToken === undefined ? { adminTokenFile: adminTokenPath(config) } : {}),
    ...(config.smtpUrl === undefined ? { mailbox: path.join(config.dataDir, 'mail') } : {}),
    ...(config.sms.provider === 'development' ? { smsLog: path.join(config.dataDir, 'sms.log') } : {}),
    ...(hasCredentials ? { examples: exampleCommands(config.dataDir, cwd) } : {}),
  };
}

/** The summary a person reads at a terminal, whose log lines go to standard error at `logLevel`. */
export function renderSummary(facts: StartupFacts, logLevel: string): string {
  const rows: Array<[string, string | undefined]> = [
    ['API reference', facts.docs],
    ['Storage', facts.storage],
    ['Data folder', facts.dataDir],
    ['Connections', facts.connections],
    ['Admin token', facts.adminTokenFile && `${facts.adminTokenFile} (the signet CLI reads it)`],
    ['Dev mailbox', facts.mailbox && `${facts.mailbox}${path.sep} (OTP email, one .eml file each)`],
    ['SMS log', facts.smsLog],
    ['Dev credentials', facts.devCredentialsWritten ? undefined : facts.devCredentials],
  ];
  const lines = [
    `Signet ${facts.version} is ready at ${facts.url}`,
    ...rows.filter((row): row is [string, string] => row[1] !== undefined).map(([label, value]) => `  ${label.padEnd(18)}${value}`),
  ];
  if (facts.devCredentialsWritten && facts.devCredentials) lines.push('', devCredentialsHelp(facts.devCredentials));
  if (facts.examples?.length) lines.push('', 'Try the examples, in another terminal:', ...facts.examples.map((command) => `  ${command}`));
  const logs =
    logLevel === 'warn'
      ? 'Logs: warnings and errors, as JSON lines on standard error (SIGNET_LOG_LEVEL=info for every event).'
      : `Logs: JSON lines at ${logLevel} on standard error.`;
  lines.push('', `${logs} Stop with Ctrl-C.`);
  return lines.join('\n');
}
