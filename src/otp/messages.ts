// The words of an OTP message: the built-in email (HTML and text) and the SMS text. Every value
// put into HTML is escaped; the SMS template knows two tags and nothing else executes.

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
  /** The organization's template chosen at submission (the one asked for, else its newest). */
  templateId?: string;
  /** Seconds the code is valid, for the message text. */
  expirationSeconds: number;
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

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
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
export function magicLink(template: string, code: string): string {
  return template.replace('%s', encodeURIComponent(code));
}

/** An inline image the HTML shows above the app name. */
export interface InlineLogo {
  cid: string;
  width: number;
  height: number;
}

export function renderOtpEmail(message: OtpEmail, code: string, logo?: InlineLogo): RenderedEmail {
  const app = message.appName;
  const expires = validity(message.expirationSeconds);
  const link = message.magicLinkTemplate ? magicLink(message.magicLinkTemplate, code) : undefined;

  const text = [
    `Your ${app} verification code is:`,
    '',
    `    ${code}`,
    '',
    `It expires in ${expires}.`,
    ...(link ? ['', `Or sign in with this link: ${link}`] : []),
    '',
    `If you did not ask for this code, you can ignore this email.`,
    '',
  ].join('\n');

  const button = link
    ? `<p style="margin:24px 0"><a href="${escapeHtml(link)}" style="background:#111827;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">Sign in to ${escapeHtml(app)}</a></p>`
    : '';
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(app)} code</title></head>
<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#111827">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0"><tr><td align="center">
<table role="presentation" width="480" cellspacing="0" cellpadding="0" style="max-width:480px;background:#ffffff;border-radius:8px;padding:32px">
<tr><td>
${logo ? `<img src="cid:${escapeHtml(logo.cid)}" width="${logo.width}" height="${logo.height}" alt="${escapeHtml(app)}" style="display:block;margin:0 0 16px;border:0">` : ''}
<h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(app)}</h1>
<p style="margin:0 0 8px">Your verification code is:</p>
<p style="margin:0 0 16px;font-size:32px;font-weight:700;letter-spacing:4px;font-family:Menlo,Consolas,monospace">${escapeHtml(code)}</p>
<p style="margin:0;color:#4b5563">It expires in ${escapeHtml(expires)}.</p>
${button}
<p style="margin:24px 0 0;color:#6b7280;font-size:13px">If you did not ask for this code, you can ignore this email.</p>
</td></tr></table>
</td></tr></table>
</body></html>
`;
  return { subject: `Your ${app} verification code`, html, text };
}

export function renderOtpSms(message: OtpSms, code: string): string {
  if (message.template === undefined) {
    return `${code} is your ${message.appName} verification code. It expires in ${validity(message.expirationSeconds)}.`;
  }
  // split/join: a literal replacement, so "$&" and friends in the app name stay text.
  return message.template.split('{{.OtpCode}}').join(code).split('{{.AppName}}').join(message.appName);
}
