// The words of an OTP message: the variables an email template is rendered with (the built-in
// email's too, see builtInEmail.ts) and the SMS text, whose default shows the code in two groups.
// Every value put into HTML is escaped; the SMS template knows two tags and nothing else executes.
// Also what the outbox keeps of a message: its fields, and the code only sealed (sealedCode.ts).
import { BUILT_IN_EMAIL, BUILT_IN_EMAIL_AUTH_EMAIL, BUILT_IN_RECOVERY_EMAIL } from './builtInEmail.ts';
import { groupOtpCode } from './code.ts';
import { renderEmailTemplate, type EmailTemplateParts, type TemplateVariables } from './emailTemplates.ts';
import { encryptCode } from './sealedCode.ts';

/** What an OTP email needs at delivery time (rendering happens in the worker). */
export interface OtpEmail {
  channel: 'email';
  /** Recipient address, as validated. */
  to: string;
  appName: string;
  /** sendFromEmailAddress, when given (its domain is registered for the organization). */
  fromAddress?: string;
  /** sendFromEmailSenderName, default "Notifications". */
  fromName: string;
  replyTo?: string;
  magicLinkTemplate?: string;
  logoUrl?: string;
  templateVariables?: Record<string, string>;
  /** The organization's template chosen when the message was queued (the one asked for, else its newest). */
  templateId?: string;
  /** That template's content, copied in with its id, so sending reads no template; without one, the built-in email. */
  template?: EmailTemplateParts;
  /** Seconds the code is valid, for the message text. */
  expirationSeconds: number;
  /**
   * What the email carries: an OTP's code (left out), or a credential bundle (email_auth's key,
   * init_user_email_recovery's recovery key), which the outbox seals as it seals a code.
   */
  purpose?: 'email_auth' | 'recovery';
}

/** What an OTP SMS needs at delivery time. */
export interface OtpSms {
  channel: 'sms';
  /** E.164 phone number. */
  to: string;
  appName: string;
  /** smsCustomization.template, containing {{.OtpCode}}. */
  template?: string;
  expirationSeconds: number;
}

export type RenderedEmail = EmailTemplateParts;

/** An OTP message as the outbox holds it: the message without its code, plus the code sealed to the row. */
export type StoredPayload = (OtpEmail | OtpSms) & { encryptedCode?: string };

/** The payload of the outbox row `outboxId` for a message and its code. */
export function storedPayload(secret: Buffer, outboxId: string, message: OtpEmail | OtpSms, code: string): StoredPayload {
  return { ...message, encryptedCode: encryptCode(secret, outboxId, code) };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

function validity(seconds: number): string {
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/** The magic link: the template's one %s replaced by the URL-encoded code. */
function magicLink(template: string, code: string): string {
  return template.replace('%s', encodeURIComponent(code));
}

/** An inline image the HTML shows above the app name. */
export interface InlineLogo {
  cid: string;
  width: number;
  height: number;
}

/** The variables every OTP email template is rendered with, the built-in one and an organization's own. */
export function otpEmailVariables(message: OtpEmail, code: string, logo?: InlineLogo): TemplateVariables {
  const link = message.magicLinkTemplate ? magicLink(message.magicLinkTemplate, code) : undefined;
  return {
    otpCode: code,
    otpCodeGrouped: groupOtpCode(code),
    appName: message.appName,
    expirationMinutes: String(Math.ceil(message.expirationSeconds / 60)),
    expiresIn: validity(message.expirationSeconds),
    ...(link ? { magicLink: link } : {}),
    ...(logo ? { logoCid: logo.cid, logoWidth: String(logo.width), logoHeight: String(logo.height) } : {}),
    ...(message.purpose !== undefined ? { credentialBundle: code } : {}),
    ...(message.templateVariables ? { custom: message.templateVariables } : {}),
  };
}

/** The OTP email from `template` (an organization's, the message's own by default), else from the built-in template. */
export function renderOtpEmail(
  message: OtpEmail,
  code: string,
  options: { logo?: InlineLogo; template?: EmailTemplateParts } = {},
): RenderedEmail {
  const builtIn = message.purpose === 'email_auth' ? BUILT_IN_EMAIL_AUTH_EMAIL : message.purpose === 'recovery' ? BUILT_IN_RECOVERY_EMAIL : BUILT_IN_EMAIL;
  return renderEmailTemplate(options.template ?? message.template ?? builtIn, otpEmailVariables(message, code, options.logo));
}

export function renderOtpSms(message: OtpSms, code: string): string {
  if (message.template === undefined) {
    return `${groupOtpCode(code)} is your ${message.appName} verification code. It expires in ${validity(message.expirationSeconds)}.`;
  }
  // split/join: a literal replacement, so "$&" and friends in the app name stay text.
  return message.template.split('{{.OtpCode}}').join(code).split('{{.AppName}}').join(message.appName);
}
