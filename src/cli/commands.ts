// Every `signet` command, declared once: name, subcommand, summary, flags, arguments and handler. The
// table drives parsing, `signet help`, each command's --help, usage errors and docs/cli.md's command
// table (test/cli.test.ts keeps them equal). `serve`, `migrate`, `config` and `proof verify` act
// here; the admin commands call a running server's admin API (SIGNET_URL), so they work while the
// embedded store is held by the server; the policy, quorum and activity commands call its public API
// as a user of an organization, stamped with that user's API key (userClient.ts), so the
// organization's authorization decides them like any client's request.
import { ConfigError, configurationReport, loadConfig, unknownVariableMessage, unknownVariables, type Config } from '../config.ts';
import { ADMIN_ROUTES, type AdminRoute, type AdminRow } from '../http/adminApi.ts';
import { adminClient } from './adminClient.ts';
import { adminRequest } from './adminRequest.ts';
import { helpPage, UsageError, type Command, type Context, type Flag, type Input } from './command.ts';
import { orgCreateCommand } from './orgCreate.ts';
import { print } from './output.ts';
import { flagsNamingFields, namingFlags, ServerError } from './serverError.ts';
import { OTHER_VARIABLES } from './serverLocation.ts';
import { userClient } from './userClient.ts';

const json: Flag = { type: 'boolean', description: 'print the answer as JSON' };


/** Rows under a header, in columns (the last one not padded); `empty` alone when there are none. */
function printTable(header: string[], rows: string[][], empty: string): void {
  if (rows.length === 0) {
    process.stdout.write(`${empty}\n`);
    return;
  }
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}

/** A list: a table under a header (`empty` when there are none), or with --json the items as a JSON array. */
function printList<T>(items: T[], input: Input, header: string[], row: (item: T) => string[], empty: string): number {
  if (input.on('json')) process.stdout.write(`${JSON.stringify(items)}\n`);
  else printTable(header, items.map(row), empty);
  return 0;
}

function admin(context: Context) {
  return adminClient(context.config());
}

/** The signet command of an admin route, as its declaration says: its flags fill the request, and it prints the answer. */
function adminCommand(route: AdminRoute): Command {
  const command = route.cli;
  if (!command) throw new Error(`no signet command calls ${route.method.toUpperCase()} ${route.path}`);
  const { output } = command;
  const flags = flagsNamingFields(command.flags);
  return {
    name: command.name,
    sub: command.sub,
    summary: command.summary,
    flags: { ...flags, json },
    admin: true,
    async run(input, context) {
      const { path, body } = adminRequest(route, command.flags, input);
      const client = admin(context);
      if (output && 'items' in output) {
        const items = output.pagedBy
          ? await client.everyPage<AdminRow>(path, output.items, output.pagedBy)
          : (await client.call<Record<string, AdminRow[]>>(route.method.toUpperCase(), path))[output.items]!;
        const empty = typeof output.empty === 'string' ? output.empty : output.empty((name) => input.get(name));
        return printList(items, input, output.columns.map((c) => c.title), (item) => output.columns.map((c) => c.cell(item)), empty);
      }
      const answer = await client.call(route.method.toUpperCase(), path, body);
      const fields = output?.fields;
      print(fields && !input.on('json') ? Object.fromEntries(fields.map((name) => [name, answer[name]])) : answer, input, output?.secretFields);
      return output?.succeeded && !output.succeeded(answer) ? 1 : 0;
    },
  };
}

/** The command, its server errors naming the flags the user typed where they name the request fields those filled. */
function namingItsFlags(command: Command): Command {
  return {
    ...command,
    async run(input, context) {
      try {
        return await command.run(input, context);
      } catch (error) {
        throw error instanceof ServerError ? namingFlags(error, command, input) : error;
      }
    },
  };
}

const credentials: Flag = {
  type: 'string',
  value: 'FILE',
  description: 'the API key to stamp with: a JSON file {baseUrl, organizationId, apiPublicKey, apiPrivateKey} (default: SIGNET_CREDENTIALS, else SIGNET_DATA_DIR/credentials.json, else SIGNET_DATA_DIR/dev-credentials.json)',
};

function user(input: Input, context: Context) {
  return userClient(context.config(), input.get('credentials'));
}

const short = (value: unknown, prefix: string) => String(value ?? '').replace(prefix, '');

/** What a submission did: its status, ids and result fields; or, with --json, the activity. */
function printActivity(activity: Record<string, any>, input: Input): number {
  if (input.on('json')) {
    process.stdout.write(`${JSON.stringify(activity)}\n`);
    return 0;
  }
  const lines: Array<[string, unknown]> = [
    ['status', short(activity.status, 'ACTIVITY_STATUS_')],
    ['type', short(activity.type, 'ACTIVITY_TYPE_')],
    ['activityId', activity.id],
    ['fingerprint', activity.fingerprint],
  ];
  for (const [key, value] of Object.entries(activity.result ?? {})) {
    if (key === 'activity' || typeof value !== 'object' || value === null) continue;
    for (const [field, fieldValue] of Object.entries(value)) lines.push([field, Array.isArray(fieldValue) ? fieldValue.join(', ') : fieldValue]);
  }
  if (activity.failure) lines.push(['failure', activity.failure.message ?? JSON.stringify(activity.failure)]);
  for (const [key, value] of lines) process.stdout.write(`${key}: ${String(value)}\n`);
  if (activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED') {
    process.stdout.write(`waiting for approvals: another user who may approve runs \`signet activity approve ${activity.fingerprint}\`\n`);
  }
  return 0;
}

/**
 * `signet serve`'s configuration: --host and --port stand in for SIGNET_HOST and SIGNET_PORT, read
 * as those are (so what follows from the port, such as the default WebAuthn origin, follows the flag).
 */
function listenConfig(input: Input, context: Context): Config {
  const flags = { '--host': ['SIGNET_HOST', input.get('host')], '--port': ['SIGNET_PORT', input.get('port')] } as const;
  const given = Object.entries(flags).filter(([, [, value]]) => value !== undefined);
  if (given.length === 0) return context.config();
  try {
    return loadConfig({ ...process.env, ...Object.fromEntries(given.map(([, [variable, value]]) => [variable, value])) });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A bad flag is a wrong command line: name the flag where the setting's message names its variable.
    const message = given.reduce((text, [flag, [variable]]) => text.replaceAll(variable, flag), error.message);
    throw message === error.message ? error : new UsageError(message);
  }
}

/** The root quorum's flags as `signet org quorum` declares them, without where its request takes them. */
const ROOT_QUORUM_FLAGS = Object.fromEntries(
  (['threshold', 'user'] as const).map((name) => {
    const { to: _to, ...flag } = ADMIN_ROUTES.setRootQuorum.cli!.flags[name]!;
    return [name, flag];
  }),
) as Record<'threshold' | 'user', Flag>;

const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;
const fingerprintArg = { name: 'FINGERPRINT', description: 'the activity\'s fingerprint (sha256:…), as `signet activity list` shows it', field: 'parameters.fingerprint' };

/** The FINGERPRINT argument, checked. */
function fingerprintOf(input: Input): string {
  const fingerprint = input.args[0]!;
  if (!FINGERPRINT.test(fingerprint)) {
    throw new UsageError(`FINGERPRINT must be sha256: and 64 lowercase hex digits, as \`signet activity list\` shows it; got "${fingerprint}"`);
  }
  return fingerprint;
}

/** Activity statuses a list may be filtered by, without their ACTIVITY_STATUS_ prefix. */
const STATUSES = ['CREATED', 'PENDING', 'COMPLETED', 'FAILED', 'CONSENSUS_NEEDED', 'REJECTED', 'AUTHENTICATORS_NEEDED'];
const MAX_LISTED_ACTIVITIES = 1000;

/** A vote on the activity of FINGERPRINT: its answer is that activity, decided again. */
function vote(selection: 'approve' | 'reject'): Command['run'] {
  return async (input, context) => {
    const fingerprint = fingerprintOf(input);
    const client = user(input, context);
    const activity =
      selection === 'approve'
        ? await client.submit('approve_activity', 'ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint })
        : await client.submit('reject_activity', 'ACTIVITY_TYPE_REJECT_ACTIVITY', { fingerprint });
    return printActivity(activity, input);
  };
}

export const COMMANDS: readonly Command[] = ([
  {
    name: 'serve',
    summary: 'run the service (the same as npm start)',
    flags: {
      host: { type: 'string', value: 'ADDRESS', description: 'the address to listen on, instead of SIGNET_HOST' },
      port: { type: 'integer', value: 'N', description: 'the port to listen on (0: any free port), instead of SIGNET_PORT' },
    },
    // The modules of the service, the store, backups and proofs are loaded by the commands that use
    // them, so help and the admin commands start fast.
    run: async (input, context) => (await import('./serve.ts')).serve(listenConfig(input, context)),
  },
  {
    name: 'migrate',
    summary: 'apply database migrations and exit; --status lists applied and pending ones, --dry-run tries the pending ones and rolls back',
    flags: {
      status: { type: 'boolean', description: 'list the applied migrations (with when) and the pending ones; changes nothing' },
      'dry-run': { type: 'boolean', description: 'apply the pending migrations in one transaction and roll it back: what would be applied, or which would fail' },
      json,
    },
    run: async (input, context) => (await import('./migrate.ts')).migrateCommand(input, context.config()),
  },
  {
    name: 'stamp',
    summary: 'print the X-Stamp header for the request body on standard input, signed with the API key of --key-file (for curl or any client)',
    flags: {
      'key-file': { type: 'string', value: 'FILE', required: true, description: 'a credentials file (JSON with apiPublicKey and apiPrivateKey, as `signet org create --json` prints) or a PEM P-256 private key' },
      value: { type: 'boolean', description: 'print only the header value, without "X-Stamp: "' },
    },
    run: async (input) => (await import('./stamp.ts')).stampCommand(input),
  },
  {
    name: 'config',
    summary: "print the effective configuration: each setting's value and whether it came from the environment or is the default; secrets masked; SIGNET_* variables that are no setting named",
    flags: { json },
    run(input) {
      const report = configurationReport();
      for (const variable of unknownVariables(OTHER_VARIABLES)) process.stderr.write(`signet: warning: ${unknownVariableMessage(variable)}\n`);
      return printList(report, input, ['SETTING', 'VALUE', 'SOURCE'], (s) => [s.name, s.value, s.source], 'no settings');
    },
  },
  orgCreateCommand(ADMIN_ROUTES.createOrganization),
  adminCommand(ADMIN_ROUTES.listOrganizations),
  adminCommand(ADMIN_ROUTES.listSubOrganizations),
  adminCommand(ADMIN_ROUTES.setRootQuorum),
  adminCommand(ADMIN_ROUTES.createUser),
  adminCommand(ADMIN_ROUTES.listUsers),
  adminCommand(ADMIN_ROUTES.removeUser),
  adminCommand(ADMIN_ROUTES.createApiKey),
  adminCommand(ADMIN_ROUTES.listApiKeys),
  adminCommand(ADMIN_ROUTES.revokeApiKey),
  adminCommand(ADMIN_ROUTES.addSenderDomain),
  adminCommand(ADMIN_ROUTES.listSenderDomains),
  adminCommand(ADMIN_ROUTES.removeSenderDomain),
  adminCommand(ADMIN_ROUTES.addEmailTemplate),
  adminCommand(ADMIN_ROUTES.listEmailTemplates),
  adminCommand(ADMIN_ROUTES.removeEmailTemplate),
  adminCommand(ADMIN_ROUTES.listDeliveries),
  adminCommand(ADMIN_ROUTES.listWebhookEndpoints),
  adminCommand(ADMIN_ROUTES.testWebhookEndpoint),
  adminCommand(ADMIN_ROUTES.createAuthProxyConfig),
  adminCommand(ADMIN_ROUTES.listAuthProxyConfigs),
  adminCommand(ADMIN_ROUTES.deleteAuthProxyConfig),
  {
    name: 'policy',
    sub: 'list',
    summary: "the organization's policies: id, name, effect, condition and consensus",
    flags: { credentials, json },
    stamped: true,
    async run(input, context) {
      const { policies } = await user(input, context).query<{ policies: Array<Record<string, string>> }>('list_policies');
      return printList(
        policies,
        input,
        ['POLICY ID', 'NAME', 'EFFECT', 'CONDITION', 'CONSENSUS'],
        (p) => [p.policyId!, p.policyName!, short(p.effect, 'EFFECT_'), p.condition || '-', p.consensus || '-'],
        'no policies',
      );
    },
  },
  {
    name: 'policy',
    sub: 'create',
    summary: 'create a policy: ALLOW or DENY the activities its condition selects, when its consensus holds',
    flags: {
      name: { type: 'string', value: 'N', required: true, description: 'its name, unique in the organization', field: 'parameters.policyName' },
      effect: { type: 'string', value: 'ALLOW|DENY', required: true, description: 'what it does to the activities it applies to', field: 'parameters.effect' },
      condition: {
        type: 'string',
        value: 'E',
        description: "which activities it is about, e.g. \"activity.resource == 'AUTH'\" (default: every activity)",
        field: 'parameters.condition',
      },
      consensus: { type: 'string', value: 'E', description: "who must approve, e.g. \"approvers.count() >= 2\" (default: anyone)", field: 'parameters.consensus' },
      notes: { type: 'string', value: 'T', description: 'why it exists', field: 'parameters.notes' },
      credentials,
      json,
    },
    stamped: true,
    async run(input, context) {
      const effect = input.need('effect').toUpperCase().replace(/^EFFECT_/, '');
      if (effect !== 'ALLOW' && effect !== 'DENY') throw new UsageError(`--effect takes ALLOW or DENY, got "${input.need('effect')}"`);
      const parameters = {
        policyName: input.need('name'),
        effect: `EFFECT_${effect}` as const,
        ...(input.get('condition') !== undefined ? { condition: input.get('condition') } : {}),
        ...(input.get('consensus') !== undefined ? { consensus: input.get('consensus') } : {}),
        notes: input.get('notes') ?? '',
      };
      return printActivity(await user(input, context).submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', parameters), input);
    },
  },
  {
    name: 'policy',
    sub: 'delete',
    summary: 'delete a policy',
    flags: { credentials, json },
    args: [{ name: 'ID', description: 'the policy, as `signet policy list` shows it', field: 'parameters.policyId' }],
    stamped: true,
    run: async (input, context) =>
      printActivity(await user(input, context).submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: input.args[0]! }), input),
  },
  {
    name: 'policy',
    sub: 'test',
    summary: 'check the outcome the live root quorum and policies give each case of a file (an activity, its submitter, its approvers); nothing is stored',
    flags: { credentials },
    args: [{ name: 'FILE', description: 'JSON {"cases": [{"name", "activity": {"type", "parameters"}, "userId"?, "approverIds"?, "expectedOutcome"}]}' }],
    stamped: true,
    run: async (input, context) => (await import('./policyTest.ts')).policyTest(input.args[0]!, () => user(input, context)),
  },
  {
    name: 'quorum',
    sub: 'show',
    summary: "the organization's root quorum: its threshold and its users",
    flags: { credentials, json },
    stamped: true,
    async run(input, context) {
      const { organizationData } = await user(input, context).query<{
        organizationData: { rootQuorum: { threshold: number; userIds: string[] }; users: Array<{ userId: string; userName: string }> };
      }>('get_organization');
      const { rootQuorum, users } = organizationData;
      if (input.on('json')) return print(rootQuorum, input);
      const names = new Map(users.map((u) => [u.userId, u.userName]));
      process.stdout.write(`threshold: ${rootQuorum.threshold} of ${rootQuorum.userIds.length}\n`);
      printTable(['USER ID', 'NAME'], rootQuorum.userIds.map((id) => [id, names.get(id) ?? '(removed, or not among the first 100 users)']), 'no users: no one can approve as the root quorum');
      return 0;
    },
  },
  {
    name: 'quorum',
    sub: 'set',
    summary: 'replace the root quorum: these users, N of whom must approve (only the root quorum may)',
    flags: {
      // The operator's `signet org quorum` takes the same two, into the admin API's body.
      threshold: { ...ROOT_QUORUM_FLAGS.threshold, field: 'parameters.threshold' },
      user: { ...ROOT_QUORUM_FLAGS.user, field: 'parameters.userIds' },
      credentials,
      json,
    },
    stamped: true,
    async run(input, context) {
      const parameters = { threshold: Number(input.need('threshold')), userIds: input.all('user') };
      return printActivity(await user(input, context).submit('update_root_quorum', 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', parameters), input);
    },
  },
  {
    name: 'activity',
    sub: 'list',
    summary: "the organization's activities, newest first, with the fingerprints approve and reject take",
    flags: {
      status: { type: 'string', value: 'S', description: `only these: ${STATUSES.join(', ')}` },
      limit: { type: 'integer', value: 'N', description: `at most this many (1–${MAX_LISTED_ACTIVITIES}, default 50)` },
      credentials,
      json,
    },
    stamped: true,
    async run(input, context) {
      const status = input.get('status')?.toUpperCase().replace(/^ACTIVITY_STATUS_/, '');
      if (status !== undefined && !STATUSES.includes(status)) throw new UsageError(`--status takes one of ${STATUSES.join(', ')}; got "${input.get('status')}"`);
      const limit = Number(input.get('limit') ?? 50);
      if (limit < 1 || limit > MAX_LISTED_ACTIVITIES) throw new UsageError(`--limit takes 1 to ${MAX_LISTED_ACTIVITIES}, got ${limit}`);
      const client = user(input, context);
      const activities: Array<Record<string, any>> = [];
      for (let after: string | undefined; activities.length < limit; ) {
        const { activities: page } = await client.query<{ activities: Array<Record<string, any>> }>('list_activities', {
          ...(status ? { filterByStatus: [`ACTIVITY_STATUS_${status}`] } : {}),
          paginationOptions: { limit: String(Math.min(100, limit - activities.length)), ...(after ? { after } : {}) },
        });
        if (page.length === 0) break;
        activities.push(...page);
        after = page[page.length - 1]!.id;
      }
      return printList(
        activities,
        input,
        ['CREATED', 'STATUS', 'TYPE', 'SUBMITTER', 'FINGERPRINT'],
        (a) => [a.createdAt, short(a.status, 'ACTIVITY_STATUS_'), short(a.type, 'ACTIVITY_TYPE_'), a.votes?.[0]?.user?.userName ?? '-', a.fingerprint],
        status ? `no ${status} activities` : 'no activities',
      );
    },
  },
  {
    name: 'activity',
    sub: 'approve',
    summary: 'approve an activity waiting for consensus; it takes effect once its approvers allow it',
    flags: { credentials, json },
    args: [fingerprintArg],
    stamped: true,
    run: vote('approve'),
  },
  {
    name: 'activity',
    sub: 'reject',
    summary: 'reject an activity waiting for consensus (its submitter may withdraw it so); final',
    flags: { credentials, json },
    args: [fingerprintArg],
    stamped: true,
    run: vote('reject'),
  },
  {
    name: 'proof',
    sub: 'verify',
    summary: "check a saved activity's App Proofs offline; --key pins the proof keys you trust",
    flags: { key: { type: 'string', value: 'HEX', multiple: true, description: 'a proof key you trust, in the form get_app_proof_keys lists' } },
    args: [{ name: 'FILE', description: "a saved activity (JSON): a submission's or get_activity's answer" }],
    run: async (input) => (await import('./proof.ts')).verifyProofFile(input.args[0]!, input.all('key')),
  },
  {
    name: 'backup',
    summary: 'write the embedded store and the deployment secret to FILE (mode 0600), while the server runs or not; PostgreSQL: use pg_dump',
    flags: { force: { type: 'boolean', description: 'replace FILE if it exists' } },
    args: [{ name: 'FILE', description: 'the backup file to write' }],
    run: async (input, context) => (await import('./backup.ts')).backup(input.args[0]!, input.on('force'), context.config()),
  },
  {
    name: 'restore',
    summary: 'make the empty data folder SIGNET_DATA_DIR from a backup FILE: the store and the deployment secret',
    flags: {},
    args: [{ name: 'FILE', description: 'a file signet backup wrote' }],
    run: async (input, context) => (await import('./backup.ts')).restore(input.args[0]!, context.config()),
  },
  adminCommand(ADMIN_ROUTES.rewrapKeys),
  {
    name: 'help',
    summary: 'this list, or the options of one command',
    flags: {},
    args: [
      { name: 'COMMAND', description: 'a command, e.g. org', optional: true },
      { name: 'SUB', description: 'its subcommand, e.g. create', optional: true },
    ],
    run(input) {
      process.stdout.write(`${helpPage(COMMANDS, input.args)}\n`);
      return 0;
    },
  },
] as Command[]).map(namingItsFlags);
