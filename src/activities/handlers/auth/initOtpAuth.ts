// The init_otp_auth activity (ACTIVITY_TYPE_INIT_OTP_AUTH_V3): its parameter rules and its effect:
// one hashed OTP row and one outbox message, written with the activity
// in its statement, after the sender domain, template and rate-limit checks it depends on. init_otp
// (initOtp.ts) shares both.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField, resourceExhausted } from '../../../errors.ts';
import { generateOtpCode, hashOtpCode } from '../../../otp/code.ts';
import { canonicalEmailAddress, emailAddressProblem, headerSafeProblem, MAX_EMAIL_LENGTH, normalizePhoneNumber } from '../../../otp/contact.ts';
import { renderOtpSms, storedPayload, type OtpEmail, type OtpSms } from '../../../otp/messages.ts';
import { check, queue, take, write, type Effect } from '../../../store/effects.ts';
import type { RateLimit } from '../../../store/rateWindows.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../../handler.ts';
import { objectExpected, text, trueOrFalse, wholeSeconds } from '../../wire/parameters.ts';
import { UUID_PATTERN } from '../../../wire/uuid.ts';

export const OTP_TYPES = ['OTP_TYPE_EMAIL', 'OTP_TYPE_SMS'] as const;
export type OtpType = (typeof OTP_TYPES)[number];

export const DEFAULT_OTP_LENGTH = 9;
export const DEFAULT_EXPIRATION_SECONDS = '300';
export const MAX_EXPIRATION_SECONDS = 600;
export const DEFAULT_SENDER_NAME = 'Notifications';

// Bounds on every string, so no parameter can bloat the activity row, an email or an SMS.
const MAX_APP_NAME_LENGTH = 100;
const MAX_SENDER_NAME_LENGTH = 100;
const MAX_USER_IDENTIFIER_LENGTH = 256;
const MAX_URL_LENGTH = 2048;
const MAX_TEMPLATE_VARIABLES_LENGTH = 16_384;
const MAX_SMS_TEMPLATE_LENGTH = 320;
/** The text sent, app name and code filled in; each {{.AppName}} may add up to 100 characters. */
const MAX_SMS_LENGTH = 320;
const SMS_TAGS = ['{{.OtpCode}}', '{{.AppName}}'];

export const emailAddress = text(MAX_EMAIL_LENGTH, emailAddressProblem);

// `new URL` silently drops tabs and line breaks, so those are refused before parsing.
function urlProblem(value: string): { url: URL } | { problem: string } {
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return { problem: 'contains whitespace or a control character' };
  try {
    return { url: new URL(value) };
  } catch {
    return { problem: 'is not an absolute URL, e.g. https://app.example/logo.png' };
  }
}

function logoUrlProblem(value: string): string | undefined {
  const parsed = urlProblem(value);
  if ('problem' in parsed) return parsed.problem;
  // http is refused in execute unless SIGNET_ALLOW_HTTP_LOGOS: anyone on the path could swap the logo.
  if (parsed.url.protocol !== 'https:' && parsed.url.protocol !== 'http:') return 'must be an https URL';
  if (parsed.url.username || parsed.url.password) return 'must not contain a user name or password';
  return undefined;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function magicLinkTemplateProblem(value: string): string | undefined {
  const placeholders = value.split('%s').length - 1;
  if (placeholders !== 1) {
    return `must contain exactly one %s, where the code goes, e.g. https://app.example/login?code=%s (found ${placeholders})`;
  }
  const parsed = urlProblem(value.replace('%s', 'code'));
  if ('problem' in parsed) return parsed.problem;
  const { protocol, hostname, username, password } = parsed.url;
  // The link carries a credential: plain http only for a developer's own machine.
  if (protocol !== 'https:' && !(protocol === 'http:' && LOOPBACK_HOSTS.has(hostname))) {
    return 'must be an https URL (http is accepted only for localhost)';
  }
  if (username || password) return 'must not contain a user name or password';
  return undefined;
}

/** templateVariables as the JSON object of strings it must be; call only on a validated value. */
export function parseTemplateVariables(value: string): Record<string, string> {
  return JSON.parse(value) as Record<string, string>;
}

function templateVariablesProblem(value: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'is not valid JSON; give a JSON object of strings as a string, e.g. "{\\"name\\":\\"Alice\\"}"';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return 'must be a JSON object of strings, e.g. "{\\"name\\":\\"Alice\\"}", not an array or a single value';
  }
  for (const [key, entry] of Object.entries(parsed)) {
    if (typeof entry !== 'string') return `has a value that is not a string (key "${key.slice(0, 64)}"); quote it`;
  }
  return undefined;
}

function smsTemplateProblem(value: string): string | undefined {
  // Counted in characters as a person reads them, not UTF-16 units.
  if ([...value].length > MAX_SMS_TEMPLATE_LENGTH) return `is longer than ${MAX_SMS_TEMPLATE_LENGTH} characters`;
  if (!value.includes('{{.OtpCode}}')) return 'must contain {{.OtpCode}}, where the code goes';
  let rest = value;
  for (const tag of SMS_TAGS) rest = rest.split(tag).join('');
  if (rest.includes('{{') || rest.includes('}}')) {
    return 'may use only the tags {{.OtpCode}} and {{.AppName}}, written exactly so';
  }
  if (/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/.test(value)) {
    return 'contains a control character; only line breaks are allowed';
  }
  return undefined;
}

export const emailCustomization = z
  .strictObject(
    {
      logoUrl: text(MAX_URL_LENGTH, logoUrlProblem)
        .meta({
          format: 'uri',
          description:
            'URL of a PNG logo. The logo is resized to fit 340 px by 124 px. An https URL (http only with SIGNET_ALLOW_HTTP_LOGOS), fetched when the email is sent from public addresses only, within 5 s and 2 MiB; without it the email goes out with no logo',
        })
        .optional(),
      magicLinkTemplate: text(MAX_URL_LENGTH, magicLinkTemplateProblem)
        .meta({
          pattern: '%s',
          description:
            'Template of the URL used by a magic-link button. The code is interpolated, URL-encoded, into the %s placeholder of the template, for example https://app.example/login?code=%s: an https URL (http only for localhost) with exactly one %s',
        })
        .optional(),
      templateVariables: text(MAX_TEMPLATE_VARIABLES_LENGTH, templateVariablesProblem)
        .meta({
          contentMediaType: 'application/json',
          description:
            'JSON object of key/value pairs used with custom templates, as a string, e.g. "{\\"name\\":\\"Alice\\"}"; every value a string. A key cannot replace otpCode, appName, magicLink, expirationMinutes or logoCid',
        })
        .optional(),
      templateId: text(36, (v) => (UUID_PATTERN.test(v) ? undefined : 'must be a template id (a UUID)'))
        .meta({
          format: 'uuid',
          pattern: UUID_PATTERN.source,
          description:
            'Identifier of a custom email template of the organization (admin API or "signet template add"). Without it the most recent template is used; without any, the built-in email',
        })
        .optional(),
    },
    { error: objectExpected() },
  )
  .describe('Customization of the OTP email; OTP_TYPE_EMAIL only');

const smsCustomization = z
  .strictObject(
    {
      template: text(undefined, smsTemplateProblem)
        .meta({
          maxLength: MAX_SMS_TEMPLATE_LENGTH,
          pattern: '\\{\\{\\.OtpCode\\}\\}',
          description:
            'Text of the SMS: must contain {{.OtpCode}}, where the code goes, and may use {{.AppName}}, no other tag. The template and the SMS it makes (app name and code filled in) are each at most 320 characters. Without it: "<code> is your <appName> verification code. It expires in 5 minutes."',
        })
        .optional(),
    },
    { error: objectExpected() },
  )
  .describe('Customization of the SMS; OTP_TYPE_SMS only. One field: template');

/** The app's name, which the message names (its sender, subject and text); not blank, no line breaks. */
export const appName = text(MAX_APP_NAME_LENGTH, (v) =>
  v.trim() === '' ? 'must not be empty; it names your app in the message' : headerSafeProblem(v, MAX_APP_NAME_LENGTH),
).meta({
  minLength: 1,
  pattern: '\\S',
  description: 'Application name. Required. Used in email notifications when no email template is supplied, and in the SMS. Not blank, no line breaks',
});

/** Fields that only mean something for one channel; setting them for the other is refused. */
const EMAIL_ONLY = ['sendFromEmailAddress', 'sendFromEmailSenderName', 'replyToEmailAddress', 'emailCustomization'] as const;
const SMS_ONLY = ['smsCustomization'] as const;

// "Set" means it would change something: the API documents an empty sender name as the default, and an
// empty customization object carries nothing, so clients that always send those are not refused.
function isSet(value: unknown): boolean {
  if (value === undefined || value === '') return false;
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return false;
  return true;
}

const fields = z.strictObject({
  otpType: z
    .enum(OTP_TYPES, {
      error: (issue) =>
        issue.input === undefined ? 'required field is missing; set OTP_TYPE_EMAIL or OTP_TYPE_SMS' : 'must be OTP_TYPE_EMAIL or OTP_TYPE_SMS',
    })
    .describe('OTP_TYPE_SMS or OTP_TYPE_EMAIL. Selects delivery by SMS or by email'),
  // Checked against otpType below; the bound here keeps the phone parser off huge inputs.
  contact: text(MAX_EMAIL_LENGTH).describe(
    'Email address or phone number that receives the OTP: an email address for OTP_TYPE_EMAIL, in lowercase in the intent (every spelling of an address is one contact), a phone number in international form (+ and country code) for OTP_TYPE_SMS, normalised to E.164 in the intent',
  ),
  appName,
  otpLength: z
    .number({ error: 'must be a whole number from 6 to 9' })
    .refine((n) => Number.isInteger(n) && n >= 6 && n <= 9, 'must be a whole number from 6 to 9')
    .meta({ type: 'integer', minimum: 6, maximum: 9, description: 'Length of the OTP: a whole number from 6 to 9' })
    .default(DEFAULT_OTP_LENGTH),
  alphanumeric: trueOrFalse()
    .describe("Optional. When true the OTP is alphanumeric (Crockford's Base32: 0-9A-Z without I L O U); false: digits only")
    .default(true),
  expirationSeconds: wholeSeconds(
    MAX_EXPIRATION_SECONDS,
    DEFAULT_EXPIRATION_SECONDS,
    `must be a whole number of seconds from 1 to ${MAX_EXPIRATION_SECONDS} written as digits, e.g. "${DEFAULT_EXPIRATION_SECONDS}"`,
    'Optional validity window of the OTP, in seconds written as digits. Default when absent: 5 minutes (300 seconds). Maximum: 600 seconds (10 minutes)',
  )
    .default(DEFAULT_EXPIRATION_SECONDS),
  sendFromEmailSenderName: text(MAX_SENDER_NAME_LENGTH, headerSafeProblem)
    .describe('Optional sender name, used together with sendFromEmailAddress. When empty it defaults to Notifications. No line breaks')
    .optional(),
  sendFromEmailAddress: emailAddress
    .describe(
      'Optional custom address from which the OTP email is sent. Its domain must be registered for the organization (admin API, "signet sender-domain add"); without it SIGNET_EMAIL_FROM is used',
    )
    .optional(),
  replyToEmailAddress: emailAddress.describe('Optional reply-to address for the OTP email').optional(),
  emailCustomization: emailCustomization.optional(),
  smsCustomization: smsCustomization.optional(),
  userIdentifier: text(MAX_USER_IDENTIFIER_LENGTH, (v) =>
    v === '' ? 'must not be empty; omit it or give a stable per-user value' : headerSafeProblem(v, MAX_USER_IDENTIFIER_LENGTH),
  )
    .meta({
      minLength: 1,
      description:
        'Optional client-generated user identifier that enables per-user rate limiting for SMS authentication (SIGNET_RATE_LIMIT_SMS_PER_USER, 5 per 10 minutes by default). A hash of the client-side IP address is the recommended value',
    })
    .optional(),
}, { error: objectExpected() });

type Fields = z.output<typeof fields>;

function contactProblem(otpType: OtpType, contact: string): string | undefined {
  if (otpType === 'OTP_TYPE_EMAIL') {
    if (!contact.includes('@') && 'e164' in normalizePhoneNumber(contact)) {
      return 'is a phone number, but otpType is OTP_TYPE_EMAIL; give an email address or set otpType to OTP_TYPE_SMS';
    }
    const problem = emailAddressProblem(contact);
    return problem && `must be an email address for OTP_TYPE_EMAIL: it ${problem}`;
  }
  if (contact.includes('@') && emailAddressProblem(contact) === undefined) {
    return 'is an email address, but otpType is OTP_TYPE_SMS; give a phone number such as +14155552671 or set otpType to OTP_TYPE_EMAIL';
  }
  const phone = normalizePhoneNumber(contact);
  return 'problem' in phone ? `must be a phone number for OTP_TYPE_SMS: it ${phone.problem}` : undefined;
}

/**
 * `parameters` of init_otp_auth; its output is the intent echoed in the activity, with defaults
 * filled in and `contact` normalised, as it is stored, sent to, verified and rate-limited: E.164 for
 * SMS, canonicalEmailAddress for email (whitespace is refused rather than trimmed).
 * For email, an absent or empty `sendFromEmailSenderName` becomes "Notifications"; an SMS intent
 * carries no email fields.
 */
export const initOtpAuthParameters = fields
  .superRefine(
    (p, ctx) => {
      const contact = contactProblem(p.otpType, p.contact);
      if (contact) ctx.addIssue({ code: 'custom', path: ['contact'], message: contact });
      const template = p.smsCustomization?.template;
      const inputsValid = !ctx.issues.some((i) => ['smsCustomization', 'appName', 'otpLength'].includes(String(i.path?.[0])));
      if (p.otpType === 'OTP_TYPE_SMS' && template !== undefined && inputsValid) {
        const sms = { channel: 'sms' as const, to: p.contact, appName: p.appName, template, expirationSeconds: 0 };
        const length = [...renderOtpSms(sms, '0'.repeat(p.otpLength))].length;
        if (length > MAX_SMS_LENGTH) {
          ctx.addIssue({
            code: 'custom',
            path: ['smsCustomization', 'template'],
            message: `makes an SMS of ${length} characters with this appName and code; at most ${MAX_SMS_LENGTH}`,
          });
        }
      }
      const [foreign, channel, other] =
        p.otpType === 'OTP_TYPE_SMS'
          ? [EMAIL_ONLY, 'OTP_TYPE_EMAIL', 'OTP_TYPE_SMS']
          : [SMS_ONLY, 'OTP_TYPE_SMS', 'OTP_TYPE_EMAIL'];
      for (const key of foreign) {
        // A field that is already wrong in itself gets that one issue, not a second.
        if (isSet(p[key]) && !ctx.issues.some((i) => i.path?.[0] === key)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `applies only to ${channel}, but otpType is ${other}; remove it or change otpType`,
          });
        }
      }
    },
    // Runs even when other fields failed, so one response names every problem, as long as the two
    // fields it reads are themselves valid.
    {
      when: (payload) =>
        typeof payload.value === 'object' &&
        payload.value !== null &&
        !payload.issues.some((i) => i.path?.[0] === 'otpType' || i.path?.[0] === 'contact'),
    },
  )
  .transform((p): Fields => {
    if (p.otpType === 'OTP_TYPE_SMS') {
      return { ...p, contact: (normalizePhoneNumber(p.contact) as { e164: string }).e164 };
    }
    const senderName = p.sendFromEmailSenderName?.trim() ? p.sendFromEmailSenderName : DEFAULT_SENDER_NAME;
    return { ...p, contact: canonicalEmailAddress(p.contact), sendFromEmailSenderName: senderName };
  });

export type InitOtpAuthIntent = z.output<typeof initOtpAuthParameters>;

export const initOtpAuthResultSchema = z.strictObject({ otpId: z.uuid().describe('Identifier of the issued OTP: verify_otp takes it') });
export type InitOtpAuthResult = z.infer<typeof initOtpAuthResultSchema>;

export const initOtpAuth: ActivityHandler<typeof initOtpAuthParameters, InitOtpAuthResult> = {
  path: 'init_otp_auth',
  activityType: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['OTP_RATE_LIMITED'],
  summary: 'Sends a one-time passcode by email or SMS; result `initOtpAuthResultV2.otpId`',
  parentMaySubmit: true,
  description:
    'Sends a one-time passcode to an email address or a phone number, by email or SMS; the answer carries the identifier of the issued OTP (`initOtpAuthResultV2.otpId`), which `verify_otp` takes with the code. Delivery is asynchronous and retried; per-contact and per-`userIdentifier` rate limits answer 429 with `Retry-After`.',
  intentKey: 'initOtpAuthIntentV3',
  resultKey: 'initOtpAuthResultV2',
  parameters: initOtpAuthParameters,
  resultSchema: initOtpAuthResultSchema,
  example: {
    otpType: 'OTP_TYPE_EMAIL',
    contact: 'alice@example.com',
    appName: 'Example Wallet',
    emailCustomization: { magicLinkTemplate: 'https://wallet.example/login?code=%s' },
  },

  execute: (context, intent) => planOtpIssue(context, intent),
};

/**
 * The effect of issuing an OTP, shared with init_otp: the sender-domain and template checks, the
 * sends taken from the rate windows, the OTP row and its message. `targetPrivateKey` (init_otp's HPKE
 * target key, hex) is kept sealed with the OTP until it is used.
 */
export async function planOtpIssue(
  context: ExecutionContext,
  intent: InitOtpAuthIntent,
  targetPrivateKey?: string,
): Promise<ActivityPlan<InitOtpAuthResult>> {
  const { organizationId } = context;
  const logoUrl = intent.emailCustomization?.logoUrl;
  if (logoUrl?.startsWith('http:') && !context.config.allowHttpLogos) {
    throw invalidField('parameters.emailCustomization.logoUrl', 'must be an https URL');
  }
  const checks: Effect[] = intent.sendFromEmailAddress === undefined ? [] : [senderDomainCheck(organizationId, intent.sendFromEmailAddress)];
  // The template is chosen now (the one asked for, else the newest, picked in the activity's
  // statement) and copied into the message, so its sending reads no template.
  const requested = intent.otpType === 'OTP_TYPE_EMAIL' ? intent.emailCustomization?.templateId : undefined;
  if (requested !== undefined) {
    checks.push(
      check(
        'emailTemplateExists',
        [organizationId, requested],
        invalidField(
          'parameters.emailCustomization.templateId',
          `no email template with id ${requested} exists for this organization; list them with ` +
            '"signet template list --org ID", or omit templateId to use the most recent one',
        ),
      ),
    );
  }

  const limits = context.config.otpRateLimits;
  const quota = (scope: 'user_identifier' | 'contact', value: string, limit: RateLimit, label: string) =>
    otpQuota(organizationId, intent.otpType, scope, value, limit, label);
  // The user's own budget first: a refusal for the contact then costs only the user's.
  const quotas =
    intent.otpType === 'OTP_TYPE_SMS'
      ? [
          ...(intent.userIdentifier !== undefined ? [quota('user_identifier', intent.userIdentifier, limits.smsPerUser, 'this userIdentifier')] : []),
          quota('contact', intent.contact, limits.smsPerContact, 'this phone number'),
        ]
      : [quota('contact', intent.contact, limits.emailPerContact, 'this email address')];

  const otpId = randomUUID();
  const code = generateOtpCode(intent.otpLength, intent.alphanumeric);
  const expirationSeconds = Number(intent.expirationSeconds);
  const outboxId = randomUUID();
  const toSend = message(intent, expirationSeconds);
  return {
    result: { otpId },
    effects: [
      ...checks,
      ...quotas,
      write('insertOtp', {
        id: otpId,
        organizationId,
        otpType: intent.otpType,
        contact: intent.contact,
        codeHash: hashOtpCode(context.secret, otpId, code),
        otpLength: intent.otpLength,
        alphanumeric: intent.alphanumeric,
        userIdentifier: intent.userIdentifier,
        expiresAt: new Date(context.now.getTime() + expirationSeconds * 1000),
        createdAt: context.now,
        ...(targetPrivateKey === undefined ? {} : { targetPrivateKey: { hex: targetPrivateKey, secret: context.secret } }),
      }),
      queue({
        id: outboxId,
        organizationId,
        otpId,
        channel: toSend.channel,
        payload: storedPayload(context.secret, outboxId, toSend, code),
        ...(toSend.channel === 'email' ? { emailTemplate: { organizationId, templateId: requested } } : {}),
      }),
    ],
  };
}

/** The check that the domain of sendFromEmailAddress is registered for the organization. */
export function senderDomainCheck(organizationId: string, address: string): Effect {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  return check(
    'senderDomainRegistered',
    [organizationId, domain],
    invalidField(
      'parameters.sendFromEmailAddress',
      `domain ${domain} is not registered for this organization; register it with ` +
        `\`signet sender-domain add --org ${organizationId} --domain ${domain}\` (POST /admin/v1/organizations/{id}/sender-domains) or omit sendFromEmailAddress`,
    ),
  );
}

/**
 * One send taken from a rate window of OTP messages: the window of `scope` (a contact, a user
 * identifier) for `value` on the channel of `otpType`, refused with a 429 OTP_RATE_LIMITED. The
 * messages of email_auth and init_user_email_recovery take from the email contact's window too.
 */
export function otpQuota(organizationId: string, otpType: OtpType, scope: 'user_identifier' | 'contact', value: string, limit: RateLimit, label: string): Effect {
  const channel = otpType === 'OTP_TYPE_SMS' ? 'SMS' : 'email';
  // A scope names its organization in one spelling: the envelope's organizationId is as the client
  // wrote it, and a UUID in capitals is the same organization (the contact is canonical already).
  return take('rateWindow', [`${scope}:${otpType}:${organizationId.toLowerCase()}:${value}`, limit], (detail) => {
    const retryAfter = Math.max(1, Number(detail) || 1);
    // Its first words are those @turnkey/core looks for to tell its app the limit was reached.
    return resourceExhausted(
      'OTP_RATE_LIMITED',
      `Max number of OTPs have been initiated: too many ${channel} codes for ${label}: at most ${limit.count} ` +
        `every ${limit.windowSeconds} seconds; retry in ${retryAfter} seconds`,
      retryAfter,
    );
  });
}

/** What the delivery worker needs to compose the message; undefined fields are left out. */
function message(intent: InitOtpAuthIntent, expirationSeconds: number): OtpEmail | OtpSms {
  if (intent.otpType === 'OTP_TYPE_SMS') {
    return withoutUndefined({
      channel: 'sms',
      to: intent.contact,
      appName: intent.appName,
      template: intent.smsCustomization?.template,
      expirationSeconds,
    });
  }
  const custom = intent.emailCustomization;
  return withoutUndefined({
    channel: 'email',
    to: intent.contact,
    appName: intent.appName,
    fromAddress: intent.sendFromEmailAddress,
    fromName: intent.sendFromEmailSenderName ?? DEFAULT_SENDER_NAME,
    replyTo: intent.replyToEmailAddress,
    magicLinkTemplate: custom?.magicLinkTemplate,
    logoUrl: custom?.logoUrl,
    templateVariables: custom?.templateVariables === undefined ? undefined : parseTemplateVariables(custom.templateVariables),
    expirationSeconds,
  });
}

export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
