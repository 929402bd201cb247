// The `signet` command: `serve` and `migrate` act directly; the admin commands call a running
// server's admin API (SIGNET_URL), so they work while the embedded store is held by the server.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { devCredentialsHelp, devCredentialsPath } from './admin/devBootstrap.ts';
import { appProofProblems } from './activities/appProofs.ts';
import { adminTokenPath } from './admin/localSecrets.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openConfiguredDatabase, startServer } from './server.ts';
import { EmbeddedStoreInUse } from './store/embeddedLock.ts';
import { migrate } from './store/migrate.ts';

const USAGE = `Usage: signet <command> [options]

Commands:
  serve                                   run the service (the same as npm start)
  migrate                                 apply database migrations and exit
  org create --name N [--json]            create an organization with a root user and API key
  user create --org ID [--email E] [--phone P] [--name N] [--json]
                                          create a user; email and phone are unique in the organization
  user list --org ID [--json]             the organization's users, newest first
  user remove --org ID --user ID [--json] remove a user and revoke all its API keys and passkeys at once
  apikey create --org ID --user ID [--name N] [--expires-in SECONDS] [--public-key HEX] [--json]
  apikey revoke --org ID --key ID         revoke an API key at once
  sender-domain add --org ID --domain D   allow sendFromEmailAddress on domain D
  template add --org ID --subject S --html FILE --text FILE [--name N] [--json]
                                          store an OTP email template (Handlebars)
  template list --org ID [--json]         the organization's templates, newest (the default) first
  template remove --org ID --id TEMPLATE  delete a template
  delivery list --org ID [--status S] [--otp ID] [--limit N] [--json]
                                          delivery state of OTP messages, newest first
                                          (S: queued, sending, retrying, sent, failed)
  proof verify FILE [--key HEX]...        check a saved activity's App Proofs offline; --key pins
                                          the proof keys you trust (get_app_proof_keys)

Admin commands talk to the running server at SIGNET_URL (default http://127.0.0.1:8080) with
SIGNET_ADMIN_TOKEN, or the token file the server wrote into SIGNET_DATA_DIR.`;

class UsageError extends Error {}

type Flags = Record<string, string | boolean | undefined>;

function flags(args: string[], spec: Record<string, 'string' | 'boolean'>): Flags {
  try {
    const options = Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type }]));
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Flags;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(values: Flags, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function adminCall(config: Config, method: string, path: string, body?: unknown): Promise<unknown> {
  let token = config.adminToken;
  if (!token) {
    try {
      token = fs.readFileSync(adminTokenPath(config), 'utf8').trim();
    } catch {
      throw new Error(`no admin token: set SIGNET_ADMIN_TOKEN or start the server once so it writes ${adminTokenPath(config)}`);
    }
  }
  let response: Response;
  try {
    response = await fetch(`${config.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    throw new Error(`cannot reach the Signet server at ${config.url} (is it running? set SIGNET_URL): ${(error as Error).message}`);
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: reported as text below
  }
  if (!response.ok) {
    const message = typeof parsed === 'object' && parsed && 'message' in parsed ? (parsed as { message: string }).message : text;
    throw new Error(`${response.status}: ${message}`);
  }
  return parsed;
}

function print(result: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(result) + '\n');
    return;
  }
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    process.stdout.write(`${key}: ${String(value)}\n`);
  }
}

async function serve(config: Config): Promise<number> {
  // Log lines are written asynchronously (a busy server does not wait on standard output) and
  // flushed when the process stops.
  const stream = pino.destination({ dest: 1, sync: false });
  const server = await startServer(config, { logger: { level: config.logLevel, stream } });
  const storage = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  server.app.log.info({ url: server.url, storage }, 'Signet is listening');
  if (server.devCredentials) process.stdout.write(devCredentialsHelp(devCredentialsPath(config)) + '\n');
  return new Promise<number>((resolve) => {
    const shutdown = (signal: NodeJS.Signals) => {
      // Listening no more, a second signal of either kind gets Node's default: stop at once.
      process.off('SIGINT', shutdown);
      process.off('SIGTERM', shutdown);
      const started = Date.now();
      server.app.log.info({ signal }, 'shutting down: no new connections; finishing the requests in flight and the sends under way');
      // The graceful close is bounded: past SIGNET_SHUTDOWN_TIMEOUT_MS the process exits anyway,
      // which closes every socket left (clients see the connection drop; PostgreSQL ends those
      // sessions, rolling back their transactions). Nothing committed is lost.
      const deadline = setTimeout(() => {
        server.app.log.error(
          { signal, shutdownMs: Date.now() - started },
          `shutdown did not finish within ${config.shutdownTimeoutMs} ms (SIGNET_SHUTDOWN_TIMEOUT_MS); exiting with the requests or delivery in hand cut off`,
        );
        stream.flushSync();
        process.exit(1);
      }, config.shutdownTimeoutMs);
      server.close().then(
        () => {
          clearTimeout(deadline);
          server.app.log.info({ signal, shutdownMs: Date.now() - started }, 'Signet stopped');
          stream.flushSync();
          resolve(0);
        },
        (error) => {
          clearTimeout(deadline);
          server.app.log.error({ err: error }, 'shutdown failed');
          stream.flushSync();
          resolve(1);
        },
      );
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
}

function readFileArgument(values: Flags, name: string): string {
  const file = required(values, name);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--${name}: cannot read ${file}: ${(error as Error).message}`);
  }
}

async function template(config: Config, sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'add') {
    const values = flags(rest, { org: 'string', subject: 'string', html: 'string', text: 'string', name: 'string', json: 'boolean' });
    const body = {
      subject: required(values, 'subject'),
      html: readFileArgument(values, 'html'),
      text: readFileArgument(values, 'text'),
      ...(values.name ? { name: values.name } : {}),
    };
    const created = (await adminCall(config, 'POST', `/organizations/${encodeURIComponent(required(values, 'org'))}/email-templates`, body)) as Record<string, unknown>;
    print(values.json === true ? created : { templateId: created.templateId, name: created.name, createdAt: created.createdAt }, values.json === true);
    return 0;
  }
  if (sub === 'list') {
    const values = flags(rest, { org: 'string', json: 'boolean' });
    const { emailTemplates } = (await adminCall(config, 'GET', `/organizations/${encodeURIComponent(required(values, 'org'))}/email-templates`)) as {
      emailTemplates: Array<{ templateId: string; name: string; subject: string; createdAt: string }>;
    };
    if (values.json === true) {
      process.stdout.write(JSON.stringify(emailTemplates) + '\n');
    } else {
      for (const t of emailTemplates) process.stdout.write(`${t.templateId}  ${t.createdAt}  ${t.name}  (${t.subject})\n`);
    }
    return 0;
  }
  if (sub === 'remove') {
    const values = flags(rest, { org: 'string', id: 'string', json: 'boolean' });
    const path = `/organizations/${encodeURIComponent(required(values, 'org'))}/email-templates/${encodeURIComponent(required(values, 'id'))}`;
    print(await adminCall(config, 'DELETE', path), values.json === true);
    return 0;
  }
  throw new UsageError('expected: signet template add|list|remove …');
}

async function user(config: Config, sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'create') {
    const values = flags(rest, { org: 'string', email: 'string', phone: 'string', name: 'string', json: 'boolean' });
    const org = required(values, 'org');
    const body = {
      ...(typeof values.name === 'string' ? { userName: values.name } : {}),
      ...(typeof values.email === 'string' ? { email: values.email } : {}),
      ...(typeof values.phone === 'string' ? { phoneNumber: values.phone } : {}),
    };
    print(await adminCall(config, 'POST', `/organizations/${encodeURIComponent(org)}/users`, body), values.json === true);
    return 0;
  }
  if (sub === 'list') {
    const values = flags(rest, { org: 'string', json: 'boolean' });
    const base = `/organizations/${encodeURIComponent(required(values, 'org'))}/users?limit=500`;
    const users: Array<Record<string, string>> = [];
    // Every page, newest first: the next one starts after the last user of the one before.
    for (let after = ''; ; ) {
      const page = ((await adminCall(config, 'GET', `${base}${after && `&after=${after}`}`)) as { users: Array<Record<string, string>> }).users;
      if (page.length === 0) break;
      users.push(...page);
      after = page[page.length - 1]!.userId!;
    }
    if (values.json === true) {
      process.stdout.write(JSON.stringify(users) + '\n');
    } else {
      for (const u of users) {
        process.stdout.write(`${u.userId}  ${u.createdAt}  ${u.userName}${u.email ? `  ${u.email}` : ''}${u.phoneNumber ? `  ${u.phoneNumber}` : ''}\n`);
      }
    }
    return 0;
  }
  if (sub === 'remove') {
    const values = flags(rest, { org: 'string', user: 'string', json: 'boolean' });
    const path = `/organizations/${encodeURIComponent(required(values, 'org'))}/users/${encodeURIComponent(required(values, 'user'))}`;
    print(await adminCall(config, 'DELETE', path), values.json === true);
    return 0;
  }
  throw new UsageError('expected: signet user create|list|remove …');
}

async function delivery(config: Config, sub: string | undefined, rest: string[]): Promise<number> {
  if (sub !== 'list') throw new UsageError('expected: signet delivery list --org ID [--status S] [--otp ID] [--limit N]');
  const values = flags(rest, { org: 'string', status: 'string', otp: 'string', limit: 'string', json: 'boolean' });
  const query = new URLSearchParams();
  for (const [flag, key] of [['status', 'status'], ['otp', 'otpId'], ['limit', 'limit']] as const) {
    if (typeof values[flag] === 'string') query.set(key, values[flag]);
  }
  const path = `/organizations/${encodeURIComponent(required(values, 'org'))}/deliveries${query.size ? `?${query}` : ''}`;
  const { deliveries } = (await adminCall(config, 'GET', path)) as { deliveries: Array<Record<string, unknown>> };
  if (values.json === true) {
    process.stdout.write(JSON.stringify(deliveries) + '\n');
    return 0;
  }
  for (const d of deliveries) {
    const detail = [d.providerMessageId && `id ${d.providerMessageId}`, d.lastError && `error: ${d.lastError}`, d.logoError && `logo: ${d.logoError}`];
    process.stdout.write(
      `${d.createdAt}  ${d.status}  ${d.channel}  ${d.to}  otp ${d.otpId}  attempts ${d.attempts}` +
        detail.filter(Boolean).map((x) => `  ${x}`).join('') + '\n',
    );
  }
  return 0;
}

/** `signet proof verify`: needs no server and no configuration, only the saved activity. */
function proof(sub: string | undefined, rest: string[]): number {
  if (sub !== 'verify') throw new UsageError('expected: signet proof verify FILE [--key HEX]');
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { key: { type: 'string', multiple: true } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [file] = parsed.positionals;
  if (!file || parsed.positionals.length > 1) throw new UsageError('give one FILE: a saved activity (JSON)');
  let saved: any;
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    process.stderr.write(`signet: ${file} is not a readable JSON file: ${(error as Error).message}\n`);
    return 1;
  }
  const activity = saved?.activity ?? saved;
  const resultEntries = Object.entries(activity?.result ?? {}).filter(([key]) => key !== 'activity');
  if (typeof activity?.id !== 'string' || resultEntries.length !== 1) {
    process.stderr.write(`signet: ${file} does not hold an activity (a submission's or get_activity's answer)\n`);
    return 1;
  }
  const problems = appProofProblems(
    {
      id: activity.id,
      type: activity.type,
      organizationId: activity.organizationId,
      fingerprint: activity.fingerprint,
      timestampMs: activity.timestampMs,
      result: resultEntries[0]![1] as object,
    },
    Array.isArray(activity.appProofs) ? activity.appProofs : [],
    parsed.values.key?.map((k) => k.toLowerCase()),
  );
  if (problems.length > 0) {
    process.stdout.write(`INVALID: activity ${activity.id}\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write(`valid: activity ${activity.id} (${activity.type}) is proven by ${activity.appProofs.length} App Proof(s)\n`);
  return 0;
}

async function run(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return command === undefined ? 2 : 0;
  }
  if (command === 'proof') return proof(sub, rest);
  const config = loadConfig();
  switch (command) {
    case 'serve':
      flags(argv.slice(1), {});
      return serve(config);
    case 'migrate': {
      flags(argv.slice(1), {});
      const db = await openConfiguredDatabase(config, 'signet migrate');
      try {
        const applied = await migrate(db);
        process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'schema is up to date\n');
      } finally {
        await db.close();
      }
      return 0;
    }
    case 'org': {
      if (sub !== 'create') throw new UsageError('expected: signet org create --name N');
      const values = flags(rest, { name: 'string', json: 'boolean' });
      print(await adminCall(config, 'POST', '/organizations', { name: required(values, 'name') }), values.json === true);
      return 0;
    }
    case 'apikey': {
      if (sub === 'create') {
        const values = flags(rest, { org: 'string', user: 'string', name: 'string', 'expires-in': 'string', 'public-key': 'string', json: 'boolean' });
        const expiresIn = values['expires-in'];
        if (expiresIn !== undefined && !/^\d+$/.test(String(expiresIn))) throw new UsageError('--expires-in takes a number of seconds');
        const body = {
          userId: required(values, 'user'),
          ...(values.name ? { name: values.name } : {}),
          ...(expiresIn !== undefined ? { expiresInSeconds: Number(expiresIn) } : {}),
          ...(values['public-key'] ? { publicKey: values['public-key'] } : {}),
        };
        print(await adminCall(config, 'POST', `/organizations/${encodeURIComponent(required(values, 'org'))}/api-keys`, body), values.json === true);
        return 0;
      }
      if (sub === 'revoke') {
        const values = flags(rest, { org: 'string', key: 'string', json: 'boolean' });
        const path = `/organizations/${encodeURIComponent(required(values, 'org'))}/api-keys/${encodeURIComponent(required(values, 'key'))}`;
        print(await adminCall(config, 'DELETE', path), values.json === true);
        return 0;
      }
      throw new UsageError('expected: signet apikey create|revoke …');
    }
    case 'sender-domain': {
      if (sub !== 'add') throw new UsageError('expected: signet sender-domain add --org ID --domain D');
      const values = flags(rest, { org: 'string', domain: 'string', json: 'boolean' });
      const path = `/organizations/${encodeURIComponent(required(values, 'org'))}/sender-domains`;
      print(await adminCall(config, 'POST', path, { domain: required(values, 'domain') }), values.json === true);
      return 0;
    }
    case 'user':
      return user(config, sub, rest);
    case 'template':
      return template(config, sub, rest);
    case 'delivery':
      return delivery(config, sub, rest);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`signet: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`signet: configuration error: ${error.message}\n`);
      return 2;
    }
    if (error instanceof EmbeddedStoreInUse) {
      process.stderr.write(`signet: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`signet: ${(error as Error).message}\n`);
    return 1;
  }
}
