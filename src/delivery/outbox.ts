// The outbox: messages committed in the same transaction as the activity that caused them, and
// delivered later by the worker. The OTP code travels encrypted and is erased once delivered.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { seal, unseal } from '../store/sealed.ts';

/** How a message travels. */
export const CHANNELS = ['email', 'sms'] as const;
export type Channel = (typeof CHANNELS)[number];

/** A message's state: queued, claimed by a worker (sending), waiting to retry, or finished (sent, failed). */
export const OUTBOX_STATUSES = ['queued', 'sending', 'retrying', 'sent', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/** The states a worker records after an attempt. */
export const ATTEMPT_OUTCOMES = ['sent', 'retrying', 'failed'] as const satisfies readonly OutboxStatus[];
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

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

/** The payload as stored: the message without its code, plus the code encrypted. */
export type StoredPayload = (OtpEmail | OtpSms) & { encryptedCode?: string };

const SEAL_LABEL = 'signet outbox encryption v1';

/** The code sealed to its outbox row (see store/sealed.ts). */
export function encryptCode(secret: Buffer, outboxId: string, code: string): string {
  return seal(secret, SEAL_LABEL, outboxId, Buffer.from(code, 'utf8'));
}

/** Throws when the ciphertext was changed, belongs to another row, or was made with another secret. */
export function decryptCode(secret: Buffer, outboxId: string, encrypted: string): string {
  return unseal(secret, SEAL_LABEL, outboxId, encrypted).toString('utf8');
}

/**
 * Inserts one message in the caller's transaction. `secret` is the deployment's 32-byte secret;
 * the code is encrypted with a key derived from it. Returns the outbox row id.
 */
export async function enqueue(tx: Queryable, secret: Buffer, message: OutboxMessage): Promise<string> {
  const { organizationId, otpId, code, ...content } = message;
  const id = randomUUID();
  const payload: StoredPayload = { ...content, encryptedCode: encryptCode(secret, id, code) };
  await tx.query(
    `INSERT INTO outbox (id, organization_id, otp_id, channel, payload, status, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, 'queued', now())`,
    [id, organizationId, otpId, content.channel, JSON.stringify(payload)],
  );
  return id;
}
