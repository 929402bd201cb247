// OTP email templates: the rules an organization's own must follow, and the rendering of every OTP
// email (the built-in one too) with Handlebars, a template engine that runs no code. Every variable
// is HTML-escaped in the HTML part; raw output is refused.
import Handlebars from 'handlebars';
import type { FieldViolation } from '../errors.ts';
import { TEMPLATE_LIMITS } from './templateLimits.ts';

export interface EmailTemplateParts {
  subject: string;
  html: string;
  text: string;
}

/** Variables Signet provides; a templateVariables key of the same name cannot replace them. */
export const RESERVED_VARIABLES = [
  'otpCode',
  'otpCodeGrouped',
  'appName',
  'magicLink',
  'expirationMinutes',
  'expiresIn',
  'logoCid',
  'logoWidth',
  'logoHeight',
] as const;

// Built-in helpers only (if, unless, each, with): no partials, no custom helpers, nothing to call.
const COMPILE_OPTIONS = { knownHelpersOnly: true, strict: false, noEscape: false } as const;

function compileProblem(source: string, field: string, allowRaw: boolean): FieldViolation | undefined {
  if (!allowRaw && /\{\{\{|\{\{~?\s*&/.test(source)) {
    return { field, description: 'must not use raw output ({{{…}}} or {{&…}}): every variable is HTML-escaped; use {{name}}' };
  }
  if (/\{\{~?\s*>/.test(source)) return { field, description: 'must not use partials ({{> …}})' };
  try {
    Handlebars.precompile(source, COMPILE_OPTIONS);
    return undefined;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0] ?? 'syntax error';
    return { field, description: `is not a valid Handlebars template: ${message}` };
  }
}

/** Everything wrong with a template, as field violations (empty when it can be stored). */
export function emailTemplateProblems(parts: EmailTemplateParts): FieldViolation[] {
  const problems: FieldViolation[] = [];
  for (const key of ['subject', 'html', 'text'] as const) {
    const value = parts[key];
    if (value.trim() === '') problems.push({ field: key, description: 'must not be empty' });
    else if (Buffer.byteLength(value) > TEMPLATE_LIMITS[key]) {
      problems.push({ field: key, description: `is larger than ${TEMPLATE_LIMITS[key]} bytes` });
    } else {
      // The text part and the subject are not HTML: raw output there is harmless and sometimes wanted.
      const problem = compileProblem(value, key, key !== 'html');
      if (problem) problems.push(problem);
    }
  }
  if (/[\r\n]/.test(parts.subject)) problems.push({ field: 'subject', description: 'must be one line' });
  if (!/\{\{~?\s*(otpCode|otpCodeGrouped|magicLink)\s*~?\}\}/.test(parts.html)) {
    problems.push({ field: 'html', description: 'must show {{otpCode}}, {{otpCodeGrouped}} or {{magicLink}}; otherwise the email carries no code' });
  }
  return problems;
}

export interface TemplateVariables {
  /** The code as generated, e.g. `30FMDAGXE`. */
  otpCode: string;
  /** The code in two groups, e.g. `30FM-DAGXE` (see groupOtpCode). */
  otpCodeGrouped: string;
  appName: string;
  magicLink?: string;
  expirationMinutes: string;
  /** The validity in words: `5 minutes`, `1 minute`, `90 seconds`. */
  expiresIn: string;
  /** Present when the logo was fetched, with its size in pixels. */
  logoCid?: string;
  logoWidth?: string;
  logoHeight?: string;
  /** An email_auth or recovery email: the credential bundle (otpCode holds the same). */
  credentialBundle?: string;
  /** templateVariables of the request (strings only). */
  custom?: Record<string, string>;
}

export function renderEmailTemplate(template: EmailTemplateParts, variables: TemplateVariables): EmailTemplateParts {
  const { custom, ...reserved } = variables;
  // Reserved names win, so a request cannot replace the code or the link with its own text.
  const context = Object.assign(Object.create(null), custom ?? {}, reserved);
  const html = Handlebars.compile(template.html, COMPILE_OPTIONS)(context);
  const text = Handlebars.compile(template.text, { ...COMPILE_OPTIONS, noEscape: true })(context);
  const subject = Handlebars.compile(template.subject, { ...COMPILE_OPTIONS, noEscape: true })(context);
  return { subject: subject.replace(/[\r\n]+/g, ' ').trim(), html, text };
}
