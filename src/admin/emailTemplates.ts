// An organization's email templates in the store: added (checked first), listed, removed, and
// found for init_otp_auth by id or as the most recent one.
import { randomUUID } from 'node:crypto';
import { invalidArgument, notFound } from '../errors.ts';
import { emailTemplateProblems, type EmailTemplateParts } from '../otp/emailTemplates.ts';
import type { Queryable } from '../store/db.ts';
import { requireOrganization } from './organizations.ts';

export interface EmailTemplate extends EmailTemplateParts {
  templateId: string;
  organizationId: string;
  name: string;
  createdAt: string;
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

function fromRow(row: TemplateRow): EmailTemplate {
  return {
    templateId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    subject: row.subject,
    html: row.html,
    text: row.text,
    createdAt: row.created_at.toISOString(),
  };
}

export async function addEmailTemplate(
  db: Queryable,
  organizationId: string,
  input: EmailTemplateParts & { name?: string },
): Promise<EmailTemplate> {
  const problems = emailTemplateProblems(input);
  if (problems.length > 0) {
    throw invalidArgument(`invalid email template: ${problems.map((p) => `${p.field}: ${p.description}`).join('; ')}`, problems);
  }
  await requireOrganization(db, organizationId);
  const [row] = await db.query<TemplateRow>(
    `INSERT INTO email_templates (id, organization_id, name, subject, html, text)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [randomUUID(), organizationId, input.name ?? 'email template', input.subject, input.html, input.text],
  );
  return fromRow(row!);
}

/** Newest first: the first one is what init_otp_auth uses when no templateId is given. */
export async function listEmailTemplates(db: Queryable, organizationId: string): Promise<EmailTemplate[]> {
  const rows = await db.query<TemplateRow>(
    `SELECT ${COLUMNS} FROM email_templates WHERE organization_id = $1 ORDER BY created_at DESC, id`,
    [organizationId],
  );
  return rows.map(fromRow);
}

export async function removeEmailTemplate(db: Queryable, organizationId: string, templateId: string): Promise<{ templateId: string }> {
  const removed = await db.query('DELETE FROM email_templates WHERE id = $1 AND organization_id = $2 RETURNING id', [
    templateId,
    organizationId,
  ]);
  if (removed.length === 0) throw notFound(`no email template ${templateId} in organization ${organizationId}`);
  return { templateId };
}

/** The template a new OTP email uses: the given id (undefined when it is not the organization's), else the newest. */
export async function findEmailTemplate(
  db: Queryable,
  organizationId: string,
  templateId: string | undefined,
): Promise<EmailTemplate | undefined> {
  const rows = templateId
    ? await db.query<TemplateRow>(`SELECT ${COLUMNS} FROM email_templates WHERE id = $1 AND organization_id = $2`, [
        templateId,
        organizationId,
      ])
    : await db.query<TemplateRow>(
        `SELECT ${COLUMNS} FROM email_templates WHERE organization_id = $1 ORDER BY created_at DESC, id LIMIT 1`,
        [organizationId],
      );
  return rows[0] ? fromRow(rows[0]) : undefined;
}
