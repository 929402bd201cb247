// Drains the outbox: claims a due message under a lease (FOR UPDATE SKIP LOCKED: no two workers in
// any processes take one message) only when its channel can send it at once, sends it outside any
// transaction through its channel's sender, and records the outcome as the send ends: sent,
// retrying with backoff, or failed. What a message holds is its channel's business (channelSender.ts).
import type { Database } from '../store/db.ts';
import {
  claimDueMessages,
  recordAttempt,
  releaseClaims,
  renewLeases,
  type AttemptOutcome,
  type AttemptRecord,
  type Channel,
  type ClaimedMessage,
} from '../store/outbox.ts';
import type { ChannelSender } from './channelSender.ts';
import { DeliveryError } from './deliveryError.ts';
import type { DeliveryLogger } from './logger.ts';

export interface OutboxLoopOptions {
  db: Database;
  /** Who sends each channel's messages: the loop claims messages of these channels only. */
  senders: Partial<Record<Channel, ChannelSender>>;
  logger: DeliveryLogger;
  /** How log lines name a message ("message"); its plural adds an s. */
  noun: string;
  /** Milliseconds between looks for due messages when nothing wakes the worker. */
  pollMs: number;
  /** Attempts before a message is marked failed. */
  maxAttempts: number;
  /**
   * How long a claimed message stays this worker's without news; after that another worker may take
   * it. Renewed every third of it while the message is in hand, so only a dead worker's lease ends.
   */
  leaseMs?: number;
  /** Messages in hand at once (claimed, being sent); at most, and by default, what the senders transmit at once. */
  batchSize?: number;
  /** Told of every recorded outcome (metrics); never of the content or the recipient. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

/** What became of one delivery attempt. */
export interface DeliveryOutcome {
  channel: Channel;
  status: AttemptOutcome;
}

type Claimed = ClaimedMessage & { channel: Channel };

/** A message this worker holds, from its claim until its outcome is recorded or it is given back. */
interface InHand {
  message: Claimed;
  /** Handed to its transport (or failed before): from then on it is recorded, never given back. */
  begun: boolean;
  /** Given back untried because the worker is stopping: it must not be sent. */
  released: boolean;
}

const MAX_BACKOFF_MS = 5 * 60_000;
/** Messages in hand at once when no sender limits it and no batch size is given. */
const DEFAULT_CONCURRENCY = 5;

/** Exponential backoff with jitter: about 1 s, 2 s, 4 s … capped at 5 minutes. */
export function backoffMs(attempts: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.5 + Math.random() / 2));
}

export class OutboxLoop {
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly inHand = new Set<InHand>();
  private renewal: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: OutboxLoopOptions) {
    // Well above any single wait of a send (SMTP connection and greeting 10 s, socket 30 s; Twilio
    // 10 s; logo 5 s), and renewed while the send goes on.
    this.leaseMs = options.leaseMs ?? 60_000;
    // A message claimed beyond what a sender transmits at once would wait in its queue, leased
    // and looking in flight while nobody sends it; so claims follow free transmission slots.
    const limits = Object.values(options.senders).flatMap((sender) => (sender.concurrency === undefined ? [] : [sender.concurrency]));
    const most = Math.min(options.batchSize ?? Infinity, ...limits);
    this.concurrency = Math.max(1, Number.isFinite(most) ? most : DEFAULT_CONCURRENCY);
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.schedule(0);
  }

  /** Runs a round now instead of at the next poll (called after an activity commits). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.wokenWhileRunning = true;
      return;
    }
    this.schedule(0);
  }

  /**
   * Stops claiming, gives back at once the messages claimed but not yet handed to their transport
   * (another worker may send them now), and waits for the sends under way to be recorded.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.release([...this.inHand].filter((held) => !held.begun));
    await this.running;
    for (const sender of Object.values(this.options.senders)) sender!.close();
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain().finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        const again = this.wokenWhileRunning;
        this.wokenWhileRunning = false;
        this.schedule(again ? 0 : this.options.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** Keeps every slot sending while messages are due; returns once none is due and none is in hand. */
  private async drain(): Promise<void> {
    const sending = new Set<Promise<void>>();
    let mayBeMore = true;
    try {
      while (!this.stopped) {
        const free = this.concurrency - this.inHand.size;
        if (mayBeMore && free > 0) {
          this.wokenWhileRunning = false;
          const claimed = await this.claim(free);
          // Fewer than asked for: nothing else is due now, unless an activity wakes the worker.
          mayBeMore = claimed.length === free;
          for (const held of claimed) {
            const done: Promise<void> = this.process(held).finally(() => sending.delete(done));
            sending.add(done);
          }
        }
        if (sending.size === 0) break;
        // A send ending frees a slot; so does a poll's time passing, for messages queued meanwhile by
        // nothing that wakes the worker (webhook events), which must not wait for a slow send to end.
        let poll: NodeJS.Timeout | undefined;
        const polled = await Promise.race([
          Promise.race(sending).then(() => false),
          new Promise<boolean>((resolve) => (poll = setTimeout(resolve, this.options.pollMs, true))),
        ]);
        clearTimeout(poll);
        mayBeMore ||= this.wokenWhileRunning || polled;
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'outbox worker round failed; will retry at the next poll');
    }
    await Promise.allSettled(sending);
  }

  /** Claims as many due messages as there are free slots, sends them, and once every outcome is recorded returns how many. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.concurrency - this.inHand.size);
    await Promise.all(claimed.map((held) => this.process(held)));
    return claimed.length;
  }

  private async claim(limit: number): Promise<InHand[]> {
    if (limit <= 0) return [];
    const claimed = await claimDueMessages(this.options.db, limit, this.leaseMs, Object.keys(this.options.senders) as Channel[]);
    const held = claimed.map((message): InHand => ({ message: message as Claimed, begun: false, released: false }));
    for (const h of held) this.inHand.add(h);
    if (this.stopped) {
      // stop() came while the claim was on its way: nothing new is started.
      await this.release(held);
      return [];
    }
    if (held.length > 0 && !this.renewal) {
      this.renewal = setInterval(() => void this.renewLeases(), this.leaseMs / 3);
      this.renewal.unref();
    }
    return held;
  }

  private letGo(held: InHand): void {
    this.inHand.delete(held);
    if (this.inHand.size === 0) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
  }

  /** A slow send keeps its message: the lease ends only when its worker is gone. */
  private async renewLeases(): Promise<void> {
    const held = [...this.inHand].map((h) => h.message);
    if (held.length === 0) return;
    try {
      await renewLeases(this.options.db, held, this.leaseMs);
    } catch (error) {
      this.options.logger.warn({ error: describe(error), messages: held.length }, `could not renew the leases of ${this.options.noun}s in hand`);
    }
  }

  /** Gives messages back untried (attempt not counted), so another worker sends them without waiting for the lease. */
  private async release(held: InHand[]): Promise<void> {
    if (held.length === 0) return;
    for (const h of held) {
      h.released = true;
      this.letGo(h);
    }
    const outboxIds = held.map((h) => h.message.id);
    try {
      await releaseClaims(this.options.db, held.map((h) => h.message));
      this.options.logger.info({ outboxIds }, `${this.options.noun}s not yet sent were given back for another worker`);
    } catch (error) {
      this.options.logger.warn(
        { outboxIds, error: describe(error) },
        `could not give back ${this.options.noun}s not yet sent; they are taken over when their lease ends`,
      );
    }
  }

  private async process(held: InHand): Promise<void> {
    const { message } = held;
    const sender = this.options.senders[message.channel]!;
    const context = { outboxId: message.id, channel: message.channel, ...sender.logFields(message), attempt: message.attempts };
    try {
      let sent: { messageId: string } | undefined;
      let failure: unknown;
      try {
        // A reclaimed lease past the last attempt: its worker stopped without recording an outcome.
        if (message.attempts > this.options.maxAttempts) {
          throw new DeliveryError("the last attempt's worker stopped before recording its outcome", { permanent: false });
        }
        const transmit = await sender.prepare(message);
        if (held.released) return; // stop() gave it back before it reached its transport
        held.begun = true;
        sent = await transmit();
      } catch (error) {
        if (held.released) return;
        held.begun = true;
        failure = error;
      }
      await this.record(message, sender, context, sent, failure);
    } finally {
      this.letGo(held);
    }
  }

  /** Records an attempt as soon as it ends, so a crash leaves unrecorded only the sends in hand. */
  private async record(
    message: Claimed,
    sender: ChannelSender,
    context: object,
    sent: { messageId: string } | undefined,
    failure: unknown,
  ): Promise<void> {
    const { logger, maxAttempts, noun } = this.options;
    // Recording is apart from sending, so a store error after a good send is not taken for a
    // failed send; the message then stays 'sending' and is tried again once its lease ends.
    try {
      if (sent) {
        if (await this.finish(message, { status: 'sent', providerMessageId: sent.messageId })) {
          logger.info({ ...context, providerMessageId: sent.messageId }, `${noun} sent`);
        } else {
          // Its lease ran out mid-send and another worker took the message: it may arrive twice.
          logger.warn({ ...context, providerMessageId: sent.messageId }, `${noun} sent after its lease ended`);
        }
        return;
      }
      const permanent = failure instanceof DeliveryError ? failure.permanent : sender.isPermanent(failure);
      if (permanent || message.attempts >= maxAttempts) {
        // Say which: a refusal of this message, or retries used up on a temporary fault.
        const reason = permanent
          ? `${describe(failure)} (permanent: retrying cannot help)`
          : `${describe(failure)} (gave up after ${message.attempts} attempts)`;
        if (await this.finish(message, { status: 'failed', error: reason })) {
          logger.error({ ...context, error: reason }, `${noun} failed for good`);
        }
      } else {
        const reason = describe(failure);
        // Never sooner than the provider asked (Retry-After).
        const delay = Math.max(backoffMs(message.attempts), failure instanceof DeliveryError ? (failure.retryAfterMs ?? 0) : 0);
        if (await this.finish(message, { status: 'retrying', error: reason, retryInMs: delay })) {
          logger.warn({ ...context, error: reason, retryInMs: delay }, `${noun} not sent; will retry`);
        }
      }
    } catch (error) {
      logger.error(
        { ...context, sent: sent !== undefined, error: describe(error) },
        `could not record the outcome of a ${noun}; it is tried again when its lease ends`,
      );
    }
  }

  /** Records the outcome (see recordAttempt: guarded by the attempt number) and tells onOutcome. False when overtaken. */
  private async finish(message: Claimed, record: AttemptRecord & { status: AttemptOutcome }): Promise<boolean> {
    if (!(await recordAttempt(this.options.db, message, record))) return false;
    this.options.onOutcome?.({ channel: message.channel, status: record.status });
    return true;
  }
}

/** A short reason for the log and last_error: the sender's message, never the payload. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').slice(0, 500);
}
