// The outbox: messages committed in the same transaction as the activity that caused them, and
// delivered later by the worker. The OTP code travels encrypted and is erased once delivered.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
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

/** The payload as stored: the message without its code, plus the code encrypted. */
export type StoredPayload = (OtpEmail | OtpSms) & { encryptedCode?: string };

const KEY_LABEL = 'signet outbox encryption v1';

// A key of its own, so the OTP hashes and the outbox ciphertexts never share one.
function encryptionKey(secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(KEY_LABEL).digest();
}

/** AES-256-GCM, with the outbox id as associated data so a ciphertext cannot move to another row. */
export function encryptCode(secret: Buffer, outboxId: string, code: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(secret), nonce);
  cipher.setAAD(Buffer.from(outboxId));
  const sealed = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** Throws when the ciphertext was changed, belongs to another row, or was made with another secret. */
export function decryptCode(secret: Buffer, outboxId: string, encrypted: string): string {
  const raw = Buffer.from(encrypted, 'base64url');
  if (raw.length < 12 + 16 + 1) throw new Error('outbox ciphertext is truncated');
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(secret), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(outboxId));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
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
