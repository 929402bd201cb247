// The email_auth activity (ACTIVITY_TYPE_EMAIL_AUTH_V3): the user of the organization with `email`
// gets a new expiring API key of kind 'email_auth' (CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256), made here:
// its public half is registered, its private half sealed to the client's targetPublicKey in the
// ecosystem's credential bundle and emailed to the user through the outbox (the email channel of OTP
// messages, the bundle sealed in the row as a code is), never answered. The sends are counted in the
// email contact's rate window of the OTP messages.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { canonicalEmailAddress, headerSafeProblem } from '../../../otp/contact.ts';
import { storedPayload, type OtpEmail } from '../../../otp/messages.ts';
import { check, queue, type Effect } from '../../../store/effects.ts';
import { findUserByContact } from '../../../store/users.ts';
import type { ActivityHandler } from '../../handler.ts';
import { name, objectExpected, text, trueOrFalse, wholeSeconds } from '../../wire/parameters.ts';
import { planBundledKey, targetPublicKeyParameter } from './credentialKeys.ts';
import { appName, DEFAULT_SENDER_NAME, emailAddress, emailCustomization, otpQuota, parseTemplateVariables, senderDomainCheck, withoutUndefined } from './initOtpAuth.ts';
import { MAX_SESSION_SECONDS } from './sessionPlans.ts';

export const DEFAULT_EMAIL_AUTH_KEY_SECONDS = '900';
/** The key's name when apiKeyName is left out: this, a space and the moment it was made (ISO 8601). */
const DEFAULT_NAME_PREFIX = 'Email Auth -';
const MAX_SENDER_NAME_LENGTH = 100;

const parameters = z
  .strictObject(
    {
      email: emailAddress.describe("The user's email address: the user of the organization with it gets the key, and the email"),
      targetPublicKey: targetPublicKeyParameter,
      apiKeyName: name.describe(`Name of the new API key; not blank. Without it "${DEFAULT_NAME_PREFIX} <the moment it was made, ISO 8601>"`).optional(),
      expirationSeconds: wholeSeconds(
        MAX_SESSION_SECONDS,
        DEFAULT_EMAIL_AUTH_KEY_SECONDS,
        `must be the key's lifetime in whole seconds from 1 to ${MAX_SESSION_SECONDS} (30 days) written as digits, e.g. "${DEFAULT_EMAIL_AUTH_KEY_SECONDS}"`,
        `Lifetime of the new API key in seconds written as digits: "${DEFAULT_EMAIL_AUTH_KEY_SECONDS}" (15 minutes) by default, at most "${MAX_SESSION_SECONDS}" (30 days). After it every request stamped with the key is a 401`,
      ).default(DEFAULT_EMAIL_AUTH_KEY_SECONDS),
      emailCustomization: emailCustomization
        .extend({ appName })
        .describe('The email: appName (required) names the app; logoUrl, magicLinkTemplate (its %s gets the credential bundle), templateVariables and templateId as for init_otp_auth'),
      invalidateExisting: trueOrFalse().describe("true revokes the user's other email_auth keys at once (its API keys and sessions stay)").default(false),
      sendFromEmailAddress: emailAddress
        .describe('Optional address the email is sent from; its domain must be registered for the organization ("signet sender-domain add"); without it SIGNET_EMAIL_FROM')
        .optional(),
      sendFromEmailSenderName: text(MAX_SENDER_NAME_LENGTH, headerSafeProblem).describe('Optional sender name; "Notifications" when empty. No line breaks').optional(),
      replyToEmailAddress: emailAddress.describe('Optional reply-to address of the email').optional(),
    },
    { error: objectExpected() },
  )
  .transform((p) => ({ ...p, email: canonicalEmailAddress(p.email) }));

const resultSchema = z.strictObject({
  userId: z.uuid().describe('The user of the organization with the email address'),
  apiKeyId: z.uuid().describe("The new API key (CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256), expiring after expirationSeconds; its private half is in the email only"),
});
type EmailAuthResult = z.infer<typeof resultSchema>;

export const emailAuth: ActivityHandler<typeof parameters, EmailAuthResult> = {
  path: 'email_auth',
  activityType: 'ACTIVITY_TYPE_EMAIL_AUTH_V3',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND', 'OTP_RATE_LIMITED'],
  summary:
    '`{email, targetPublicKey, emailCustomization: {appName, …}, apiKeyName?, expirationSeconds? = "900", invalidateExisting?, sendFromEmailAddress?, …}`: emails the user with that address a new API key\'s private half encrypted to `targetPublicKey` (a credential bundle); result `emailAuthResult {userId, apiKeyId}` ([Email auth](users.md#email-auth-a-credential-bundle-by-email))',
  parentMaySubmit: true,
  description:
    "Emails the user of the organization with `email` a new API key expiring after `expirationSeconds`: its private half, encrypted to `targetPublicKey`, is the email's credential bundle (and the `%s` of `magicLinkTemplate`), which @turnkey/crypto's `decryptCredentialBundle` opens with the target's private key. The answer names the user and the key, never the bundle. Counted in the email address's rate window of OTP emails (429 `OTP_RATE_LIMITED`).",
  intentKey: 'emailAuthIntentV3',
  resultKey: 'emailAuthResult',
  parameters,
  resultSchema,
  example: {
    email: 'alice@example.com',
    // The curve's generator: a real point, so the example passes the schema it illustrates.
    targetPublicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296',
    emailCustomization: { appName: 'Example Wallet', magicLinkTemplate: 'https://wallet.example/auth?bundle=%s' },
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const custom = intent.emailCustomization;
    if (custom.logoUrl?.startsWith('http:') && !context.config.allowHttpLogos) {
      throw invalidField('parameters.emailCustomization.logoUrl', 'must be an https URL');
    }
    const user = await findUserByContact(context.db, organizationId, { email: intent.email });
    if (!user) {
      throw notFound(
        'USER_NOT_FOUND',
        `no user of this organization has the email address ${intent.email}; create the user first (create_users with userEmail, or "signet user create")`,
      );
    }
    const key = await planBundledKey(context, {
      userId: user.id,
      kind: 'email_auth',
      name: intent.apiKeyName ?? `${DEFAULT_NAME_PREFIX} ${now.toISOString()}`,
      targetPublicKey: intent.targetPublicKey,
      expirationSeconds: intent.expirationSeconds,
      invalidateExisting: intent.invalidateExisting,
    });
    const outboxId = randomUUID();
    const email: OtpEmail = withoutUndefined({
      channel: 'email' as const,
      purpose: 'email_auth' as const,
      to: intent.email,
      appName: custom.appName,
      fromAddress: intent.sendFromEmailAddress,
      fromName: intent.sendFromEmailSenderName?.trim() ? intent.sendFromEmailSenderName : DEFAULT_SENDER_NAME,
      replyTo: intent.replyToEmailAddress,
      magicLinkTemplate: custom.magicLinkTemplate,
      logoUrl: custom.logoUrl,
      templateVariables: custom.templateVariables === undefined ? undefined : parseTemplateVariables(custom.templateVariables),
      expirationSeconds: Number(intent.expirationSeconds),
    });
    const checks: Effect[] = [
      check('userActive', [organizationId, user.id], notFound('USER_NOT_FOUND', `the user with the email address ${intent.email} was removed`)),
      ...(intent.sendFromEmailAddress === undefined ? [] : [senderDomainCheck(organizationId, intent.sendFromEmailAddress)]),
      ...(custom.templateId === undefined
        ? []
        : [
            check(
              'emailTemplateExists',
              [organizationId, custom.templateId],
              invalidField('parameters.emailCustomization.templateId', `no email template with id ${custom.templateId} exists for this organization; list them with "signet template list --org ID", or omit templateId`),
            ),
          ]),
    ];
    return {
      result: { userId: user.id, apiKeyId: key.apiKeyId },
      effects: [
        ...checks,
        otpQuota(organizationId, 'OTP_TYPE_EMAIL', 'contact', intent.email, context.config.otpRateLimits.emailPerContact, 'this email address'),
        ...key.effects,
        // The bundle is sealed to the outbox row, as an OTP's code is: a dump of the store shows neither.
        queue({
          id: outboxId,
          organizationId,
          channel: 'email',
          payload: storedPayload(context.secret, outboxId, email, key.credentialBundle),
          // Only a template asked for: an organization's OTP templates are written for codes.
          ...(custom.templateId === undefined ? {} : { emailTemplate: { organizationId, templateId: custom.templateId } }),
        }),
      ],
    };
  },
};
