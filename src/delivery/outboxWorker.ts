// The worker that delivers the outbox's messages: the outbox loop (outboxLoop.ts) with the email
// channel (email/) and the SMS channel (sms/), whose OTP messages init_otp and init_otp_auth queue, the
// approval email channel (email/), whose messages an activity that waits for approvals queues, and the
// webhook channel (webhook/), whose events an activity's change of status queues.
import type { Database } from '../store/db.ts';
import { createApprovalEmailSender } from './email/approvalEmailSender.ts';
import { createOtpEmailSender } from './email/otpEmailSender.ts';
import type { LogoOptions } from './email/logo.ts';
import type { EmailTransport } from './email/transport.ts';
import type { DeliveryLogger } from './logger.ts';
import { OutboxLoop, type DeliveryOutcome } from './outboxLoop.ts';
import { createOtpSmsSender } from './sms/otpSmsSender.ts';
import { createWebhookSender } from './webhook/webhookSender.ts';
import type { SmsProvider } from './sms/smsProvider.ts';

export type { DeliveryOutcome } from './outboxLoop.ts';

export interface OutboxWorkerOptions {
  db: Database;
  /** The deployment secret the codes and the webhook endpoints' secrets were sealed with. */
  secret: Buffer;
  email: EmailTransport;
  sms: SmsProvider;
  logger: DeliveryLogger;
  /** Milliseconds between looks for due messages when nothing wakes the worker. */
  pollMs: number;
  /** Attempts before a message is marked failed. */
  maxAttempts: number;
  /** How long a claimed message stays this worker's without news (see OutboxLoopOptions). */
  leaseMs?: number;
  /** Messages in hand at once; at most, and by default, what the email transport sends at once. */
  batchSize?: number;
  /** From address when the message names none (SIGNET_EMAIL_FROM). */
  defaultFrom: string;
  /** Where logos may be fetched from (SIGNET_ALLOW_HTTP_LOGOS, SIGNET_LOGO_ALLOW_PRIVATE). */
  logo: LogoOptions;
  /** Post webhooks over http:// and to any address (SIGNET_WEBHOOK_ALLOW_INSECURE). */
  webhookAllowInsecure: boolean;
  /** Told of every recorded outcome (metrics); never of the code or the recipient. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

export class OutboxWorker extends OutboxLoop {
  constructor(options: OutboxWorkerOptions) {
    const { db, secret, logger } = options;
    super({
      db,
      logger,
      noun: 'message',
      pollMs: options.pollMs,
      maxAttempts: options.maxAttempts,
      leaseMs: options.leaseMs,
      batchSize: options.batchSize,
      onOutcome: options.onOutcome,
      senders: {
        email: createOtpEmailSender({ db, secret, transport: options.email, logger, defaultFrom: options.defaultFrom, logo: options.logo }),
        sms: createOtpSmsSender({ secret, provider: options.sms }),
        approval: createApprovalEmailSender({ transport: options.email, defaultFrom: options.defaultFrom }),
        webhook: createWebhookSender({ db, secret, allowInsecure: options.webhookAllowInsecure }),
      },
    });
  }
}
