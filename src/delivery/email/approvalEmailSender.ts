// The approval channel: an email to a user who may vote on a waiting activity (queued by the
// activity's statement, store/approvalRequests.ts), composed from its row and handed to the email
// transport the OTP emails use (SMTP or the development mailbox).
import type { ApprovalEmailPayload } from '../../store/approvalRequests.ts';
import type { ClaimedMessage } from '../../store/outbox.ts';
import type { ChannelSender } from '../channelSender.ts';
import { DeliveryError } from '../deliveryError.ts';
import { composeApprovalEmail } from './composeApprovalEmail.ts';
import { isPermanentEmailError, SMTP_POOL_SIZE, type EmailTransport } from './transport.ts';

export interface ApprovalEmailSenderOptions {
  /** Shared with the OTP emails, which close it. */
  transport: EmailTransport;
  /** The From address (SIGNET_EMAIL_FROM). */
  defaultFrom: string;
}

export function createApprovalEmailSender(options: ApprovalEmailSenderOptions): ChannelSender {
  return {
    concurrency: options.transport.concurrency ?? SMTP_POOL_SIZE,
    logFields: (claimed) => ({ activityId: (claimed.payload as Partial<ApprovalEmailPayload>).activityId }),
    async prepare(claimed: ClaimedMessage) {
      const message = claimed.payload as ApprovalEmailPayload;
      if (typeof message?.to !== 'string' || typeof message.link !== 'string') throw new DeliveryError('the approval email has no recipient or link', { permanent: true });
      const email = composeApprovalEmail({ outboxId: claimed.id, message, defaultFrom: options.defaultFrom });
      return () => options.transport.send(email);
    },
    isPermanent: isPermanentEmailError,
    // The transport is the OTP emails' too: they close it.
    close: () => {},
  };
}
