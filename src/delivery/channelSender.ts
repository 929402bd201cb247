// What the outbox loop asks of a channel (email, SMS): turn a claimed message into a send, and say
// which failures no retry can help. The loop knows nothing of what a message holds; each channel
// reads its own payload.
import type { ClaimedMessage } from '../store/outbox.ts';

/** The send itself: resolves with the provider's message id, rejects with why it failed. */
export type Transmission = () => Promise<{ messageId: string }>;

export interface ChannelSender {
  /** Messages it transmits at once (more would wait in its queue); undefined when it has no such limit. */
  readonly concurrency?: number;
  /** What log lines about one of its messages say besides the outbox's own fields (never a secret). */
  logFields(message: ClaimedMessage): object;
  /**
   * Everything before the transmission (payload read, content composed); returns the transmission,
   * which the loop starts only if it still holds the message. Throws a DeliveryError when the
   * message cannot be sent.
   */
  prepare(message: ClaimedMessage): Promise<Transmission>;
  /** True when a failure the transmission threw (not a DeliveryError) means retrying cannot help. */
  isPermanent(error: unknown): boolean;
  close(): void;
}
