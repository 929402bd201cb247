// The outbox: messages committed in the same transaction as the activity that caused them, and
// delivered later by the worker. The OTP code travels encrypted and is erased once delivered.
import type { Queryable } from '../store/db.ts';

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

export type OutboxMessage = (OtpEmail | OtpSms) & {
  organizationId: string;
  otpId: string;
  /** The OTP code in clear; enqueue() stores it only encrypted. */
  code: string;
};

/**
 * Inserts one message in the caller's transaction. `secret` is the deployment's 32-byte secret;
 * the code is encrypted with a key derived from it. Returns the outbox row id.
 */
export async function enqueue(tx: Queryable, secret: Buffer, message: OutboxMessage): Promise<string> {
  throw new Error('not implemented yet');
}
