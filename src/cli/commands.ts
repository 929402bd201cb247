// Every `signet` command, declared once: name, subcommand, summary, flags, arguments and handler. The
// table drives parsing, `signet help`, each command's --help, usage errors and docs/cli.md's command
// table (test/cli.test.ts keeps them equal). `serve`, `migrate`, `config` and `proof verify` act
// here; the admin commands call a running server's admin API (SIGNET_URL), so they work while the
// embedded store is held by the server; the policy, quorum and activity commands call its public API
// as a user of an organization, stamped with that user's API key (userClient.ts), so the
// organization's authorization decides them like any client's request.
import fs from 'node:fs';
import { configurationReport } from '../config.ts';
import { adminClient } from './adminClient.ts';
import { helpPage, UsageError, type Command, type Context, type Flag, type Input } from './command.ts';
import { verifyProofFile } from './proof.ts';
import { userClient } from './userClient.ts';

const json: Flag = { type: 'boolean', description: 'print the answer as JSON' };
const org: Flag = { type: 'string', value: 'ID', required: true, description: 'the organization; `signet org list` shows them' };

/** `key: value` lines, or the whole answer as JSON. */
function print(result: object, input: Input): number {
  if (input.on('json')) process.stdout.write(`${JSON.stringify(result)}\n`);
  else for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${String(value)}\n`);
  return 0;
}

/** One line per item, or the items as a JSON array. */
function printList<T>(items: T[], input: Input, line: (item: T) => string): number {
  if (input.on('json')) process.stdout.write(`${JSON.stringify(items)}\n`);
  else for (const item of items) process.stdout.write(`${line(item)}\n`);
  return 0;
}

/** `path` below the organization of --org. */
function orgPath(input: Input, path = ''): string {
  return `/organizations/${encodeURIComponent(input.need('org'))}${path}`;
}

function admin(context: Context) {
  return adminClient(context.config());
}

function readFileFlag(input: Input, name: string): string {
  const file = input.need(name);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--${name}: cannot read ${file}: ${(error as Error).message}`);
  }
}

type Row = Record<string, string | null | undefined>;

/** The handler of an admin list: every page of `path`, one line per item (`key`: the answer's array, `id`: its items' id). */
function listing(path: (input: Input) => string, key: string, id: string, line: (item: Row) => string): Command['run'] {
  return async (input, context) => printList(await admin(context).everyPage<Row>(path(input), key, id), input, line);
}

/** The handler of a removal: DELETE the item of --org's `collection` that `flag` names, and print the answer. */
function removal(collection: string, flag: string): Command['run'] {
  return async (input, context) =>
    print(await admin(context).call('DELETE', orgPath(input, `/${collection}/${encodeURIComponent(input.need(flag))}`)), input);
}

const credentials: Flag = {
  type: 'string',
  value: 'FILE',
  description: 'the API key to stamp with: a JSON file {organizationId, apiPublicKey, apiPrivateKey} (default: SIGNET_CREDENTIALS, else SIGNET_DATA_DIR/dev-credentials.json)',
};

function user(input: Input, context: Context) {
  return userClient(context.config(), input.get('credentials'));
}

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

const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;
const fingerprintArg = { name: 'FINGERPRINT', description: 'the activity\'s fingerprint (sha256:…), as `signet activity list` shows it' };

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
    const path = `${selection}_activity`;
    return printActivity(await user(input, context).submit(path, `ACTIVITY_TYPE_${selection.toUpperCase()}_ACTIVITY`, { fingerprint }), input);
  };
}

/** An API key's state as the list shows it: active, revoked (when) or expired (when). */
function keyState(key: Row): string {
  if (key.revokedAt) return `revoked ${key.revokedAt}`;
  return key.expiresAt && key.expiresAt <= new Date().toISOString() ? `expired ${key.expiresAt}` : 'active';
}

export const COMMANDS: readonly Command[] = [
  {
    name: 'serve',
    summary: 'run the service (the same as npm start)',
    flags: {},
    // The service's modules are loaded by the commands that run it, so help and the admin commands start fast.
    run: async (_input, context) => (await import('./serve.ts')).serve(context.config()),
  },
  {
    name: 'migrate',
    summary: 'apply database migrations and exit',
    flags: {},
    async run(_input, context) {
      const [{ openConfiguredDatabase }, { migrate }] = await Promise.all([import('../server.ts'), import('../store/migrate.ts')]);
      const db = await openConfiguredDatabase(context.config(), 'signet migrate');
      try {
        const applied = await migrate(db);
        process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'schema is up to date\n');
      } finally {
        await db.close();
      }
      return 0;
    },
  },
  {
    name: 'config',
    summary: "print the effective configuration: each setting's value and whether it came from the environment or is the default; secrets masked",
    flags: { json },
    run(input) {
      const report = configurationReport();
      const width = Math.max(...report.map((s) => s.name.length));
      return printList(report, input, (s) => `${s.name.padEnd(width)}  ${s.value}  (${s.source})`);
    },
  },
  {
    name: 'org',
    sub: 'create',
    summary: 'create an organization with a root user and an API key; prints their ids and the key pair',
    flags: { name: { type: 'string', value: 'N', required: true, description: 'its name' }, json },
    admin: true,
    run: async (input, context) => print(await admin(context).call('POST', '/organizations', { name: input.need('name') }), input),
  },
  {
    name: 'org',
    sub: 'list',
    summary: 'every organization, newest first; a sub-organization names its parent',
    flags: { json },
    admin: true,
    run: listing(() => '/organizations', 'organizations', 'organizationId', (o) =>
      [o.organizationId, o.createdAt, o.name, o.parentId ? `(sub-organization of ${o.parentId}${o.deletedAt ? `, deleted ${o.deletedAt}` : ''})` : ''].filter(Boolean).join('  '),
    ),
  },
  {
    name: 'suborg',
    sub: 'list',
    summary: "the organization's sub-organizations, newest first, deleted ones marked",
    flags: { org, json },
    admin: true,
    run: listing((input) => orgPath(input, '/suborgs'), 'subOrganizations', 'organizationId', (o) =>
      [o.organizationId, o.createdAt, o.name, o.deletedAt ? `(deleted ${o.deletedAt})` : ''].filter(Boolean).join('  '),
    ),
  },
  {
    name: 'org',
    sub: 'quorum',
    summary: "replace the organization's root quorum as the operator, without its approval: the way back when its root users lost their keys",
    flags: {
      org,
      threshold: { type: 'integer', value: 'N', required: true, description: 'how many of the users must approve, 1 to their number' },
      user: { type: 'string', value: 'ID', required: true, multiple: true, description: 'a user of the organization; `signet user list --org ID` shows them' },
      json,
    },
    admin: true,
    async run(input, context) {
      const body = { threshold: Number(input.need('threshold')), userIds: input.all('user') };
      return print(await admin(context).call('PUT', orgPath(input, '/root-quorum'), body), input);
    },
  },
  {
    name: 'user',
    sub: 'create',
    summary: 'create a user; email and phone are unique in the organization',
    flags: {
      org,
      email: { type: 'string', value: 'E', description: 'its email address' },
      phone: { type: 'string', value: 'P', description: 'its phone number in international form (+14155550100)' },
      name: { type: 'string', value: 'N', description: 'its name (default: the email, else the phone number)' },
      json,
    },
    admin: true,
    async run(input, context) {
      const body = {
        ...(input.get('name') !== undefined ? { userName: input.get('name') } : {}),
        ...(input.get('email') !== undefined ? { email: input.get('email') } : {}),
        ...(input.get('phone') !== undefined ? { phoneNumber: input.get('phone') } : {}),
      };
      return print(await admin(context).call('POST', orgPath(input, '/users'), body), input);
    },
  },
  {
    name: 'user',
    sub: 'list',
    summary: "the organization's users not removed, newest first",
    flags: { org, json },
    admin: true,
    run: listing((input) => orgPath(input, '/users'), 'users', 'userId', (u) =>
      [u.userId, u.createdAt, u.userName, u.email, u.phoneNumber].filter(Boolean).join('  '),
    ),
  },
  {
    name: 'user',
    sub: 'remove',
    summary: 'remove a user and revoke all its API keys and passkeys at once',
    flags: { org, user: { type: 'string', value: 'ID', required: true, description: 'the user; `signet user list --org ID` shows them' }, json },
    admin: true,
    run: removal('users', 'user'),
  },
  {
    name: 'apikey',
    sub: 'create',
    summary: 'create an API key for a user: a new key pair, or the public key you give',
    flags: {
      org,
      user: { type: 'string', value: 'ID', required: true, description: 'the user who holds it' },
      name: { type: 'string', value: 'N', description: 'its name' },
      'expires-in': { type: 'integer', value: 'SECONDS', description: 'it expires this many seconds from now' },
      'public-key': { type: 'string', value: 'HEX', description: 'a P-256 public key you hold, in hex' },
      json,
    },
    admin: true,
    async run(input, context) {
      const expiresIn = input.get('expires-in');
      const body = {
        userId: input.need('user'),
        ...(input.get('name') ? { name: input.get('name') } : {}),
        ...(expiresIn !== undefined ? { expiresInSeconds: Number(expiresIn) } : {}),
        ...(input.get('public-key') ? { publicKey: input.get('public-key') } : {}),
      };
      return print(await admin(context).call('POST', orgPath(input, '/api-keys'), body), input);
    },
  },
  {
    name: 'apikey',
    sub: 'list',
    summary: "the organization's API keys, newest first, revoked and expired ones too; kind api_key, session for an OTP login's, or otp_auth for a key of otp_auth",
    flags: { org, user: { type: 'string', value: 'ID', description: "only this user's" }, json },
    admin: true,
    run: listing(
      (input) => orgPath(input, `/api-keys${input.get('user') !== undefined ? `?userId=${encodeURIComponent(input.get('user')!)}` : ''}`),
      'apiKeys',
      'apiKeyId',
      (k) => `${k.apiKeyId}  ${k.createdAt}  ${k.kind}  ${keyState(k)}  user ${k.userId}  ${k.publicKey}  ${k.name}`,
    ),
  },
  {
    name: 'apikey',
    sub: 'revoke',
    summary: 'revoke an API key at once',
    flags: { org, key: { type: 'string', value: 'ID', required: true, description: 'the API key; `signet apikey list --org ID` shows them' }, json },
    admin: true,
    run: removal('api-keys', 'key'),
  },
  {
    name: 'sender-domain',
    sub: 'add',
    summary: 'allow sendFromEmailAddress on domain D',
    flags: { org, domain: { type: 'string', value: 'D', required: true, description: 'the domain, e.g. mail.acme.com' }, json },
    admin: true,
    run: async (input, context) => print(await admin(context).call('POST', orgPath(input, '/sender-domains'), { domain: input.need('domain') }), input),
  },
  {
    name: 'sender-domain',
    sub: 'list',
    summary: "the organization's sender domains, newest first",
    flags: { org, json },
    admin: true,
    run: listing((input) => orgPath(input, '/sender-domains'), 'senderDomains', 'senderDomainId', (d) => `${d.senderDomainId}  ${d.createdAt}  ${d.domain}`),
  },
  {
    name: 'sender-domain',
    sub: 'remove',
    summary: 'stop allowing sendFromEmailAddress on domain D',
    flags: { org, domain: { type: 'string', value: 'D', required: true, description: 'the domain (any letter case)' }, json },
    admin: true,
    run: removal('sender-domains', 'domain'),
  },
  {
    name: 'template',
    sub: 'add',
    summary: 'store an OTP email template (Handlebars)',
    flags: {
      org,
      subject: { type: 'string', value: 'S', required: true, description: 'the subject (a template too)' },
      html: { type: 'string', value: 'FILE', required: true, description: 'the HTML part' },
      text: { type: 'string', value: 'FILE', required: true, description: 'the plain text part' },
      name: { type: 'string', value: 'N', description: 'its name' },
      json,
    },
    admin: true,
    async run(input, context) {
      const body = {
        subject: input.need('subject'),
        html: readFileFlag(input, 'html'),
        text: readFileFlag(input, 'text'),
        ...(input.get('name') ? { name: input.get('name') } : {}),
      };
      const created = await admin(context).call('POST', orgPath(input, '/email-templates'), body);
      return print(input.on('json') ? created : { templateId: created.templateId, name: created.name, createdAt: created.createdAt }, input);
    },
  },
  {
    name: 'template',
    sub: 'list',
    summary: "the organization's templates, newest (the default) first",
    flags: { org, json },
    admin: true,
    run: listing((input) => orgPath(input, '/email-templates'), 'emailTemplates', 'templateId', (t) => `${t.templateId}  ${t.createdAt}  ${t.name}  (${t.subject})`),
  },
  {
    name: 'template',
    sub: 'remove',
    summary: 'delete a template',
    flags: { org, id: { type: 'string', value: 'TEMPLATE', required: true, description: 'the template; `signet template list --org ID` shows them' }, json },
    admin: true,
    run: removal('email-templates', 'id'),
  },
  {
    name: 'delivery',
    sub: 'list',
    summary: 'delivery state of OTP messages, newest first',
    flags: {
      org,
      status: { type: 'string', value: 'S', description: 'only messages in this state: queued, sending, retrying, sent or failed' },
      otp: { type: 'string', value: 'ID', description: "only this OTP's messages" },
      limit: { type: 'integer', value: 'N', description: 'at most this many (1–500, default 50)' },
      json,
    },
    admin: true,
    async run(input, context) {
      const query = new URLSearchParams();
      for (const [flag, key] of [['status', 'status'], ['otp', 'otpId'], ['limit', 'limit']] as const) {
        const value = input.get(flag);
        if (value !== undefined) query.set(key, value);
      }
      const { deliveries } = await admin(context).call<{ deliveries: Array<Record<string, unknown>> }>(
        'GET',
        orgPath(input, `/deliveries${query.size ? `?${query}` : ''}`),
      );
      return printList(deliveries, input, (d) => {
        const detail = [d.providerMessageId && `id ${d.providerMessageId}`, d.lastError && `error: ${d.lastError}`, d.logoError && `logo: ${d.logoError}`];
        return `${d.createdAt}  ${d.status}  ${d.channel}  ${d.to}  otp ${d.otpId}  attempts ${d.attempts}${detail.filter(Boolean).map((x) => `  ${x}`).join('')}`;
      });
    },
  },
  {
    name: 'policy',
    sub: 'list',
    summary: "the organization's policies: id, name, effect, condition and consensus",
    flags: { credentials, json },
    stamped: true,
    async run(input, context) {
      const { policies } = await user(input, context).query<{ policies: Array<Record<string, string>> }>('list_policies');
      if (input.on('json')) return printList(policies, input, () => '');
      printTable(
        ['POLICY ID', 'NAME', 'EFFECT', 'CONDITION', 'CONSENSUS'],
        policies.map((p) => [p.policyId!, p.policyName!, short(p.effect, 'EFFECT_'), p.condition || '-', p.consensus || '-']),
        'no policies',
      );
      return 0;
    },
  },
  {
    name: 'policy',
    sub: 'create',
    summary: 'create a policy: ALLOW or DENY the activities its condition selects, when its consensus holds',
    flags: {
      name: { type: 'string', value: 'N', required: true, description: 'its name, unique in the organization' },
      effect: { type: 'string', value: 'ALLOW|DENY', required: true, description: 'what it does to the activities it applies to' },
      condition: { type: 'string', value: 'E', description: "which activities it is about, e.g. \"activity.resource == 'AUTH'\" (default: every activity)" },
      consensus: { type: 'string', value: 'E', description: "who must approve, e.g. \"approvers.count() >= 2\" (default: anyone)" },
      notes: { type: 'string', value: 'T', description: 'why it exists' },
      credentials,
      json,
    },
    stamped: true,
    async run(input, context) {
      const effect = input.need('effect').toUpperCase().replace(/^EFFECT_/, '');
      if (effect !== 'ALLOW' && effect !== 'DENY') throw new UsageError(`--effect takes ALLOW or DENY, got "${input.need('effect')}"`);
      const parameters = {
        policyName: input.need('name'),
        effect: `EFFECT_${effect}`,
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
    args: [{ name: 'ID', description: 'the policy, as `signet policy list` shows it' }],
    stamped: true,
    run: async (input, context) =>
      printActivity(await user(input, context).submit('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: input.args[0] }), input),
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
      threshold: { type: 'integer', value: 'N', required: true, description: 'how many of the users must approve, 1 to their number' },
      user: { type: 'string', value: 'ID', required: true, multiple: true, description: 'a user of the organization; `signet user list --org ID` shows them' },
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
      if (input.on('json')) return printList(activities, input, () => '');
      printTable(
        ['CREATED', 'STATUS', 'TYPE', 'SUBMITTER', 'FINGERPRINT'],
        activities.map((a) => [a.createdAt, short(a.status, 'ACTIVITY_STATUS_'), short(a.type, 'ACTIVITY_TYPE_'), a.votes?.[0]?.user?.userName ?? '-', a.fingerprint]),
        status ? `no ${status} activities` : 'no activities',
      );
      return 0;
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
    run: (input) => verifyProofFile(input.args[0]!, input.all('key')),
  },
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
];
