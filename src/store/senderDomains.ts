// Sender domains (table sender_domains): the domains an organization may send OTP email from
// (sendFromEmailAddress), lowercase.
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';
import { sql, type Sql } from './sql.ts';

export interface SenderDomainRecord {
  id: string;
  domain: string;
  createdAt: Date;
}

/** Registers the domain (once: a second registration returns the first's id). */
export async function insertSenderDomain(db: Queryable, domain: { id: string; organizationId: string; domain: string }): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO sender_domains (id, organization_id, domain) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, domain) DO UPDATE SET domain = EXCLUDED.domain RETURNING id`,
    [domain.id, domain.organizationId, domain.domain],
  );
  return row!.id;
}

/** Newest first, in pages. */
export async function listSenderDomains(db: Queryable, organizationId: string, page: PageRequest): Promise<Page<SenderDomainRecord>> {
  const found = await selectPage<{ id: string; domain: string; created_at: Date }>(
    db,
    { table: 'sender_domains', columns: sql`a.id, a.domain, a.created_at`, organizationId, size: sql`512` },
    page,
  );
  return { ...found, rows: found.rows.map((r) => ({ id: r.id, domain: r.domain, createdAt: r.created_at })) };
}

/** Unregisters the domain (compared in lowercase); undefined when the organization does not have it. */
export async function deleteSenderDomain(db: Queryable, organizationId: string, domain: string): Promise<{ id: string; domain: string } | undefined> {
  const [row] = await db.query<{ id: string; domain: string }>(
    'DELETE FROM sender_domains WHERE organization_id = $1 AND lower(domain) = $2 RETURNING id, domain',
    [organizationId, domain.toLowerCase()],
  );
  return row;
}

/** A condition: the organization registered this domain (compared in lowercase). */
export function senderDomainRegistered(organizationId: string, domain: string): Sql {
  return sql`EXISTS (SELECT 1 FROM sender_domains d WHERE d.organization_id = ${organizationId}::uuid AND lower(d.domain) = ${domain.toLowerCase()})`;
}
