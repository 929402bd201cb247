// Email templates of an organization (table email_templates): added, paged, removed, and chosen for
// init_otp_auth's message by id or as the most recent one.
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

/** The organization's template of this id; undefined when it has none (removed, or another's). */
export async function findEmailTemplate(db: Queryable, organizationId: string, templateId: string): Promise<EmailTemplateRecord | undefined> {
  const [row] = await db.query<TemplateRow>(`SELECT ${COLUMNS} FROM email_templates WHERE id = $1 AND organization_id = $2`, [
    templateId,
    organizationId,
  ]);
  return row ? fromRow(row) : undefined;
}

/**
 * An expression: the template a new email uses — the one given, else the organization's newest — as
 * JSON {templateId, template: {subject, html, text}}, or NULL when there is none (the built-in email
 * is used). Read in the queueing statement, so the message carries what it is sent with.
 */
export function chosenEmailTemplate(organizationId: string, templateId: string | undefined): Sql {
  const which = templateId === undefined ? sql`` : sql`AND t.id = ${templateId}::uuid`;
  return sql`(SELECT jsonb_build_object('templateId', t.id::text,
                                        'template', jsonb_build_object('subject', t.subject, 'html', t.html, 'text', t.text))
                FROM email_templates t WHERE t.organization_id = ${organizationId}::uuid ${which}
               ORDER BY t.created_at DESC, t.id DESC LIMIT 1)`;
}

/** A condition: the organization has this template. */
export function emailTemplateExists(organizationId: string, templateId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM email_templates t WHERE t.id = ${templateId}::uuid AND t.organization_id = ${organizationId}::uuid)`;
}
