// Users (table users): the people and services of an organization that credentials belong to.
import type { Queryable } from './db.ts';

export async function insertUser(db: Queryable, user: { id: string; organizationId: string; userName: string }): Promise<void> {
  await db.query('INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3)', [user.id, user.organizationId, user.userName]);
}

export async function userExists(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM users WHERE id = $1 AND organization_id = $2', [id, organizationId])).length > 0;
}
