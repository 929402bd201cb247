// Organizations (table organizations): the tenants.
import type { Queryable } from './db.ts';

export async function insertOrganization(db: Queryable, organization: { id: string; name: string }): Promise<void> {
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organization.id, organization.name]);
}

export async function organizationExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM organizations WHERE id = $1', [id])).length > 0;
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return row!.n;
}
