// What the activities that email a credential bundle share (email_auth, init_user_email_recovery):
// the fields of the email, and the plan that makes a new expiring API key of the user with the
// address, seals its private half to the client's target key and queues the email that carries it
// (the email channel of OTP messages, the bundle sealed in the row as a code is), taking a send from
// the address's rate window of OTP emails.
import { randomUUID } from 'node:crypto';
import { invalidField, notFound } from '../../../errors.ts';
import { headerSafeProblem } from '../../../otp/contact.ts';
import { storedPayload, type OtpEmail } from '../../../otp/messages.ts';
import { check, queue, type Effect } from '../../../store/effects.ts';
import { findUserByContact } from '../../../store/users.ts';
import type { ExecutionContext } from '../../handler.ts';
import { text } from '../../wire/parameters.ts';
import { planBundledKey } from './credentialKeys.ts';
import { DEFAULT_SENDER_NAME, emailAddress, otpQuota, parseTemplateVariables, senderDomainCheck, withoutUndefined } from './initOtpAuth.ts';

const MAX_SENDER_NAME_LENGTH = 100;

/** The fields of the email, as init_otp_auth takes them. */
export const bundleEmailFields = {
  sendFromEmailAddress: emailAddress
    .describe('Optional address the email is sent from; its domain must be registered for the organization ("signet sender-domain add"); without it SIGNET_EMAIL_FROM')
    .optional(),
  sendFromEmailSenderName: text(MAX_SENDER_NAME_LENGTH, headerSafeProblem).describe('Optional sender name; "Notifications" when empty. No line breaks').optional(),
  replyToEmailAddress: emailAddress.describe('Optional reply-to address of the email').optional(),
};

export interface BundleEmailIntent {
  /** Canonical (lowercase). */
  email: string;
  targetPublicKey: string;
  expirationSeconds: string;
  sendFromEmailAddress?: string | undefined;
  sendFromEmailSenderName?: string | undefined;
  replyToEmailAddress?: string | undefined;
}

export interface BundleEmailCustomization {
  logoUrl?: string | undefined;
  magicLinkTemplate?: string | undefined;
  templateVariables?: string | undefined;
  templateId?: string | undefined;
}

/**
 * The user with intent.email (a 404 when none), a new key of `kind` for it, and the email of its
 * bundle: the checks (the user still there, the sender domain, the template), the send taken from
 * the address's window, the key's rows and the queued email.
 */
export async function planBundleEmail(
  context: ExecutionContext,
  intent: BundleEmailIntent,
  email: { purpose: 'email_auth' | 'recovery'; appName: string; customization: BundleEmailCustomization },
  key: { kind: 'email_auth' | 'recovery'; name: string; invalidateExisting: boolean },
): Promise<{ userId: string; apiKeyId: string; effects: Effect[] }> {
  const { organizationId } = context;
  const custom = email.customization;
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
  const bundled = await planBundledKey(context, { userId: user.id, targetPublicKey: intent.targetPublicKey, expirationSeconds: intent.expirationSeconds, ...key });
  const outboxId = randomUUID();
  const message: OtpEmail = withoutUndefined({
    channel: 'email' as const,
    purpose: email.purpose,
    to: intent.email,
    appName: email.appName,
    fromAddress: intent.sendFromEmailAddress,
    fromName: intent.sendFromEmailSenderName?.trim() ? intent.sendFromEmailSenderName : DEFAULT_SENDER_NAME,
    replyTo: intent.replyToEmailAddress,
    magicLinkTemplate: custom.magicLinkTemplate,
    logoUrl: custom.logoUrl,
    templateVariables: custom.templateVariables === undefined ? undefined : parseTemplateVariables(custom.templateVariables),
    expirationSeconds: Number(intent.expirationSeconds),
  });
  const templateId = custom.templateId;
  return {
    userId: user.id,
    apiKeyId: bundled.apiKeyId,
    effects: [
      check('userActive', [organizationId, user.id], notFound('USER_NOT_FOUND', `the user with the email address ${intent.email} was removed`)),
      ...(intent.sendFromEmailAddress === undefined ? [] : [senderDomainCheck(organizationId, intent.sendFromEmailAddress)]),
      ...(templateId === undefined
        ? []
        : [
            check(
              'emailTemplateExists',
              [organizationId, templateId],
              invalidField('parameters.emailCustomization.templateId', `no email template with id ${templateId} exists for this organization; list them with "signet template list --org ID", or omit templateId`),
            ),
          ]),
      otpQuota(organizationId, 'OTP_TYPE_EMAIL', 'contact', intent.email, context.config.otpRateLimits.emailPerContact, 'this email address'),
      ...bundled.effects,
      // The bundle is sealed to the outbox row, as an OTP's code is: a dump of the store shows neither.
      queue({
        id: outboxId,
        organizationId,
        channel: 'email',
        payload: storedPayload(context.secret, outboxId, message, bundled.credentialBundle),
        // Only a template asked for: an organization's OTP templates are written for codes.
        ...(templateId === undefined ? {} : { emailTemplate: { organizationId, templateId } }),
      }),
    ],
  };
}
