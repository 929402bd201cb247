// User tags (tables user_tags and user_tag_members): named groups of an organization's users, which
// consensus rules name by id. A name is unique in its organization (a unique index); deleting a tag
// removes it from its users (the members cascade).
import type { Queryable } from './db.ts';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import { pageOf, pageStatement, type Page, type PageRequest } from './pages.ts';
import { run, sql, type Sql } from './sql.ts';

export interface UserTagRecord {
  id: string;
  organizationId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

interface UserTagRow {
  id: string;
  organization_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

function fromRow(row: UserTagRow): UserTagRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * An expression: the ids of the tags of the user whose id is `userId` (an SQL expression), as a JSON
 * array in the order the tags were created. The one spelling of "a user's tags" wherever a user is read.
 */
export function userTagIdsJson(userId: Sql): Sql {
  return sql`coalesce((SELECT json_agg(t.id ORDER BY t.created_at, t.id)
                         FROM user_tag_members m JOIN user_tags t ON t.id = m.tag_id WHERE m.user_id = ${userId}), '[]')`;
}

/** A guard condition: the organization has no tag of this name. */
export function userTagNameFree(organizationId: string, name: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM user_tags WHERE organization_id = ${organizationId}::uuid AND name = ${name})`;
}

/** A guard condition: the organization has fewer than `max` tags. */
export function userTagsBelow(organizationId: string, max: number): Sql {
  return sql`(SELECT count(*) FROM user_tags WHERE organization_id = ${organizationId}::uuid) < ${max}`;
}

/** A guard condition: the tag is one of the organization's. `tagId` must be a UUID. */
export function userTagOfOrganization(organizationId: string, tagId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM user_tags WHERE id = ${tagId}::uuid AND organization_id = ${organizationId}::uuid)`;
}

/**
 * A lock taken before an activity's statement (ActivityPlan's locks) on the organization's tags among
 * `tagIds`: `share` for a write that adds members (a deletion of the tag waits for it, and it for a
 * deletion, whose statement then sees the tag gone), `update` for the deletion itself.
 */
export function lockUserTags(organizationId: string, tagIds: string[], mode: 'share' | 'update'): Sql {
  return sql`SELECT id FROM user_tags WHERE organization_id = ${organizationId}::uuid AND id = ANY(${tagIds}::uuid[])
              ORDER BY id ${mode === 'share' ? sql`FOR KEY SHARE` : sql`FOR UPDATE`}`;
}

/** A row of an activity's statement (`activity` yields its row): the new tag, created at `now`. */
export function insertUserTagOfActivity(activity: Sql, tag: { id: string; organizationId: string; name: string; now: Date }): Sql {
  return sql`INSERT INTO user_tags (id, organization_id, name, created_at, updated_at)
             SELECT ${tag.id}::uuid, ${tag.organizationId}::uuid, ${tag.name}, ${tag.now}::timestamptz, ${tag.now}::timestamptz
               FROM ${activity}`;
}

/** A row of an activity's statement: these users get these tags (the users' and tags' checks are the caller's guards). */
export function insertUserTagMembersOfActivity(activity: Sql, members: Array<{ tagId: string; userId: string }>): Sql {
  const rows = members.map((m) => ({ tag_id: m.tagId, user_id: m.userId }));
  return sql`INSERT INTO user_tag_members (tag_id, user_id)
             SELECT m.tag_id, m.user_id
               FROM ${activity}, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS m (tag_id uuid, user_id uuid)
             ON CONFLICT DO NOTHING`;
}

/** A row of an activity's statement: removes the organization's tags among `tagIds` (and so their members). */
export function deleteUserTagsOfActivity(activity: Sql, organizationId: string, tagIds: string[]): Sql {
  return sql`DELETE FROM user_tags
              WHERE organization_id = ${organizationId}::uuid AND id = ANY(${tagIds}::uuid[]) AND EXISTS (SELECT 1 FROM ${activity})`;
}

/** The members of these tags of the organization, as an SQL expression: their user ids, sorted, once each (a text[]). */
function membersOf(organizationId: string, tagIds: string[]): Sql {
  return sql`(SELECT coalesce(array_agg(DISTINCT m.user_id::text ORDER BY m.user_id::text), '{}')
                FROM user_tag_members m JOIN user_tags t ON t.id = m.tag_id
               WHERE t.organization_id = ${organizationId}::uuid AND t.id = ANY(${tagIds}::uuid[]))`;
}

/** The users that have any of these tags of the organization, sorted, once each. */
export async function userTagMembers(db: Queryable, organizationId: string, tagIds: string[]): Promise<string[]> {
  const [row] = await run<{ members: string[] }>(db, sql`SELECT ${membersOf(organizationId, tagIds)} AS members`);
  return row?.members ?? [];
}

/** A guard condition: the users that have any of these tags are exactly `userIds` (sorted, as userTagMembers gives them). */
export function userTagMembersAre(organizationId: string, tagIds: string[], userIds: string[]): Sql {
  return sql`${membersOf(organizationId, tagIds)} = ${userIds}::text[]`;
}

/** A page of the organization's tags, newest first, on behalf of a credential checked in the same statement. */
export async function listUserTagsFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  page: PageRequest,
): Promise<{ refused?: CredentialState; page?: Page<UserTagRecord> }> {
  const statement = pageStatement(
    { table: 'user_tags', columns: sql`a.id, a.organization_id, a.name, a.created_at, a.updated_at`, organizationId, size: sql`octet_length(a.name) * 2 + 256` },
    page,
  );
  const { refused, rows } = await runWithCredential<Record<string, unknown>>(db, use, statement);
  if (refused) return { refused };
  const found = pageOf<UserTagRow>(rows, page);
  return { page: { ...found, rows: found.rows.map(fromRow) } };
}

/**
 * A row of an activity's statement: the user keeps, of its tags, only `keepTagIds` (the tags it gets
 * are insertUserTagMembersOfActivity's; a member kept is neither deleted nor inserted again).
 */
export function keepUserTagMembersOfActivity(activity: Sql, userId: string, keepTagIds: string[]): Sql {
  return sql`DELETE FROM user_tag_members
              WHERE user_id = ${userId}::uuid AND NOT (tag_id = ANY(${keepTagIds}::uuid[])) AND EXISTS (SELECT 1 FROM ${activity})`;
}
