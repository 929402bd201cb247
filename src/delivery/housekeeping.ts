// The periodic clean-up, a job of its own beside the outbox worker: every period one process of all
// (elected in the store) deletes the finished messages retention lets go, idle rate windows, the
// uses of expired verification tokens and expired pending imports, and vacuums the delivery tables, so that claims and rate
// checks stay cheap without relying on autovacuum.
import type { Database } from '../store/db.ts';
import { claimMaintenance, vacuumDeliveryTables } from '../store/maintenance.ts';
import { deleteFinishedMessages } from '../store/outbox.ts';
import { deleteExpiredPendingImports } from '../store/pendingImports.ts';
import { deleteIdleRateWindows } from '../store/rateWindows.ts';
import { deleteExpiredTokenUses } from '../store/verificationTokens.ts';
import type { DeliveryLogger } from './logger.ts';

export interface HousekeepingOptions {
  db: Database;
  logger: DeliveryLogger;
  /** Finished messages (sent, failed) are deleted this many days after their last change (SIGNET_OUTBOX_RETENTION_DAYS). */
  retentionDays: number;
  /** The longest OTP rate-limit window: windows idle for longer count nothing and are deleted. */
  longestRateWindowSeconds: number;
  /** How often one process of all runs it. */
  periodMs?: number;
}

/** Every 15 minutes, one process deletes what retention lets go and vacuums the delivery tables. */
const PERIOD_MS = 15 * 60_000;
/** Deleted per statement, so a backlog is cleared in short steps. */
const DELETE_BATCH = 10_000;
/** The task's name in the store's election (shared by every process, whatever its version). */
const TASK = 'delivery';

export class Housekeeping {
  private readonly periodMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: HousekeepingOptions) {
    this.periodMs = options.periodMs ?? PERIOD_MS;
  }

  /** Runs now, then every period until stopped. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.schedule(0);
  }

  /** Stops the schedule and waits for a run under way (which stops between its deletions). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.periodMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One clean-up, when this process is elected for the period; a failure is logged and tried again next period. */
  async run(): Promise<void> {
    const { db, logger } = this.options;
    try {
      if (!(await claimMaintenance(db, TASK, this.periodMs))) return;
      let deleted = 0;
      for (let batch = DELETE_BATCH; batch === DELETE_BATCH && !this.stopped; ) {
        batch = await deleteFinishedMessages(db, this.options.retentionDays, DELETE_BATCH);
        deleted += batch;
      }
      const windows = await deleteIdleRateWindows(db, this.options.longestRateWindowSeconds);
      const tokenUses = await deleteExpiredTokenUses(db);
      const pendingImports = await deleteExpiredPendingImports(db);
      await vacuumDeliveryTables(db);
      logger.info({ deletedMessages: deleted, deletedRateWindows: windows, deletedTokenUses: tokenUses, deletedPendingImports: pendingImports }, 'outbox maintenance done');
    } catch (error) {
      logger.warn({ err: error }, 'outbox maintenance failed; it is tried again next period');
    }
  }
}
