// Email templates of an organization (table email_templates): added, paged, removed, and found for
// init_otp_auth by id or as the most recent one.
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';
import { sql, type Sql } from './sql.ts';

export interface EmailTemplateRecord {
  templateId: string;
  organizationId: string;
  name: string;
  subject: string;
  html: string;
  text: string;
  createdAt: Date;
}

interface TemplateRow {
  id: string;
  organization_id: string;
  name: string;
  subject: string;
  html: string;
  text: string;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, name, subject, html, text, created_at';

function fromRow(row: TemplateRow): EmailTemplateRecord {
  return {
    templateId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    subject: row.subject,
    html: row.html,
    text: row.text,
    createdAt: row.created_at,
  };
}

export async function insertEmailTemplate(
  db: Queryable,
  template: { id: string; organizationId: string; name: string; subject: string; html: string; text: string },
): Promise<EmailTemplateRecord> {
  const [row] = await db.query<TemplateRow>(
    `INSERT INTO email_templates (id, organization_id, name, subject, html, text)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [template.id, template.organizationId, template.name, template.subject, template.html, template.text],
  );
  return fromRow(row!);
}

/** Newest first: the first one is what init_otp_auth uses when no templateId is given. */
export async function listEmailTemplates(db: Queryable, organizationId: string, page: PageRequest): Promise<Page<EmailTemplateRecord>> {
  const found = await selectPage<TemplateRow>(
    db,
    {
      table: 'email_templates',
      columns: sql`a.id, a.organization_id, a.name, a.subject, a.html, a.text, a.created_at`,
      organizationId,
      size: sql`octet_length(a.html) + octet_length(a.text) + octet_length(a.subject) + 1024`,
    },
    page,
  );
  return { ...found, rows: found.rows.map(fromRow) };
}

/** True when the organization had the template and it is now gone. */
export async function deleteEmailTemplate(db: Queryable, organizationId: string, templateId: string): Promise<boolean> {
  const removed = await db.query('DELETE FROM email_templates WHERE id = $1 AND organization_id = $2 RETURNING id', [
    templateId,
    organizationId,
  ]);
  return removed.length > 0;
}

/** The template a new OTP email uses: the given id (undefined when it is not the organization's), else the newest. */
export async function findEmailTemplate(
  db: Queryable,
  organizationId: string,
  templateId: string | undefined,
): Promise<EmailTemplateRecord | undefined> {
  const rows = templateId
    ? await db.query<TemplateRow>(`SELECT ${COLUMNS} FROM email_templates WHERE id = $1 AND organization_id = $2`, [
        templateId,
        organizationId,
      ])
    : await db.query<TemplateRow>(
        `SELECT ${COLUMNS} FROM email_templates WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
        [organizationId],
      );
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/** An expression: the id (text) of the organization's newest template, NULL when it has none. */
export function newestEmailTemplateId(organizationId: string): Sql {
  return sql`(SELECT t.id::text FROM email_templates t WHERE t.organization_id = ${organizationId}::uuid ORDER BY t.created_at DESC, t.id DESC LIMIT 1)`;
}

/** A condition: the organization has this template. */
export function emailTemplateExists(organizationId: string, templateId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM email_templates t WHERE t.id = ${templateId}::uuid AND t.organization_id = ${organizationId}::uuid)`;
}
