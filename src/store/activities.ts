// Reading stored activities with their votes: one by fingerprint (idempotency) or id (queries), or
// a page of an organization's activities, newest first, with id cursors.
import type { AppProof } from '../activities/appProofs.ts';
import type { ActivityRecord } from '../activities/render.ts';
import type { Queryable } from './db.ts';

interface ActivityRow {
  id: string;
  organization_id: string;
  type: string;
  status: string;
  fingerprint: string;
  timestamp_ms: string;
  intent: object;
  result: object | null;
  created_at: Date;
  updated_at: Date;
  app_proofs: AppProof[] | null;
}

interface VoteRow {
  id: string;
  user_id: string;
  user_name: string;
  activity_id: string;
  selection: string;
  message: string;
  public_key: string;
  signature: string;
  scheme: string;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, type, status, fingerprint, timestamp_ms, intent, result, created_at, updated_at, app_proofs';

async function withVotes(db: Queryable, rows: ActivityRow[]): Promise<ActivityRecord[]> {
  if (rows.length === 0) return [];
  const votes = await db.query<VoteRow>(
    `SELECT v.id, v.user_id, u.user_name, v.activity_id, v.selection, v.message, v.public_key, v.signature,
            v.scheme, v.created_at
       FROM votes v JOIN users u ON u.id = v.user_id
      WHERE v.activity_id = ANY($1::uuid[]) ORDER BY v.created_at, v.id`,
    [rows.map((r) => r.id)],
  );
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organization_id,
    type: row.type,
    status: row.status,
    fingerprint: row.fingerprint,
    timestampMs: row.timestamp_ms,
    intent: row.intent,
    result: row.result ?? {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.app_proofs ? { appProofs: row.app_proofs } : {}),
    votes: votes
      .filter((v) => v.activity_id === row.id)
      .map((v) => ({
        id: v.id,
        userId: v.user_id,
        userName: v.user_name,
        activityId: v.activity_id,
        selection: v.selection,
        message: v.message,
        publicKey: v.public_key,
        signature: v.signature,
        scheme: v.scheme,
        createdAt: v.created_at,
      })),
  }));
}

export async function findActivity(
  db: Queryable,
  key: { organizationId: string } & ({ fingerprint: string } | { id: string }),
): Promise<ActivityRecord | undefined> {
  const [column, value] = 'fingerprint' in key ? ['fingerprint', key.fingerprint] : ['id', key.id];
  const rows = await db.query<ActivityRow>(
    `SELECT ${COLUMNS} FROM activities WHERE organization_id = $1 AND ${column} = $2`,
    [key.organizationId, value],
  );
  return (await withVotes(db, rows))[0];
}

export interface ActivityPage {
  organizationId: string;
  statuses?: string[];
  types?: string[];
  limit: number;
  /** Only activities newer than this one (it comes before them in the list). */
  before?: { createdAt: Date; id: string };
  /** Only activities older than this one. */
  after?: { createdAt: Date; id: string };
}

/** Newest first; (created_at, id) orders activities created in the same instant. */
export async function listActivities(db: Queryable, page: ActivityPage): Promise<ActivityRecord[]> {
  const conditions = ['organization_id = $1'];
  const params: unknown[] = [page.organizationId];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(params.length));
  };
  if (page.statuses?.length) add((n) => `status = ANY($${n}::text[])`, page.statuses);
  if (page.types?.length) add((n) => `type = ANY($${n}::text[])`, page.types);
  if (page.after) {
    add((n) => `created_at <= $${n}`, page.after.createdAt);
    add((n) => `(created_at, id) < ($${n - 1}, $${n}::uuid)`, page.after.id);
  }
  if (page.before) {
    add((n) => `created_at >= $${n}`, page.before.createdAt);
    add((n) => `(created_at, id) > ($${n - 1}, $${n}::uuid)`, page.before.id);
  }
  // Walking backwards from a `before` cursor takes the nearest ones first, then restores the order.
  const direction = page.before && !page.after ? 'ASC' : 'DESC';
  params.push(page.limit);
  const rows = await db.query<ActivityRow>(
    `SELECT ${COLUMNS} FROM activities WHERE ${conditions.join(' AND ')}
      ORDER BY created_at ${direction}, id ${direction} LIMIT $${params.length}`,
    params,
  );
  if (direction === 'ASC') rows.reverse();
  return withVotes(db, rows);
}

/** A cursor's position, when the activity is the organization's. */
export async function activityPosition(db: Queryable, organizationId: string, id: string) {
  const [row] = await db.query<{ created_at: Date; id: string }>(
    'SELECT created_at, id FROM activities WHERE organization_id = $1 AND id = $2',
    [organizationId, id],
  );
  return row ? { createdAt: row.created_at, id: row.id } : undefined;
}
