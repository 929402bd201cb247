// Activities (table activities) with their votes (store/votes.ts): written by one statement that
// composes the activity, its submitter's vote, its domain rows and the checks it depends on; read one by
// fingerprint or id, or a page of an organization's activities, each with its votes, in one statement.
import type { Gate } from './gate.ts';
import { credentialState, credentialUsable, parseCredentialState, runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Database, Queryable } from './db.ts';
import { pageOf, pageStatement, type Page, type PageRequest } from './pages.ts';
import { join, raw, run, sql, substitute, type Sql } from './sql.ts';
import { userTagIdsJson } from './userTags.ts';
import { authorityBump, authorityUnchanged } from './authorityVersion.ts';
import { voteInsert, VOTES_JSON, votesFromJson, type NewVote, type VoteRecord } from './votes.ts';

export type { VoteRecord } from './votes.ts';

export interface ActivityRecord {
  id: string;
  organizationId: string;
  type: string;
  status: string;
  fingerprint: string;
  timestampMs: string;
  /** The request body exactly as received and signed. */
  rawBody: string;
  /** The intent as JSON text, serialised once at submission. */
  intentJson: string;
  result: object;
  votes: VoteRecord[];
  createdAt: Date;
  updatedAt: Date;
  /** Present when the activity was submitted with generateAppProofs: true. */
  appProofs?: object[];
  /** An ACTIVITY_STATUS_FAILED activity's refusal. */
  failure?: { code: number; message: string };
  /** What a signing activity signs, in words (a ReadableSummary of src/readable), as its last decision read it. */
  summary?: object;
}

interface ActivityRow {
  id: string;
  organization_id: string;
  type: string;
  status: string;
  fingerprint: string;
  timestamp_ms: string;
  raw_body: string;
  intent: string;
  result: object | null;
  app_proofs: object[] | null;
  failure: { code: number; message: string } | null;
  summary: object | null;
  created_at: Date | string;
  updated_at: Date | string;
  votes: unknown;
}

const COLUMNS = sql`a.id, a.organization_id, a.type, a.status, a.fingerprint, a.timestamp_ms, a.raw_body, a.intent, a.result,
  a.app_proofs, a.failure, a.summary, a.created_at, a.updated_at, ${VOTES_JSON} AS votes`;

function fromRow(row: ActivityRow): ActivityRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    type: row.type,
    status: row.status,
    fingerprint: row.fingerprint,
    timestampMs: row.timestamp_ms,
    rawBody: row.raw_body,
    intentJson: row.intent,
    result: row.result ?? {},
    votes: votesFromJson(row.votes),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(row.app_proofs ? { appProofs: row.app_proofs } : {}),
    ...(row.failure ? { failure: row.failure } : {}),
    ...(row.summary ? { summary: row.summary } : {}),
  };
}

/** The activity of the organization with this fingerprint or id. */
export async function findActivity(
  db: Queryable,
  key: { organizationId: string } & ({ fingerprint: string } | { id: string }),
): Promise<ActivityRecord | undefined> {
  const [row] = await run<ActivityRow>(db, activitySelect(key));
  return row ? fromRow(row) : undefined;
}

function activitySelect(key: { organizationId: string } & ({ fingerprint: string } | { id: string })): Sql {
  const match = 'fingerprint' in key ? sql`a.fingerprint = ${key.fingerprint}` : sql`a.id = ${key.id}::uuid`;
  return sql`SELECT ${COLUMNS} FROM activities a WHERE a.organization_id = ${key.organizationId}::uuid AND ${match}`;
}

/** findActivity on behalf of a credential, checked in the same statement. */
export async function findActivityFor(
  db: Queryable,
  use: CredentialUse,
  key: { organizationId: string; id: string },
): Promise<{ refused?: CredentialState; activity?: ActivityRecord }> {
  const { refused, rows } = await runWithCredential<ActivityRow>(db, use, activitySelect(key));
  return refused ? { refused } : rows[0] ? { activity: fromRow(rows[0]) } : {};
}

export interface ActivityPage extends PageRequest {
  organizationId: string;
  statuses?: string[];
  types?: string[];
}

/**
 * A page of the organization's activities, newest first, on behalf of a credential. An activity's
 * size in the answer is estimated from its raw body: the body is echoed twice as the votes' message
 * and the intent (which the parameters make) twice more; and from its summary's stored size.
 */
export async function listActivitiesFor(
  db: Queryable,
  use: CredentialUse,
  page: ActivityPage,
): Promise<{ refused?: CredentialState; page?: Page<ActivityRecord> }> {
  const where: Sql[] = [];
  if (page.statuses?.length) where.push(sql`a.status = ANY(${page.statuses}::text[])`);
  if (page.types?.length) where.push(sql`a.type = ANY(${page.types}::text[])`);
  const statement = pageStatement(
    { table: 'activities', columns: COLUMNS, organizationId: page.organizationId, where, size: sql`4 * octet_length(a.raw_body) + coalesce(pg_column_size(a.summary), 0) + 2048` },
    page,
  );
  const { refused, rows } = await runWithCredential<Record<string, unknown>>(db, use, statement);
  if (refused) return { refused };
  const found = pageOf<ActivityRow>(rows, page);
  return { page: { ...found, rows: found.rows.map(fromRow) } };
}

/** SQLSTATE of a row refused by a unique index (the activity's own fingerprint has ON CONFLICT). */
const UNIQUE_VIOLATION = '23505';
/** SQLSTATE of a statement PostgreSQL ended to break a deadlock: nothing of it was written. */
const DEADLOCK_DETECTED = '40P01';

/** The name by which a statement part refers to the activity row being written: it yields the row only when it was written. */
export const NEW_ACTIVITY = raw('new_activity');


export interface ActivityWrite {
  activity: {
    id: string;
    organizationId: string;
    type: string;
    status: string;
    fingerprint: string;
    timestampMs: string;
    rawBody: string;
    stampHeader: string;
    intentJson: string;
    result: object;
    appProofs?: object[];
    /** What it signs in words, when its decision read a summary. */
    summary?: object;
    createdAt: Date;
  };
  vote: Omit<NewVote, 'organizationId' | 'createdAt'>;
  /** The credential that stamped the request, checked (and for a passkey, used) in the statement. */
  credential: CredentialUse;
  /**
   * The organization whose authority decided the activity: its own, or its parent's when a credential of
   * the parent submitted it in a sub-organization. The activity's organization when not given.
   */
  authorityOrganizationId?: string;
  /** The version of that organization's authority the activity was decided under (store/authority.ts), checked in the statement. */
  authorityVersion: string;
  /** The activity changes what decides the organization's activities: its version is raised with the write. */
  bumpsAuthority?: boolean;
  /** Conditions that must hold to write the activity, read in the statement's snapshot. */
  guards: Sql[];
  gates: Gate[];
  /** Statements writing the activity's own rows, each reading NEW_ACTIVITY. */
  rows: Sql[];
  /**
   * Row locks (SELECT … FOR NO KEY UPDATE) taken before the activity's statement, in its
   * transaction: a concurrent write taking the same lock commits first, and the statement, whose
   * snapshot is taken when it starts, then sees what it wrote (a lock taken inside the statement
   * would come after its snapshot).
   */
  locks?: Sql[];
}

export type WriteOutcome =
  /** userTags: the submitter's tags, read in the statement's snapshot (for its vote in the answer). */
  | { kind: 'created'; userTags: string[] }
  /** The same body was submitted before: the stored activity. */
  | { kind: 'existing'; activity: ActivityRecord }
  | { kind: 'credentialRefused'; state: CredentialState }
  /** The organization's authority changed since the decision: nothing was written; decide again. */
  | { kind: 'authorityChanged' }
  /** The first guard that did not hold. */
  | { kind: 'guardFailed'; index: number }
  /** The gate that did not succeed, and its detail. */
  | { kind: 'gateFailed'; index: number; detail: unknown }
  /** A concurrent submission of the same body committed first; read it with findActivity. */
  | { kind: 'raced' }
  /**
   * A unique index refused one of the activity's rows: a concurrent request wrote the same value
   * (an email, a key) after this statement's checks read; or PostgreSQL ended the statement to break
   * a deadlock with a concurrent one (two logins with one verification token: each holds a row the
   * other's statement goes on to write). Nothing was written; written again, the checks see that
   * value or that write and say which it is.
   */
  | { kind: 'conflict' };

/**
 * Writes an activity in one statement: the fingerprint decides (a body submitted before is answered
 * with its stored activity, read in the same statement), then the credential, the guards and the
 * gates, then the activity with its rows and vote, all or nothing. A write with locks takes them
 * first, in one transaction with the statement.
 */
export async function writeActivity(db: Database, write: ActivityWrite): Promise<WriteOutcome> {
  const statement = writeStatement([composeWrite(write, '', 0)]);
  const locks = write.locks ?? [];
  let result: Record<string, unknown> | undefined;
  try {
    [result] =
      locks.length === 0
        ? await run<Record<string, unknown>>(db, statement)
        : await db.transaction(async (tx) => {
            for (const lock of locks) await run(tx, lock);
            return run<Record<string, unknown>>(tx, statement);
          });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === UNIQUE_VIOLATION || code === DEADLOCK_DETECTED) return { kind: 'conflict' };
    throw error;
  }
  return outcomeOf(write, result!);
}

/**
 * Whether a write may share its statement with others (writeActivities): it has no gates, which
 * write rows other activities may also write (a rate window, an OTP), so each sees the others'
 * effects only when it runs in a statement of its own, and no locks, which come before its own
 * statement. Guards and the credential check only read.
 */
export function batchable(write: ActivityWrite): boolean {
  return write.gates.length === 0 && (write.locks ?? []).length === 0;
}

/**
 * Writes several activities in one statement and one commit, each with its own checks and outcome
 * as writeActivity would give it, in the order given. For batchable writes of distinct bodies: the
 * parts of one statement read one snapshot, so each sees what existed before the statement, not what
 * the others write. All or nothing: when a unique index refuses any row (two of them, or a concurrent
 * request, wrote the same value) nothing is written and the statement throws.
 */
export async function writeActivities(db: Queryable, writes: readonly ActivityWrite[]): Promise<WriteOutcome[]> {
  const rows = await run<Record<string, unknown>>(db, writeStatement(writes.map((write, i) => composeWrite(write, `w${i}_`, i))));
  const byWrite = new Map(rows.map((row) => [row.w, row]));
  return writes.map((write, i) => outcomeOf(write, byWrite.get(i)!));
}

/** What every write checks in its statement: the credential, the authority decided under, its guards, then its gates. */
interface Checks {
  organizationId: string;
  credential: CredentialUse;
  authorityVersion: string;
  guards: Sql[];
  gates: Gate[];
}

type CheckFailure = Extract<WriteOutcome, { kind: 'credentialRefused' | 'authorityChanged' | 'guardFailed' | 'gateFailed' }>;

/**
 * The checks as statement parts named by `name`: credential → guards (and the authority version) →
 * proceed (also requiring `also`) → gate0 → gate1 …, each gate running only when the one before
 * yielded a row; `last` yields a row when all passed. `columns`, selected FROM `guards` (aliased
 * guards), say how each check went, for checkFailure.
 */
function checkParts(checks: Checks, name: (base: string) => Sql, also: Sql = sql`true`): { ctes: Sql[]; last: Sql; columns: Sql } {
  const guards = checks.guards.length > 0 ? checks.guards : [sql`true`];
  const guardColumns = join(guards.map((guard, i) => sql`(${guard}) AS ${raw(`g${i}`)}`));
  const allGuards = join(guards.map((_, i) => raw(`g${i}`)), ' AND ');
  const ctes: Sql[] = [
    sql`${name('credential')} AS (${credentialUsable(checks.credential)})`,
    sql`${name('guards')} AS (SELECT ${guardColumns}, ${authorityUnchanged(checks.organizationId, checks.authorityVersion)} AS authority_ok)`,
    sql`${name('proceed')} AS (SELECT 1 AS ok WHERE EXISTS (SELECT 1 FROM ${name('credential')}) AND ${also}
                      AND (SELECT authority_ok AND ${allGuards} FROM ${name('guards')}))`,
  ];
  let last = name('proceed');
  checks.gates.forEach((gate, i) => {
    ctes.push(sql`${name(`gate${i}`)} AS (${gate.statement(sql`EXISTS (SELECT 1 FROM ${last})`)})`);
    last = name(`gate${i}`);
  });
  const gateColumns = checks.gates.map(
    (gate, i) => sql`EXISTS (SELECT 1 FROM ${name(`gate${i}`)}) AS ${raw(`gate${i}_ok`)}, ${gate.detail ?? sql`NULL`} AS ${raw(`gate${i}_detail`)}`,
  );
  const columns = sql`EXISTS (SELECT 1 FROM ${name('credential')}) AS credential_ok,
               CASE WHEN NOT EXISTS (SELECT 1 FROM ${name('credential')}) THEN ${credentialState(checks.credential)} END AS credential_state,
               guards.*${gateColumns.length > 0 ? sql`, ${join(gateColumns)}` : sql``}`;
  return { ctes, last, columns };
}

/** The first check the row of checkParts' columns says failed, in their order, or undefined when all passed. */
function checkFailure(checks: Checks, row: Record<string, unknown>): CheckFailure | undefined {
  if (row.credential_ok !== true) return { kind: 'credentialRefused', state: parseCredentialState(row.credential_state) };
  if (row.authority_ok !== true) return { kind: 'authorityChanged' };
  const guard = (checks.guards.length > 0 ? checks.guards : [sql`true`]).findIndex((_, i) => row[`g${i}`] !== true);
  if (guard !== -1) return { kind: 'guardFailed', index: guard };
  const gate = checks.gates.findIndex((_, i) => row[`gate${i}_ok`] !== true);
  if (gate !== -1) return { kind: 'gateFailed', index: gate, detail: row[`gate${gate}_detail`] };
  return undefined;
}

// Written out field by field, here and for the vote below: on Node 20 a property added after a
// spread takes V8's slow path, some microseconds each (measured: 4–5 µs for the vote's two).
const checksOf = (write: ActivityWrite): Checks => ({
  organizationId: write.authorityOrganizationId ?? write.activity.organizationId,
  credential: write.credential,
  authorityVersion: write.authorityVersion,
  guards: write.guards,
  gates: write.gates,
});

/** Names of statement parts by prefix and base: the same few for every write, made once. */
const partNames = new Map<string, Map<string, Sql>>();

function partName(prefix: string, base: string): Sql {
  let names = partNames.get(prefix);
  if (names === undefined) partNames.set(prefix, (names = new Map()));
  let name = names.get(base);
  if (name === undefined) names.set(base, (name = raw(`${prefix}${base}`)));
  return name;
}

/** A write's statement parts, and its row of the outcomes (`w`, its index among the statement's writes). */
interface ComposedWrite {
  ctes: Sql[];
  outcome: Sql;
}

/**
 * The parts of an activity's write, each named with `prefix` so several writes can share one
 * statement: the fingerprint, then the checks, then new_activity, each running only when the one
 * before yielded a row; then the row saying what happened, numbered `index`.
 */
function composeWrite(write: ActivityWrite, prefix: string, index: number): ComposedWrite {
  const { activity, vote } = write;
  const name = (base: string) => partName(prefix, base);
  const checks = checkParts(checksOf(write), name, sql`NOT EXISTS (SELECT 1 FROM ${name('existing')})`);
  const ctes: Sql[] = [
    sql`${name('existing')} AS (SELECT a.id FROM activities a WHERE a.organization_id = ${activity.organizationId}::uuid AND a.fingerprint = ${activity.fingerprint})`,
    ...checks.ctes,
  ];
  ctes.push(sql`${name('new_activity')} AS (
    INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body, stamp_header, intent,
                            result, app_proofs, summary, created_at, updated_at)
    SELECT ${activity.id}::uuid, ${activity.organizationId}::uuid, ${activity.type}, ${activity.status}, ${activity.fingerprint},
           ${activity.timestampMs}, ${activity.rawBody}, ${activity.stampHeader}, ${activity.intentJson},
           ${JSON.stringify(activity.result)}::jsonb, ${activity.appProofs ? JSON.stringify(activity.appProofs) : null}::jsonb,
           ${activity.summary ? JSON.stringify(activity.summary) : null}::jsonb,
           ${activity.createdAt}::timestamptz, ${activity.createdAt}::timestamptz
     WHERE EXISTS (SELECT 1 FROM ${checks.last})
    ON CONFLICT (organization_id, fingerprint) DO NOTHING
    RETURNING id)`);
  const stored = Object.assign({}, vote, { organizationId: activity.organizationId, createdAt: activity.createdAt });
  ctes.push(sql`${name('vote')} AS (${voteInsert(stored, name('new_activity'))})`);
  write.rows.forEach((row, i) => ctes.push(sql`${name(`row${i}`)} AS (${prefix ? substitute(row, NEW_ACTIVITY, name('new_activity')) : row})`));
  if (write.bumpsAuthority) ctes.push(sql`${name('authority')} AS (${authorityBump(activity.organizationId, name('new_activity'))})`);

  // What only some outcomes need (the submitter's tags, the activity submitted before) is read by
  // writeStatement, once for all the statement's writes, from the submitter and existing_id here.
  const outcome = sql`SELECT ${raw(String(index))} AS w, EXISTS (SELECT 1 FROM ${name('new_activity')}) AS created,
               ${vote.userId}::uuid AS submitter, (SELECT id FROM ${name('existing')}) AS existing_id,
               ${checks.columns}
          FROM ${name('guards')} guards`;
  return { ctes, outcome };
}

/**
 * The statement writing the composed writes: their parts, then one row per write saying what
 * happened. The reads that only a created activity (its submitter's tags) or a body submitted before
 * (its stored activity) needs are written once, over the writes' rows, rather than once per write:
 * PostgreSQL sets up every part of a statement at each execution, run or not.
 */
function writeStatement(writes: readonly ComposedWrite[]): Sql {
  return sql`WITH ${join(writes.flatMap((write) => write.ctes), ',\n')},
outcomes AS (${join(
    writes.map((write) => write.outcome),
    '\nUNION ALL\n',
  )})
SELECT o.*, CASE WHEN o.created THEN ${userTagIdsJson(sql`o.submitter`)} END AS submitter_tags,
       (SELECT row_to_json(e) FROM (SELECT ${COLUMNS} FROM activities a WHERE a.id = o.existing_id) e) AS existing
  FROM outcomes o`;
}

/** What the row of a write's outcome says happened. */
function outcomeOf(write: ActivityWrite, outcome: Record<string, unknown>): WriteOutcome {
  if (outcome.created === true) return { kind: 'created', userTags: (outcome.submitter_tags ?? []) as string[] };
  const failure = checkFailure(checksOf(write), outcome);
  if (failure?.kind === 'credentialRefused') return failure;
  if (outcome.existing) return { kind: 'existing', activity: fromRow(outcome.existing as ActivityRow) };
  return failure ?? { kind: 'raced' };
}

/**
 * The activity of the organization with this fingerprint, its row locked (FOR UPDATE) until the
 * transaction `tx` ends: the votes on one activity are decided one after the other, in every process.
 */
export async function lockActivity(tx: Queryable, key: { organizationId: string; fingerprint: string }): Promise<ActivityRecord | undefined> {
  const [row] = await run<ActivityRow>(tx, sql`${activitySelect(key)} FOR UPDATE OF a`);
  return row ? fromRow(row) : undefined;
}

/** A vote on a waiting activity, and what it changes of the activity, written in one statement. */
export interface VoteWrite {
  activityId: string;
  organizationId: string;
  /**
   * The statuses the activity may have for the change to be written (its caller's table of
   * transitions says which lead to `status`): the update is guarded by them, so of two votes that
   * raced for a waiting activity only the first changes it…
   */
  onlyFrom: readonly string[];
  /** …and the status it takes (the same while it still waits). */
  status: string;
  /** Set when the activity executes (its result) or fails (its refusal). */
  result?: object;
  appProofs?: object[];
  failure?: { code: number; message: string };
  /** What the activity signs in words, as this vote's decision read it: it replaces the stored one (kept when absent). */
  summary?: object;
  updatedAt: Date;
  vote: NewVote;
  credential: CredentialUse;
  authorityVersion: string;
  /** The executed activity's checks and rows, as for a new activity's write (ActivityPlan). */
  guards: Sql[];
  gates: Gate[];
  rows: Sql[];
  bumpsAuthority?: boolean;
}

export type VoteOutcome =
  | { kind: 'written' }
  | { kind: 'credentialRefused'; state: CredentialState }
  | { kind: 'authorityChanged' }
  | { kind: 'guardFailed'; index: number }
  | { kind: 'gateFailed'; index: number; detail: unknown }
  /** The activity no longer had one of the statuses `onlyFrom`. */
  | { kind: 'notWaiting' };

/** The statement part that changes the voted activity's status: it yields the activity's row only when it changed it. */
const CHANGED_ACTIVITY = raw('changed_activity');

/**
 * Writes a vote in one statement: the credential, the authority version and the guards, then the
 * gates, then the activity's change of status (only from a status of `onlyFrom`: a guarded update,
 * so a vote on an activity decided meanwhile writes nothing), the vote and the activity's rows
 * (which read NEW_ACTIVITY: here, the changed activity), all or nothing.
 */
export async function writeVote(db: Queryable, write: VoteWrite): Promise<VoteOutcome> {
  const checks = checkParts(write, raw);
  const ctes: Sql[] = [...checks.ctes];
  ctes.push(sql`${CHANGED_ACTIVITY} AS (
    UPDATE activities SET status = ${write.status}, updated_at = ${write.updatedAt}::timestamptz,
           result = coalesce(${write.result ? JSON.stringify(write.result) : null}::jsonb, result),
           app_proofs = coalesce(${write.appProofs ? JSON.stringify(write.appProofs) : null}::jsonb, app_proofs),
           failure = ${write.failure ? JSON.stringify(write.failure) : null}::jsonb,
           summary = coalesce(${write.summary ? JSON.stringify(write.summary) : null}::jsonb, summary)
     WHERE id = ${write.activityId}::uuid AND organization_id = ${write.organizationId}::uuid AND status = ANY(${write.onlyFrom}::text[])
       AND EXISTS (SELECT 1 FROM ${checks.last})
    RETURNING id)`);
  ctes.push(sql`vote AS (${voteInsert(write.vote, CHANGED_ACTIVITY)})`);
  write.rows.forEach((row, i) => ctes.push(sql`${raw(`row${i}`)} AS (${substitute(row, NEW_ACTIVITY, CHANGED_ACTIVITY)})`));
  if (write.bumpsAuthority) ctes.push(sql`authority AS (${authorityBump(write.organizationId, CHANGED_ACTIVITY)})`);
  const [outcome] = await run<Record<string, unknown>>(
    db,
    sql`WITH ${join(ctes, ',\n')}
        SELECT EXISTS (SELECT 1 FROM ${CHANGED_ACTIVITY}) AS written, ${checks.columns}
          FROM guards`,
  );
  if (outcome!.written === true) return { kind: 'written' };
  return checkFailure(write, outcome!) ?? { kind: 'notWaiting' };
}
