// Sends email: over SMTP with nodemailer when SIGNET_SMTP_URL is set, otherwise into the
// development mailbox, one RFC 822 .eml file per message under SIGNET_DATA_DIR/mail/.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../../config.ts';
import type { DeliveryLogger } from '../logger.ts';

/**
 * SMTP connections kept open, so messages transmitted at once. The worker hands the transport no
 * more than this: a message waiting in nodemailer's queue would look in flight while it is not.
 */
export const SMTP_POOL_SIZE = 5;

export interface OutgoingEmail {
  /** The Message-ID header, `<…@domain>`: the same on every attempt, so a resend can be recognised. */
  messageId?: string;
  from: { name: string; address: string };
  to: string;
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
  /** Inline images, referenced from the HTML as cid:<cid>. */
  attachments?: Array<{ filename: string; content: Buffer; contentType: string; cid: string }>;
}

export interface EmailTransport {
  /** Messages it transmits at once; more would wait in its queue (default SMTP_POOL_SIZE). */
  readonly concurrency?: number;
  /** Resolves with the message's Message-ID; rejects with the transport's error. */
  send(email: OutgoingEmail): Promise<{ messageId: string }>;
  close(): void;
}

/**
 * True when this message can never be sent as it is: a 5xx refusal of its sender, recipient or
 * content, or an envelope nodemailer refuses before sending (a recipient it cannot parse).
 * Failures of the server as a whole (login refused, connection, greeting, timeouts) are the
 * deployment's, not the message's, and are retried.
 */
export function isPermanentEmailError(error: unknown): boolean {
  const { code, responseCode } = error as { code?: string; responseCode?: number };
  if (code !== 'EENVELOPE' && code !== 'EMESSAGE') return false;
  if (responseCode === undefined) return true; // refused before sending: "No recipients defined", too large
  return responseCode >= 500 && responseCode < 600;
}

function mailOptions(email: OutgoingEmail) {
  // Address objects, never concatenated strings: nodemailer quotes and encodes names itself.
  return {
    ...(email.messageId ? { messageId: email.messageId } : {}),
    from: { name: email.from.name, address: email.from.address },
    to: email.to,
    ...(email.replyTo ? { replyTo: email.replyTo } : {}),
    subject: email.subject,
    html: email.html,
    text: email.text,
    ...(email.attachments ? { attachments: email.attachments } : {}),
  };
}

export function createEmailTransport(config: Config, logger: DeliveryLogger): EmailTransport {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport({
      url: config.smtpUrl,
      pool: true,
      maxConnections: SMTP_POOL_SIZE,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    return {
      concurrency: SMTP_POOL_SIZE,
      async send(email) {
        const info = await transport.sendMail(mailOptions(email));
        return { messageId: String(info.messageId) };
      },
      close: () => transport.close(),
    };
  }

  const mailDir = path.join(config.dataDir, 'mail');
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    concurrency: SMTP_POOL_SIZE, // as with a server, so development delivers as production does
    async send(email) {
      const info = await composer.sendMail(mailOptions(email));
      fs.mkdirSync(mailDir, { recursive: true, mode: 0o700 });
      const file = path.join(mailDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`);
      fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      logger.info({ file }, `development mailbox: wrote ${file}`);
      return { messageId: String(info.messageId) };
    },
    close: () => composer.close(),
  };
}
