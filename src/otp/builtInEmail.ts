// The built-in OTP email, a Handlebars template like an organization's own: the same engine, the same
// variables and the same escaping render it, so the two differ only in their source. The HTML is
// made for phones first: tables and inline styles only (what mail clients keep), a card as wide as
// the screen up to 480 px, a logo that shrinks with it, long names and links that wrap, and the code
// in two groups that never breaks across lines. The text part says the same.
import type { EmailTemplateParts } from './emailTemplates.ts';

/** The HTML every built-in email shares: a card of at most 480 px with the logo and the app's name, `body` inside. */
function framedHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="x-apple-disable-message-reformatting"><title>${title}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#111827;-webkit-text-size-adjust:100%">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="width:100%;background:#f3f4f6">
<tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="width:100%;max-width:480px;background:#ffffff;border-radius:8px">
<tr><td style="padding:28px 24px;font-size:16px;line-height:24px;text-align:left;overflow-wrap:anywhere;word-break:break-word">
{{#if logoCid}}<img src="cid:{{logoCid}}" width="{{logoWidth}}" height="{{logoHeight}}" alt="{{appName}}" style="display:block;margin:0 0 16px;border:0;max-width:100%;height:auto">{{/if}}
<h1 style="margin:0 0 16px;font-size:20px;line-height:28px">{{appName}}</h1>
${body}</td></tr></table>
</td></tr></table>
</body></html>
`;
}

const html = framedHtml('{{appName}} code', `<p style="margin:0 0 8px">Your verification code is:</p>
<p style="margin:0 0 8px;font-size:30px;line-height:40px;font-weight:700;letter-spacing:3px;white-space:nowrap;font-family:Menlo,Consolas,'Courier New',monospace">{{otpCodeGrouped}}</p>
<p style="margin:0;color:#4b5563;font-size:14px;line-height:20px">You can also enter it as {{otpCode}}. It expires in {{expiresIn}}.</p>
{{#if magicLink}}<p style="margin:24px 0 0"><a href="{{magicLink}}" style="background:#111827;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block;max-width:100%;box-sizing:border-box">Sign in to {{appName}}</a></p>{{/if}}
<p style="margin:24px 0 0;color:#6b7280;font-size:13px;line-height:20px">If you did not ask for this code, you can ignore this email.</p>
`);

const text = `Your {{appName}} verification code is:

    {{otpCodeGrouped}}

You can also enter it as {{otpCode}}. It expires in {{expiresIn}}.
{{#if magicLink}}

Or sign in with this link: {{magicLink}}
{{/if}}

If you did not ask for this code, you can ignore this email.
`;

export const BUILT_IN_EMAIL: EmailTemplateParts = {
  subject: 'Your {{appName}} verification code',
  html,
  text,
};

// The emails of a credential bundle (email_auth's key, init_user_email_recovery's recovery key), which
// the app's page opens with the key it holds (it is of no use to anyone else), and the magic link
// that carries it there. The bundle is long and has no spaces: it wraps anywhere.
function bundleHtml(title: string, intro: string, button: string, ignore: string): string {
  return framedHtml(title, `{{#if magicLink}}<p style="margin:0 0 24px"><a href="{{magicLink}}" style="background:#111827;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block;max-width:100%;box-sizing:border-box">${button}</a></p>{{/if}}
<p style="margin:0 0 8px">${intro}</p>
<p style="margin:0 0 8px;font-size:13px;line-height:18px;word-break:break-all;font-family:Menlo,Consolas,'Courier New',monospace">{{credentialBundle}}</p>
<p style="margin:0;color:#4b5563;font-size:14px;line-height:20px">It expires in {{expiresIn}}.</p>
<p style="margin:24px 0 0;color:#6b7280;font-size:13px;line-height:20px">${ignore}</p>
`);
}

function bundleText(title: string, intro: string, button: string, ignore: string): string {
  return `${title}
{{#if magicLink}}
${button} with this link: {{magicLink}}
{{/if}}

${intro}

{{credentialBundle}}

It expires in {{expiresIn}}.

${ignore}
`;
}

function bundleEmail(title: string, intro: string, button: string, ignore: string): EmailTemplateParts {
  return { subject: title, html: bundleHtml(title, intro, button, ignore), text: bundleText(title, intro, button, ignore) };
}

export const BUILT_IN_EMAIL_AUTH_EMAIL = bundleEmail(
  'Sign in to {{appName}}',
  'Your sign-in credential, for the page where you asked for it:',
  'Sign in to {{appName}}',
  'If you did not ask to sign in, you can ignore this email.',
);

/** init_user_email_recovery's email: the recovery credential, which adds a passkey to the account. */
export const BUILT_IN_RECOVERY_EMAIL = bundleEmail(
  'Recover your {{appName}} account',
  'Your recovery credential, for the page where you asked to recover your account:',
  'Recover your account',
  'If you did not ask to recover your account, you can ignore this email: nothing changes without it.',
);
