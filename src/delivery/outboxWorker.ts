// Drains the outbox: claims due messages with a lease (FOR UPDATE SKIP LOCKED, so any number of
// workers in any number of processes never take the same message), sends them outside any
// transaction, and records the outcome: sent, retrying with backoff, or failed for good.
import type { Database } from '../store/db.ts';
import { DeliveryError } from './deliveryError.ts';
import { isPermanentEmailError, type EmailTransport } from './emailTransport.ts';
import type { DeliveryLogger } from './logger.ts';
import { decryptCode, type AttemptOutcome, type Channel, type StoredPayload } from './outbox.ts';
import { composeOtpEmail } from './composeOtpEmail.ts';
import type { LogoOptions } from './logo.ts';
import { renderOtpSms } from './otpMessages.ts';
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
  /** How long a claimed message stays this worker's; after that another worker may take it. */
  leaseMs?: number;
  /** Messages claimed per round. */
  batchSize?: number;
  /** From address when the message names none (SIGNET_EMAIL_FROM). */
  defaultFrom: string;
  /** Where logos may be fetched from (SIGNET_ALLOW_HTTP_LOGOS, SIGNET_LOGO_ALLOW_PRIVATE). */
  logo: LogoOptions;
  /** Told of every recorded outcome (metrics); never of the code or the recipient. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

/** What became of one delivery attempt. */
export interface DeliveryOutcome {
  channel: Channel;
  status: AttemptOutcome;
}

interface ClaimedRow {
  id: string;
  organization_id: string;
  otp_id: string | null;
  channel: Channel;
  payload: StoredPayload;
  attempts: number;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/** Exponential backoff with jitter: about 1 s, 2 s, 4 s … capped at 5 minutes. */
export function backoffMs(attempts: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.5 + Math.random() / 2));
}

/** Messages not finished yet: queued, retrying, or being sent. */
export async function outboxDepth(db: Database): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM outbox WHERE status IN ('queued', 'retrying', 'sending')",
  );
  return row!.n;
}

export class OutboxWorker {
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: OutboxWorkerOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.batchSize = options.batchSize ?? 20;
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

  /** Stops polling and waits for the messages in hand to be finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.options.email.close();
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

  private async drain(): Promise<void> {
    try {
      // Full batches mean more may be due: keep going until a round comes back short.
      while (!this.stopped && (await this.runOnce()) === this.batchSize);
    } catch (error) {
      this.options.logger.error({ err: error }, 'outbox worker round failed; will retry at the next poll');
    }
  }

  /** Claims and processes one batch; returns how many messages it handled. */
  async runOnce(): Promise<number> {
    const claimed = await this.options.db.query<ClaimedRow>(
      `UPDATE outbox
          SET status = 'sending', attempts = attempts + 1, updated_at = now(),
              lease_expires_at = now() + make_interval(secs => $2::double precision)
        WHERE id IN (
          SELECT id FROM outbox
           WHERE (status IN ('queued', 'retrying') AND next_attempt_at <= now())
              OR (status = 'sending' AND lease_expires_at < now())
           ORDER BY next_attempt_at
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING id, organization_id, otp_id, channel, payload, attempts`,
      [this.batchSize, this.leaseMs / 1000],
    );
    await Promise.all(claimed.map((row) => this.process(row)));
    return claimed.length;
  }

  private async process(row: ClaimedRow): Promise<void> {
    const { logger, maxAttempts } = this.options;
    const context = {
      outboxId: row.id,
      otpId: row.otp_id,
      channel: row.channel,
      ...(row.channel === 'sms' ? { provider: this.options.sms.name } : {}),
      attempt: row.attempts,
    };
    let sent: { messageId: string } | undefined;
    let failure: unknown;
    try {
      // A reclaimed lease past the last attempt: its worker stopped without recording an outcome.
      if (row.attempts > maxAttempts) {
        throw new DeliveryError("the last attempt's worker stopped before recording its outcome", { permanent: false });
      }
      sent = await this.send(row);
    } catch (error) {
      failure = error;
    }
    // Recording is apart from sending, so a store error after a good send is not taken for a
    // failed send; the message then stays 'sending' and is tried again once its lease ends.
    try {
      if (sent) {
        if (await this.finish(row, 'sent', { providerMessageId: sent.messageId })) {
          logger.info({ ...context, providerMessageId: sent.messageId }, 'OTP message sent');
        } else {
          // Its lease ran out mid-send and another worker took the message: it may arrive twice.
          logger.warn({ ...context, providerMessageId: sent.messageId }, 'OTP message sent after its lease ended');
        }
        return;
      }
      const permanent = failure instanceof DeliveryError ? failure.permanent : isPermanentEmailError(failure);
      if (permanent || row.attempts >= maxAttempts) {
        // Say which: a refusal of this message, or retries used up on a temporary fault.
        const reason = permanent
          ? `${describe(failure)} (permanent: retrying cannot help)`
          : `${describe(failure)} (gave up after ${row.attempts} attempts)`;
        if (await this.finish(row, 'failed', { error: reason })) {
          logger.error({ ...context, error: reason }, 'OTP message failed for good');
        }
      } else {
        const reason = describe(failure);
        // Never sooner than the provider asked (Retry-After).
        const delay = Math.max(backoffMs(row.attempts), failure instanceof DeliveryError ? (failure.retryAfterMs ?? 0) : 0);
        if (await this.finish(row, 'retrying', { error: reason, retryInMs: delay })) {
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

  private async send(row: ClaimedRow): Promise<{ messageId: string }> {
    const payload = row.payload;
    if (!payload.encryptedCode) throw new DeliveryError('the message has no code to send', { permanent: true });
    let code: string;
    try {
      code = decryptCode(this.options.secret, row.id, payload.encryptedCode);
    } catch {
      throw new DeliveryError('the code cannot be decrypted: SIGNET_OTP_SECRET differs from the one it was queued with', { permanent: true });
    }
    if (payload.channel === 'sms') {
      return this.options.sms.send({ to: payload.to, text: renderOtpSms(payload, code) });
    }
    const composed = await composeOtpEmail(this.options.db, {
      organizationId: row.organization_id,
      message: payload,
      code,
      defaultFrom: this.options.defaultFrom,
      logo: this.options.logo,
    });
    const context = { outboxId: row.id, otpId: row.otp_id };
    if (composed.logoProblem) {
      // Recorded on the row, so the sender can see why the email went out without its logo.
      await this.options.db.query('UPDATE outbox SET logo_error = $2 WHERE id = $1', [row.id, composed.logoProblem]);
      this.options.logger.warn({ ...context, reason: composed.logoProblem }, 'OTP email goes out without its logo');
    }
    if (composed.templateMissing) {
      this.options.logger.warn({ ...context, templateId: payload.templateId }, 'email template was removed; using the built-in email');
    }
    return this.options.email.send(composed.email);
  }

  /**
   * Records the outcome, guarded by the attempt number it claimed: a worker whose lease ran out
   * and was overtaken cannot overwrite the newer attempt's outcome. Finished messages lose their
   * ciphertext, so the code lives in the store no longer than it must. False when overtaken.
   */
  private async finish(
    row: ClaimedRow,
    status: AttemptOutcome,
    detail: { providerMessageId?: string; error?: string; retryInMs?: number },
  ): Promise<boolean> {
    const erase = status !== 'retrying';
    const updated = await this.options.db.query(
      `UPDATE outbox
          SET status = $3,
              payload = CASE WHEN $4 THEN payload - 'encryptedCode' ELSE payload END,
              provider_message_id = COALESCE($5, provider_message_id),
              last_error = $6,
              next_attempt_at = now() + make_interval(secs => $7::double precision),
              sent_at = CASE WHEN $3 = 'sent' THEN now() ELSE sent_at END,
              lease_expires_at = NULL,
              updated_at = now()
        WHERE id = $1 AND status = 'sending' AND attempts = $2
        RETURNING id`,
      [row.id, row.attempts, status, erase, detail.providerMessageId ?? null, detail.error ?? null,
        (detail.retryInMs ?? 0) / 1000],
    );
    if (updated.length !== 1) return false;
    this.options.onOutcome?.({ channel: row.channel, status });
    return true;
  }
}

/** A short reason for the log and last_error: the transport's message, never the payload. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').slice(0, 500);
}
