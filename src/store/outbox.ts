// The outbox (table outbox): messages committed with the activity that caused them, delivered later
// by the worker. The payload is its caller's, opaque here but for two fields: `to`, the recipient
// operators see, and `encryptedCode`, the sealed secret a message may carry, erased once the message
// is finished. Here: queueing as a row of the activity's statement, and the worker's statements —
// claiming due messages under a lease (FOR UPDATE SKIP LOCKED), renewing and giving back leases,
// recording an outcome.
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';

/** How a message travels. */
export const CHANNELS = ['email', 'sms', 'approval', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A message's state: queued, claimed by a worker (sending), waiting to retry, or finished (sent, failed). */
export const OUTBOX_STATUSES = ['queued', 'sending', 'retrying', 'sent', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/** The states a worker records after an attempt. */
export const ATTEMPT_OUTCOMES = ['sent', 'retrying', 'failed'] as const satisfies readonly OutboxStatus[];
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** A message to queue: its row, and a payload the caller types (and seals what must be secret in it). */
export interface OutboxEntry<Payload extends object = object> {
  /** Chosen by the caller, who seals the payload's secret to it. */
  id: string;
  organizationId: string;
  /** The OTP an OTP message carries the code of; none for other messages (approval emails, webhook events). */
  otpId?: string;
  channel: Channel;
  payload: Payload;
  /**
   * Fields the queueing statement adds to the payload: an expression yielding a JSON object, or NULL
   * for none. A choice made in the activity's statement stays the message's.
   */
  filledIn?: Sql;
}

/** Queues a message as a row of the activity's statement (`activity` yields its row). */
export function queueMessage(activity: Sql, entry: OutboxEntry): Sql {
  const payload = sql`${JSON.stringify(entry.payload)}::jsonb`;
  const filled = entry.filledIn ? sql`${payload} || COALESCE(${entry.filledIn}, '{}'::jsonb)` : payload;
  return sql`INSERT INTO outbox (id, organization_id, otp_id, channel, payload, status, next_attempt_at)
             SELECT ${entry.id}::uuid, ${entry.organizationId}::uuid, ${entry.otpId ?? null}::uuid, ${entry.channel}, ${filled}, 'queued', now()
               FROM ${activity}`;
}

/**
 * Queues one message per row of `recipients` as a row of the activity's statement: `recipients`
 * yields the message's `id` and the `fields` (a JSON object) its payload adds to `entry`'s. A
 * message whose id is queued already stays as it is.
 */
export function queueMessagesTo(recipients: Sql, entry: Pick<OutboxEntry, 'organizationId' | 'channel' | 'payload'>): Sql {
  return sql`INSERT INTO outbox (id, organization_id, channel, payload, status, next_attempt_at)
             SELECT r.id, ${entry.organizationId}::uuid, ${entry.channel}, ${JSON.stringify(entry.payload)}::jsonb || r.fields, 'queued', now()
               FROM (${recipients}) r
             ON CONFLICT (id) DO NOTHING`;
}

/** Queues a message on its own (as the activity's statement would); returns its id. */
export async function enqueue(db: Queryable, entry: OutboxEntry): Promise<string> {
  const [row] = await run<{ id: string }>(db, sql`WITH one AS (SELECT 1) ${queueMessage(sql`one`, entry)} RETURNING id`);
  return row!.id;
}

/** Messages not finished yet: queued, retrying, or being sent. */
export async function outboxDepth(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE status IN ('queued', 'retrying', 'sending')");
  return row!.n;
}

/** A message a worker holds: the row as claimed, its attempt number, and the state it came from. */
export interface ClaimedMessage<Payload = unknown> {
  id: string;
  organizationId: string;
  otpId: string | null;
  channel: string;
  payload: Payload;
  /** This attempt's number; every later statement about the claim is guarded by it. */
  attempts: number;
  /** 'queued', 'retrying', or 'sending' when a dead worker's lease was taken over. */
  previousStatus: string;
}

interface ClaimedRow {
  id: string;
  organization_id: string;
  otp_id: string | null;
  channel: string;
  payload: unknown;
  attempts: number;
  previous_status: string;
}

/**
 * Claims up to `limit` due messages of `channels` for `leaseMs`: queued or retrying ones whose time
 * has come, and ones whose worker let its lease end. Rows other workers are claiming are skipped, so
 * no two workers hold one message. Each claim counts as an attempt.
 */
export async function claimDueMessages<Payload>(db: Queryable, limit: number, leaseMs: number, channels: readonly Channel[]): Promise<ClaimedMessage<Payload>[]> {
  const rows = await db.query<ClaimedRow>(
    `WITH queued AS (
       SELECT id, status, next_attempt_at AS due_at FROM outbox
        WHERE status IN ('queued', 'retrying') AND next_attempt_at <= now() AND channel = ANY($3::text[])
        ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
     leased AS (
       -- A dead worker's message keeps its place in line: it was due when it was first claimed.
       SELECT id, status, next_attempt_at AS due_at FROM outbox
        WHERE status = 'sending' AND lease_expires_at < now() AND channel = ANY($3::text[])
        ORDER BY lease_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED),
     due AS (
       SELECT id, status FROM (SELECT * FROM queued UNION ALL SELECT * FROM leased) candidates
        ORDER BY due_at LIMIT $1)
     UPDATE outbox o
        SET status = 'sending', attempts = o.attempts + 1, updated_at = now(),
            lease_expires_at = now() + make_interval(secs => $2::double precision)
       FROM due
      WHERE o.id = due.id
     RETURNING o.id, o.organization_id, o.otp_id, o.channel, o.payload, o.attempts, due.status AS previous_status`,
    [limit, leaseMs / 1000, [...channels]],
  );
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organization_id,
    otpId: row.otp_id,
    channel: row.channel,
    payload: row.payload as Payload,
    attempts: row.attempts,
    previousStatus: row.previous_status,
  }));
}

type Claim = Pick<ClaimedMessage, 'id' | 'attempts'>;

/** Extends the leases of claims still held (not overtaken); returns how many were extended. */
export async function renewLeases(db: Queryable, claims: readonly Claim[], leaseMs: number): Promise<number> {
  if (claims.length === 0) return 0;
  const renewed = await db.query(
    `UPDATE outbox o
        SET lease_expires_at = now() + make_interval(secs => $3::double precision)
       FROM unnest($1::uuid[], $2::int[]) AS held (id, attempts)
      WHERE o.id = held.id AND o.status = 'sending' AND o.attempts = held.attempts
     RETURNING o.id`,
    [claims.map((c) => c.id), claims.map((c) => c.attempts), leaseMs / 1000],
  );
  return renewed.length;
}

/**
 * Gives claims back untried: each message returns to the state it was claimed from, its attempt
 * not counted, due at once for any worker. Returns how many were given back (not overtaken).
 */
export async function releaseClaims(db: Queryable, claims: ReadonlyArray<Claim & Pick<ClaimedMessage, 'previousStatus'>>): Promise<number> {
  if (claims.length === 0) return 0;
  const released = await db.query(
    `UPDATE outbox o
        SET status = held.previous_status,
            attempts = o.attempts - 1,
            -- A taken-over lease goes back ended, so the message stays due.
            lease_expires_at = CASE WHEN held.previous_status = 'sending' THEN now() END,
            updated_at = now()
       FROM unnest($1::uuid[], $2::int[], $3::text[]) AS held (id, attempts, previous_status)
      WHERE o.id = held.id AND o.status = 'sending' AND o.attempts = held.attempts
     RETURNING o.id`,
    [claims.map((c) => c.id), claims.map((c) => c.attempts), claims.map((c) => c.previousStatus)],
  );
  return released.length;
}

/** What an attempt came to, as recorded. */
export interface AttemptRecord {
  status: 'sent' | 'retrying' | 'failed';
  providerMessageId?: string;
  error?: string;
  /** With 'retrying': when the next attempt is due. */
  retryInMs?: number;
}

/**
 * Records the outcome, guarded by the attempt number claimed: a worker whose lease ran out and
 * was overtaken cannot overwrite the newer attempt's outcome. A finished message loses its
 * ciphertext, so the code lives in the store no longer than it must. False when overtaken.
 */
export async function recordAttempt(db: Queryable, claim: Claim, record: AttemptRecord): Promise<boolean> {
  const updated = await db.query(
    `UPDATE outbox
        SET status = $3,
            payload = CASE WHEN $4 THEN payload - 'encryptedCode' ELSE payload END,
            provider_message_id = COALESCE($5, provider_message_id),
            last_error = $6,
            next_attempt_at = now() + make_interval(secs => $7::double precision),
            sent_at = CASE WHEN $3 = 'sent' THEN now() ELSE sent_at END,
            lease_expires_at = NULL,
            updated_at = now()
      WHERE id = $1 AND status = 'sending' AND attempts = $2
      RETURNING id`,
    [claim.id, claim.attempts, record.status, record.status !== 'retrying', record.providerMessageId ?? null,
      record.error ?? null, (record.retryInMs ?? 0) / 1000],
  );
  return updated.length === 1;
}

/** Why an email went out without the logo it asked for. */
export async function recordLogoProblem(db: Queryable, outboxId: string, problem: string): Promise<void> {
  await db.query('UPDATE outbox SET logo_error = $2 WHERE id = $1', [outboxId, problem]);
}

/** An outbox row as operators see it (the delivery state of one message). */
export interface OutboxMessageRow {
  id: string;
  otp_id: string | null;
  channel: Channel;
  to: string;
  status: OutboxStatus;
  attempts: number;
  provider_message_id: string | null;
  last_error: string | null;
  logo_error: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  next_attempt_at: Date;
}

/** The organization's messages, newest first, optionally of one status or one OTP. */
export function listOutboxMessages(
  db: Queryable,
  organizationId: string,
  filter: { status?: OutboxStatus; otpId?: string; limit: number },
): Promise<OutboxMessageRow[]> {
  return db.query<OutboxMessageRow>(
    `SELECT id, otp_id, channel, payload->>'to' AS to, status, attempts, provider_message_id, last_error,
            logo_error, created_at, updated_at, sent_at, next_attempt_at
       FROM outbox
      WHERE organization_id = $1
        AND ($2::text IS NULL OR status = $2)
        AND ($3::uuid IS NULL OR otp_id = $3)
      ORDER BY created_at DESC, id DESC
      LIMIT $4`,
    [organizationId, filter.status ?? null, filter.otpId ?? null, filter.limit],
  );
}

/** Deletes up to `batch` messages finished (sent or failed) before `retentionDays` ago; returns how many. */
export async function deleteFinishedMessages(db: Queryable, retentionDays: number, batch: number): Promise<number> {
  const deleted = await db.query(
    `DELETE FROM outbox WHERE id IN (
       SELECT id FROM outbox
        WHERE status IN ('sent', 'failed') AND updated_at < now() - make_interval(days => $1::int)
        LIMIT $2)
     RETURNING id`,
    [retentionDays, batch],
  );
  return deleted.length;
}

/** One message of the organization as operators see it; undefined when it has none such. */
export async function findOutboxMessage(db: Queryable, organizationId: string, id: string): Promise<OutboxMessageRow | undefined> {
  const [row] = await db.query<OutboxMessageRow>(
    `SELECT id, otp_id, channel, payload->>'to' AS to, status, attempts, provider_message_id, last_error,
            logo_error, created_at, updated_at, sent_at, next_attempt_at
       FROM outbox
      WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return row;
}
