// Reading stored activities with their votes: one by fingerprint (idempotency) or id (queries), or
// a page of an organization's activities, newest first, with id cursors.
import type { AppProof } from '../activities/appProofs.ts';
import type { ActivityRecord } from '../activities/render.ts';
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';

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

export interface ActivityPage extends PageRequest {
  organizationId: string;
  statuses?: string[];
  types?: string[];
}

/**
 * Newest first; (created_at, id) orders activities created in the same instant. An activity's size
 * in the answer is estimated from its raw body: the body is echoed twice as the votes' message and
 * the intent (which the parameters make) twice more.
 */
export async function listActivities(db: Queryable, page: ActivityPage): Promise<Page<ActivityRecord>> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (page.statuses?.length) {
    params.push(page.statuses);
    where.push(`status = ANY($${params.length + 1}::text[])`);
  }
  if (page.types?.length) {
    params.push(page.types);
    where.push(`type = ANY($${params.length + 1}::text[])`);
  }
  const found = await selectPage<ActivityRow>(
    db,
    { table: 'activities', columns: COLUMNS, organizationId: page.organizationId, where, params, size: '4 * octet_length(raw_body) + 2048' },
    page,
  );
  return { ...found, rows: await withVotes(db, found.rows) };
}
