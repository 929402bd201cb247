// OAuth providers (table oauth_providers): a user's binding to an OpenID Connect identity, the
// (issuer, subject) of a verified id token and the audience it was issued to. One (issuer, subject)
// belongs to one user of an organization (its unique index); oauth_login finds the user by it.
import type { Gate } from './gate.ts';
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';

/** An OpenID Connect identity: the token's `iss` and `sub`. */
export interface OidcSubject {
  issuer: string;
  subject: string;
}

export interface NewOauthProvider extends OidcSubject {
  id: string;
  userId: string;
  providerName: string;
  audience: string;
}

export interface OauthProviderRecord extends OidcSubject {
  id: string;
  providerName: string;
  audience: string;
  createdAt: Date;
}

interface OauthProviderRow {
  id: string;
  provider_name: string;
  issuer: string;
  subject: string;
  audience: string;
  created_at: Date | string;
}

const fromRow = (row: OauthProviderRow): OauthProviderRecord => ({
  id: row.id,
  providerName: row.provider_name,
  issuer: row.issuer,
  subject: row.subject,
  audience: row.audience,
  createdAt: new Date(row.created_at),
});

/**
 * A row of an activity's statement (`activity` yields the activity's row): the providers, created at
 * `now`, for users of the organization (written by the same statement, or checked by the caller).
 * Their (issuer, subject) must be free (oauthSubjectsFree); the unique index stops a concurrent request.
 */
export function insertOauthProvidersOfActivity(activity: Sql, organizationId: string, providers: readonly NewOauthProvider[], now: Date): Sql {
  const rows = providers.map((p) => ({ id: p.id, user_id: p.userId, provider_name: p.providerName, issuer: p.issuer, subject: p.subject, audience: p.audience }));
  return sql`INSERT INTO oauth_providers (id, organization_id, user_id, activity_id, provider_name, issuer, subject, audience, created_at)
             SELECT r.id, ${organizationId}::uuid, r.user_id, a.id, r.provider_name, r.issuer, r.subject, r.audience, ${now}::timestamptz
               FROM ${activity} a,
                    jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                    AS r (id uuid, user_id uuid, provider_name text, issuer text, subject text, audience text)
             RETURNING id`;
}

/**
 * A Gate that writes nothing: it passes when no (issuer, subject) of the list is bound in the
 * organization yet; its detail lists the indexes of those that are, as a JSON array of numbers.
 */
export function oauthSubjectsFree(organizationId: string, subjects: readonly OidcSubject[]): Gate {
  const wanted = subjects.map((s, index) => ({ index, issuer: s.issuer, subject: s.subject }));
  const taken = sql`SELECT w.index FROM jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb) AS w (index int, issuer text, subject text)
                     WHERE EXISTS (SELECT 1 FROM oauth_providers p WHERE p.organization_id = ${organizationId}::uuid
                                      AND p.issuer = w.issuer AND p.subject = w.subject)`;
  return {
    statement: (proceed) => sql`SELECT 1 WHERE ${proceed} AND NOT EXISTS (${taken})`,
    detail: sql`(SELECT coalesce(json_agg(t.index ORDER BY t.index), '[]') FROM (${taken}) t)`,
  };
}

/** A guard condition: the user's providers, with `adding` more, are at most `max`. */
export function userOauthProvidersWithin(userId: string, adding: number, max: number): Sql {
  return sql`(SELECT count(*) FROM oauth_providers WHERE user_id = ${userId}::uuid) + ${adding}::int <= ${max}::int`;
}

/** A guard condition: every provider of `ids` is the user's, in the organization. */
export function oauthProvidersOfUser(organizationId: string, userId: string, ids: readonly string[]): Sql {
  const distinct = [...new Set(ids.map((id) => id.toLowerCase()))];
  return sql`(SELECT count(*) FROM oauth_providers WHERE id = ANY(${distinct}::uuid[]) AND user_id = ${userId}::uuid
                 AND organization_id = ${organizationId}::uuid) = ${distinct.length}::int`;
}

/** A row of an activity's statement: the user's providers `ids` deleted (their identities may then be bound again). */
export function deleteOauthProvidersOfActivity(activity: Sql, organizationId: string, userId: string, ids: readonly string[]): Sql {
  return sql`DELETE FROM oauth_providers
              WHERE id = ANY(${ids}::uuid[]) AND user_id = ${userId}::uuid AND organization_id = ${organizationId}::uuid
                AND EXISTS (SELECT 1 FROM ${activity})
             RETURNING id`;
}

/** A row of an activity's statement: every provider of the users deleted (their removal). */
export function deleteUsersOauthProvidersOfActivity(activity: Sql, organizationId: string, userIds: readonly string[]): Sql {
  return sql`DELETE FROM oauth_providers
              WHERE organization_id = ${organizationId}::uuid AND user_id = ANY(${userIds}::uuid[]) AND EXISTS (SELECT 1 FROM ${activity})
             RETURNING id`;
}

/** The user (not removed) of the organization bound to the identity, with the audience and provider bound. */
export async function findOauthBinding(
  db: Queryable,
  organizationId: string,
  identity: OidcSubject,
): Promise<{ userId: string; providerId: string; audience: string } | undefined> {
  const [row] = await run<{ user_id: string; id: string; audience: string }>(
    db,
    sql`SELECT p.user_id, p.id, p.audience FROM oauth_providers p JOIN users u ON u.id = p.user_id
         WHERE p.organization_id = ${organizationId}::uuid AND p.issuer = ${identity.issuer} AND p.subject = ${identity.subject}
           AND u.removed_at IS NULL`,
  );
  return row ? { userId: row.user_id, providerId: row.id, audience: row.audience } : undefined;
}

/** A guard condition: the provider is still there (not deleted meanwhile), bound to the user. */
export function oauthProviderStillBound(organizationId: string, userId: string, providerId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM oauth_providers WHERE id = ${providerId}::uuid AND user_id = ${userId}::uuid
                        AND organization_id = ${organizationId}::uuid FOR SHARE)`;
}

/**
 * An expression: the user's (`userId`, an expression) providers, oldest first, the first `limit`,
 * as a JSON array oauthProvidersFromJson reads.
 */
export function oauthProvidersJson(userId: Sql, limit: number): Sql {
  return sql`(SELECT coalesce(json_agg(f ORDER BY f.created_at, f.id), '[]') FROM (
                SELECT p.id, p.provider_name, p.issuer, p.subject, p.audience, p.created_at FROM oauth_providers p
                 WHERE p.user_id = ${userId} ORDER BY p.created_at, p.id LIMIT ${limit}::int) f)`;
}

/** The providers of oauthProvidersJson as records. */
export function oauthProvidersFromJson(json: unknown): OauthProviderRecord[] {
  return (json as OauthProviderRow[]).map(fromRow);
}
