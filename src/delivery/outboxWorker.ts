// The worker that delivers the outbox's messages: two outbox loops (outboxLoop.ts), one for the
// messages people wait for — the email channel (email/) and the SMS channel (sms/), whose OTP messages
// init_otp and init_otp_auth queue, and the approval email channel (email/), whose messages an activity
// that waits for approvals queues — and one for the webhook channel (webhook/), whose events an
// activity's change of status queues.
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

/**
 * Two loops over one outbox, each claiming only its own channels: the messages people wait for (OTP
 * emails and SMS, approval emails) and the webhooks. A receiver that is slow to answer holds a
 * webhook slot until its timeout, never a slot a passcode is waiting for.
 */
export class OutboxWorker {
  private readonly loops: OutboxLoop[];

  constructor(options: OutboxWorkerOptions) {
    const { db, secret, logger } = options;
    const common = {
      db,
      logger,
      pollMs: options.pollMs,
      maxAttempts: options.maxAttempts,
      leaseMs: options.leaseMs,
      onOutcome: options.onOutcome,
    };
    this.loops = [
      new OutboxLoop({
        ...common,
        noun: 'message',
        batchSize: options.batchSize,
        senders: {
          email: createOtpEmailSender({ db, secret, transport: options.email, logger, defaultFrom: options.defaultFrom, logo: options.logo }),
          sms: createOtpSmsSender({ secret, provider: options.sms }),
          approval: createApprovalEmailSender({ transport: options.email, defaultFrom: options.defaultFrom }),
        },
      }),
      new OutboxLoop({
        ...common,
        noun: 'webhook event',
        senders: { webhook: createWebhookSender({ db, secret, allowInsecure: options.webhookAllowInsecure }) },
      }),
    ];
  }

  start(): void {
    for (const loop of this.loops) loop.start();
  }

  /** Runs a round now instead of at the next poll (called after an activity commits). */
  wake(): void {
    for (const loop of this.loops) loop.wake();
  }

  /** Stops claiming, gives back what is not yet sent, and waits for the sends under way to be recorded. */
  async stop(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
  }

  /** One round of each loop (tests): claims as many due messages as there are free slots, sends them, and returns how many. */
  async runOnce(): Promise<number> {
    const counts = await Promise.all(this.loops.map((loop) => loop.runOnce()));
    return counts.reduce((sum, count) => sum + count, 0);
  }
}
