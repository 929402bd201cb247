// Organizations (table organizations): the tenants.
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';
import { sql } from './sql.ts';

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: Date;
}

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

/** Every organization, newest first, in pages. */
export async function listOrganizations(db: Queryable, page: PageRequest): Promise<Page<OrganizationRecord>> {
  const found = await selectPage<{ id: string; name: string; created_at: Date }>(
    db,
    { table: 'organizations', columns: sql`a.id, a.name, a.created_at`, organizationId: null, size: sql`512 + octet_length(a.name)` },
    page,
  );
  return { ...found, rows: found.rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at })) };
}
