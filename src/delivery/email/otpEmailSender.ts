// The email channel of OTP messages: opens the code, composes the email (template carried by the
// message, logo fetched) and hands it to the transport (SMTP or the development mailbox).
import type { OtpEmail, StoredPayload } from '../../otp/messages.ts';
import type { Queryable } from '../../store/db.ts';
import { findEmailTemplate } from '../../store/emailTemplates.ts';
import { recordLogoProblem, type ClaimedMessage } from '../../store/outbox.ts';
import type { ChannelSender, Transmission } from '../channelSender.ts';
import type { DeliveryLogger } from '../logger.ts';
import { openOtpMessage, otpLogFields } from '../otpPayload.ts';
import { composeOtpEmail } from './composeOtpEmail.ts';
import type { LogoOptions } from './logo.ts';
import { isPermanentEmailError, SMTP_POOL_SIZE, type EmailTransport } from './transport.ts';

export interface OtpEmailSenderOptions {
  db: Queryable;
  /** The deployment secret the codes were encrypted with. */
  secret: Buffer;
  transport: EmailTransport;
  logger: DeliveryLogger;
  /** From address when the message names none (SIGNET_EMAIL_FROM). */
  defaultFrom: string;
  /** Where logos may be fetched from (SIGNET_ALLOW_HTTP_LOGOS, SIGNET_LOGO_ALLOW_PRIVATE). */
  logo: LogoOptions;
}

export function createOtpEmailSender(options: OtpEmailSenderOptions): ChannelSender {
  return {
    concurrency: options.transport.concurrency ?? SMTP_POOL_SIZE,
    logFields: otpLogFields,
    prepare: (claimed) => prepare(options, claimed),
    isPermanent: isPermanentEmailError,
    close: () => options.transport.close(),
  };
}

async function prepare(options: OtpEmailSenderOptions, claimed: ClaimedMessage): Promise<Transmission> {
  const { message, code } = openOtpMessage<OtpEmail & StoredPayload>(options.secret, claimed);
  const composed = await composeOtpEmail({
    // Every OTP message has its OTP; the row's id would keep the Message-ID stable all the same.
    otpId: claimed.otpId ?? claimed.id,
    message: await withTemplate(options, claimed, message),
    code,
    defaultFrom: options.defaultFrom,
    logo: options.logo,
  });
  if (composed.logoProblem) {
    // Recorded on the row, so the sender can see why the email went out without its logo.
    await recordLogoProblem(options.db, claimed.id, composed.logoProblem);
    options.logger.warn({ outboxId: claimed.id, otpId: claimed.otpId, reason: composed.logoProblem }, 'OTP email goes out without its logo');
  }
  return () => options.transport.send(composed.email);
}

/**
 * A message carries its template's content from the moment it is queued. Only one queued by a
 * process of the previous version, still running during an upgrade, names the template's id alone:
 * its content is read here, or the built-in email used when it was removed since.
 */
async function withTemplate(options: OtpEmailSenderOptions, claimed: ClaimedMessage, message: OtpEmail): Promise<OtpEmail> {
  if (message.template || !message.templateId) return message;
  const template = await findEmailTemplate(options.db, claimed.organizationId, message.templateId);
  if (!template) {
    options.logger.warn({ outboxId: claimed.id, otpId: claimed.otpId, templateId: message.templateId }, 'email template was removed; using the built-in email');
    return message;
  }
  return { ...message, template: { subject: template.subject, html: template.html, text: template.text } };
}
