// Drains the outbox: claims a due message under a lease (FOR UPDATE SKIP LOCKED: no two workers in
// any processes take one message) only when its transport can send it at once, sends it outside any
// transaction, and records the outcome as the send ends: sent, retrying with backoff, or failed.
import { renderOtpSms } from '../otp/messages.ts';
import type { Database } from '../store/db.ts';
import {
  claimDueMessages,
  claimMaintenance,
  decryptCode,
  deleteFinishedMessages,
  recordAttempt,
  recordLogoProblem,
  releaseClaims,
  renewLeases,
  vacuumDeliveryTables,
  type AttemptOutcome,
  type AttemptRecord,
  type Channel,
  type ClaimedMessage,
  type StoredPayload,
} from '../store/outbox.ts';
import { deleteIdleRateWindows } from '../store/rateWindows.ts';
import { deleteExpiredTokenUses } from '../store/verificationTokens.ts';
import { composeOtpEmail } from './composeOtpEmail.ts';
import { DeliveryError } from './deliveryError.ts';
import { isPermanentEmailError, SMTP_POOL_SIZE, type EmailTransport } from './emailTransport.ts';
import type { DeliveryLogger } from './logger.ts';
import type { LogoOptions } from './logo.ts';
import type { SmsProvider } from './sms/smsProvider.ts';

export interface OutboxWorkerOptions {
  db: Database;
  /** The deployment secret the codes were encrypted with. */
  secret: Buffer;
  email: EmailTransport;
  sms: SmsProvider;
  logger: DeliveryLogger;
  /** Milliseconds between looks for due messages when nothing wakes the worker. */
  pollMs: number;
  /** Attempts before a message is marked failed. */
  maxAttempts: number;
  /**
   * How long a claimed message stays this worker's without news; after that another worker may take
   * it. Renewed every third of it while the message is in hand, so only a dead worker's lease ends.
   */
  leaseMs?: number;
  /** Messages in hand at once (claimed, being sent); at most, and by default, what the email transport sends at once. */
  batchSize?: number;
  /** From address when the message names none (SIGNET_EMAIL_FROM). */
  defaultFrom: string;
  /** Where logos may be fetched from (SIGNET_ALLOW_HTTP_LOGOS, SIGNET_LOGO_ALLOW_PRIVATE). */
  logo: LogoOptions;
  /** Told of every recorded outcome (metrics); never of the code or the recipient. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  /** The periodic clean-up; off when not given. */
  maintenance?: MaintenanceOptions;
}

export interface MaintenanceOptions {
  /** Finished messages (sent, failed) are deleted this many days after their last change (SIGNET_OUTBOX_RETENTION_DAYS). */
  retentionDays: number;
  /** The longest OTP rate-limit window: windows idle for longer count nothing and are deleted. */
  longestRateWindowSeconds: number;
  /** How often one worker of all the processes runs it. */
  periodMs?: number;
}

/** Every 15 minutes, one worker deletes what retention lets go and vacuums the delivery tables. */
const MAINTENANCE_PERIOD_MS = 15 * 60_000;
/** Deleted per statement, so a backlog is cleared in short steps. */
const DELETE_BATCH = 10_000;

/** What became of one delivery attempt. */
export interface DeliveryOutcome {
  channel: Channel;
  status: AttemptOutcome;
}

type Claimed = ClaimedMessage<StoredPayload> & { channel: Channel };

/** A message this worker holds, from its claim until its outcome is recorded or it is given back. */
interface InHand {
  message: Claimed;
  /** Handed to its transport (or failed before): from then on it is recorded, never given back. */
  begun: boolean;
  /** Given back untried because the worker is stopping: it must not be sent. */
  released: boolean;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/** Exponential backoff with jitter: about 1 s, 2 s, 4 s … capped at 5 minutes. */
export function backoffMs(attempts: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.5 + Math.random() / 2));
}

export class OutboxWorker {
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly inHand = new Set<InHand>();
  private renewal: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private started = false;
  private stopped = false;
  private nextMaintenance = 0;

  constructor(private readonly options: OutboxWorkerOptions) {
    // Well above any single wait of a send (SMTP connection and greeting 10 s, socket 30 s; Twilio
    // 10 s; logo 5 s), and renewed while the send goes on.
    this.leaseMs = options.leaseMs ?? 60_000;
    // A message claimed beyond what the transport transmits at once would wait in its queue, leased
    // and looking in flight while nobody sends it; so claims follow free transmission slots.
    this.concurrency = Math.max(1, Math.min(options.batchSize ?? Infinity, options.email.concurrency ?? SMTP_POOL_SIZE));
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
    this.options.email.close();
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.drain().then(() => this.maintain()).finally(() => {
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
        await Promise.race(sending);
        mayBeMore ||= this.wokenWhileRunning;
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'outbox worker round failed; will retry at the next poll');
    }
    await Promise.allSettled(sending);
  }

  /**
   * The periodic clean-up, when it is due and this worker is elected: finished messages past
   * retention, idle rate windows and the uses of expired verification tokens are deleted, and the delivery tables vacuumed, so that claims
   * and rate checks stay cheap without relying on autovacuum.
   */
  async maintain(now = Date.now()): Promise<void> {
    const options = this.options.maintenance;
    if (!options || this.stopped || now < this.nextMaintenance) return;
    const periodMs = options.periodMs ?? MAINTENANCE_PERIOD_MS;
    this.nextMaintenance = now + periodMs;
    const { db, logger } = this.options;
    try {
      if (!(await claimMaintenance(db, 'delivery', periodMs))) return;
      let deleted = 0;
      for (let batch = DELETE_BATCH; batch === DELETE_BATCH && !this.stopped; ) {
        batch = await deleteFinishedMessages(db, options.retentionDays, DELETE_BATCH);
        deleted += batch;
      }
      const windows = await deleteIdleRateWindows(db, options.longestRateWindowSeconds);
      const tokenUses = await deleteExpiredTokenUses(db);
      await vacuumDeliveryTables(db);
      logger.info({ deletedMessages: deleted, deletedRateWindows: windows, deletedTokenUses: tokenUses }, 'outbox maintenance done');
    } catch (error) {
      logger.warn({ err: error }, 'outbox maintenance failed; it is tried again next period');
    }
  }

  /** Claims as many due messages as there are free slots, sends them, and once every outcome is recorded returns how many. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.concurrency - this.inHand.size);
    await Promise.all(claimed.map((held) => this.process(held)));
    return claimed.length;
  }

  private async claim(limit: number): Promise<InHand[]> {
    if (limit <= 0) return [];
    const claimed = await claimDueMessages<StoredPayload>(this.options.db, limit, this.leaseMs);
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
      this.options.logger.warn({ error: describe(error), messages: held.length }, 'could not renew the leases of OTP messages in hand');
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
      this.options.logger.info({ outboxIds }, 'OTP messages not yet sent were given back for another worker');
    } catch (error) {
      this.options.logger.warn(
        { outboxIds, error: describe(error) },
        'could not give back OTP messages not yet sent; they are taken over when their lease ends',
      );
    }
  }

  private async process(held: InHand): Promise<void> {
    const { message } = held;
    const context = {
      outboxId: message.id,
      otpId: message.otpId,
      channel: message.channel,
      ...(message.channel === 'sms' ? { provider: this.options.sms.name } : {}),
      attempt: message.attempts,
    };
    try {
      let sent: { messageId: string } | undefined;
      let failure: unknown;
      try {
        // A reclaimed lease past the last attempt: its worker stopped without recording an outcome.
        if (message.attempts > this.options.maxAttempts) {
          throw new DeliveryError("the last attempt's worker stopped before recording its outcome", { permanent: false });
        }
        const transmit = await this.prepare(message);
        if (held.released) return; // stop() gave it back before it reached its transport
        held.begun = true;
        sent = await transmit();
      } catch (error) {
        if (held.released) return;
        held.begun = true;
        failure = error;
      }
      await this.record(message, context, sent, failure);
    } finally {
      this.letGo(held);
    }
  }

  /** Records an attempt as soon as it ends, so a crash leaves unrecorded only the sends in hand. */
  private async record(message: Claimed, context: object, sent: { messageId: string } | undefined, failure: unknown): Promise<void> {
    const { logger, maxAttempts } = this.options;
    // Recording is apart from sending, so a store error after a good send is not taken for a
    // failed send; the message then stays 'sending' and is tried again once its lease ends.
    try {
      if (sent) {
        if (await this.finish(message, { status: 'sent', providerMessageId: sent.messageId })) {
          logger.info({ ...context, providerMessageId: sent.messageId }, 'OTP message sent');
        } else {
          // Its lease ran out mid-send and another worker took the message: it may arrive twice.
          logger.warn({ ...context, providerMessageId: sent.messageId }, 'OTP message sent after its lease ended');
        }
        return;
      }
      const permanent = failure instanceof DeliveryError ? failure.permanent : isPermanentEmailError(failure);
      if (permanent || message.attempts >= maxAttempts) {
        // Say which: a refusal of this message, or retries used up on a temporary fault.
        const reason = permanent
          ? `${describe(failure)} (permanent: retrying cannot help)`
          : `${describe(failure)} (gave up after ${message.attempts} attempts)`;
        if (await this.finish(message, { status: 'failed', error: reason })) {
          logger.error({ ...context, error: reason }, 'OTP message failed for good');
        }
      } else {
        const reason = describe(failure);
        // Never sooner than the provider asked (Retry-After).
        const delay = Math.max(backoffMs(message.attempts), failure instanceof DeliveryError ? (failure.retryAfterMs ?? 0) : 0);
        if (await this.finish(message, { status: 'retrying', error: reason, retryInMs: delay })) {
          logger.warn({ ...context, error: reason, retryInMs: delay }, 'OTP message not sent; will retry');
        }
      }
    } catch (error) {
      logger.error(
        { ...context, sent: sent !== undefined, error: describe(error) },
        'could not record the outcome of an OTP message; it is tried again when its lease ends',
      );
    }
  }

  /** Everything before the transport (code decrypted, message rendered, email composed); returns the send itself. */
  private async prepare(message: Claimed): Promise<() => Promise<{ messageId: string }>> {
    const payload = message.payload;
    if (!payload.encryptedCode) throw new DeliveryError('the message has no code to send', { permanent: true });
    let code: string;
    try {
      code = decryptCode(this.options.secret, message.id, payload.encryptedCode);
    } catch {
      throw new DeliveryError('the code cannot be decrypted: SIGNET_OTP_SECRET differs from the one it was queued with', { permanent: true });
    }
    if (payload.channel === 'sms') {
      const text = renderOtpSms(payload, code);
      return () => this.options.sms.send({ to: payload.to, text });
    }
    const composed = await composeOtpEmail(this.options.db, {
      organizationId: message.organizationId,
      // Every OTP message has its OTP; the row's id would keep the Message-ID stable all the same.
      otpId: message.otpId ?? message.id,
      message: payload,
      code,
      defaultFrom: this.options.defaultFrom,
      logo: this.options.logo,
    });
    const context = { outboxId: message.id, otpId: message.otpId };
    if (composed.logoProblem) {
      // Recorded on the row, so the sender can see why the email went out without its logo.
      await recordLogoProblem(this.options.db, message.id, composed.logoProblem);
      this.options.logger.warn({ ...context, reason: composed.logoProblem }, 'OTP email goes out without its logo');
    }
    if (composed.templateMissing) {
      this.options.logger.warn({ ...context, templateId: payload.templateId }, 'email template was removed; using the built-in email');
    }
    return () => this.options.email.send(composed.email);
  }

  /** Records the outcome (see recordAttempt: guarded by the attempt number) and tells onOutcome. False when overtaken. */
  private async finish(message: Claimed, record: AttemptRecord & { status: AttemptOutcome }): Promise<boolean> {
    if (!(await recordAttempt(this.options.db, message, record))) return false;
    this.options.onOutcome?.({ channel: message.channel, status: record.status });
    return true;
  }
}

/** A short reason for the log and last_error: the transport's message, never the payload. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').slice(0, 500);
}
