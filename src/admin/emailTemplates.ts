// An organization's email templates for operators: checked before they are stored, listed in
// pages, removed. init_otp_auth chooses one for its message in store/emailTemplates.ts.
import { randomUUID } from 'node:crypto';
import { invalidArgument, notFound } from '../errors.ts';
import { emailTemplateProblems, type EmailTemplateParts } from '../otp/emailTemplates.ts';
import type { Queryable } from '../store/db.ts';
import {
  deleteEmailTemplate,
  insertEmailTemplate,
  listEmailTemplates as listStored,
  type EmailTemplateRecord,
} from '../store/emailTemplates.ts';
import type { Page, PageRequest } from '../store/pages.ts';
import type { EmailTemplate, RemovedEmailTemplate } from './answers.ts';
import { requireOrganization } from './organizations.ts';

function rendered(record: EmailTemplateRecord): EmailTemplate {
  return { ...record, createdAt: record.createdAt.toISOString() };
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
  return rendered(
    await insertEmailTemplate(db, {
      id: randomUUID(),
      organizationId,
      name: input.name ?? 'email template',
      subject: input.subject,
      html: input.html,
      text: input.text,
    }),
  );
}

/** Newest first: the first one is what init_otp_auth uses when no templateId is given. */
export async function listEmailTemplates(db: Queryable, organizationId: string, page: PageRequest): Promise<Page<EmailTemplate>> {
  await requireOrganization(db, organizationId);
  const found = await listStored(db, organizationId, page);
  return { ...found, rows: found.rows.map(rendered) };
}

export async function removeEmailTemplate(db: Queryable, organizationId: string, templateId: string): Promise<RemovedEmailTemplate> {
  if (!(await deleteEmailTemplate(db, organizationId, templateId))) {
    throw notFound(
      'EMAIL_TEMPLATE_NOT_FOUND',
      `no email template ${templateId} in organization ${organizationId}; list its templates with \`signet template list --org ${organizationId}\``,
    );
  }
  return { templateId };
}
