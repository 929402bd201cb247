// Group commit for new activities. Under load, activities that are ready while earlier writes are
// still running wait and are then written together, in one statement and one commit
// (writeActivities), each with its own checks and outcome. A write that finds nothing running goes
// at once, alone, as it would without this. What a statement and a commit cost besides their rows
// (the round trip, waking a backend, setting up the plan, the WAL flush) is then shared.
import { batchable, writeActivities, writeActivity, type ActivityWrite, type WriteOutcome } from './activities.ts';
import { DatabaseUnavailable, type Queryable } from './db.ts';

export interface ActivityWriterOptions {
  /** Statements in flight at once; a write beyond them waits to join the next. */
  concurrency?: number;
  /** Writes in one statement at most. */
  maxBatch?: number;
}

interface Pending {
  write: ActivityWrite;
  resolve(outcome: WriteOutcome): void;
  reject(error: unknown): void;
}

export class ActivityWriter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private readonly concurrency: number;
  private readonly maxBatch: number;

  constructor(
    private readonly db: Queryable,
    options: ActivityWriterOptions = {},
  ) {
    // One statement in flight: on the benchmark's two cores, two in flight made smaller groups and
    // fewer activities/s (0.49–0.51× the floor against 0.61–0.64× in interleaved runs). One
    // statement of 32 writes takes a few milliseconds, so one writer is not what bounds a process.
    this.concurrency = options.concurrency ?? 1;
    this.maxBatch = options.maxBatch ?? 32;
  }

  /** Writes the activity, alone or with others that are ready at the same moment; the outcome is its own. */
  write(write: ActivityWrite): Promise<WriteOutcome> {
    if (!batchable(write)) return writeActivity(this.db, write);
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.concurrency && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight += 1;
      void this.flush(batch).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  /**
   * The oldest waiting write and those after it that compose the same statement (the same type,
   * credential kind and number of checks and rows) and carry other bodies than each other: a
   * second submission of a body waits for the next statement, which sees the first. Their number is
   * rounded down to a power of two, so a shape of write is prepared in a few sizes only.
   */
  private take(): Pending[] {
    const shape = shapeOf(this.queue[0]!.write);
    const bodies = new Set<string>();
    const taken: number[] = [];
    for (let i = 0; i < this.queue.length && taken.length < this.maxBatch; i += 1) {
      const { write } = this.queue[i]!;
      const body = bodyOf(write);
      if (shapeOf(write) !== shape || bodies.has(body)) continue;
      bodies.add(body);
      taken.push(i);
    }
    const size = 2 ** Math.floor(Math.log2(taken.length));
    const chosen = new Set(taken.slice(0, size));
    const batch = this.queue.filter((_, i) => chosen.has(i));
    const rest = this.queue.filter((_, i) => !chosen.has(i));
    this.queue.splice(0, this.queue.length, ...rest);
    return batch;
  }

  private async flush(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0]!, () => writeActivity(this.db, batch[0]!.write));
    // In one order whatever the arrival: two statements holding the same bodies (a client that
    // resubmitted while its first request was in flight) then wait on each other, never in a circle.
    batch.sort((a, b) => compare(bodyOf(a.write), bodyOf(b.write)));
    let outcomes: WriteOutcome[];
    try {
      outcomes = await writeActivities(this.db, batch.map((pending) => pending.write));
    } catch (error) {
      // Lost or timed out: each would have met the same. Otherwise (a unique index refused a row of
      // one of them, nothing was written) each is written again on its own and meets its own answer.
      if (error instanceof DatabaseUnavailable) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      await Promise.all(batch.map((pending) => settle(pending, () => writeActivity(this.db, pending.write))));
      return;
    }
    batch.forEach((pending, i) => pending.resolve(outcomes[i]!));
  }
}

async function settle(pending: Pending, write: () => Promise<WriteOutcome>): Promise<void> {
  try {
    pending.resolve(await write());
  } catch (error) {
    pending.reject(error);
  }
}

function shapeOf(write: ActivityWrite): string {
  return `${write.activity.type} ${write.credential.kind} ${write.guards.length} ${write.rows.length}`;
}

function bodyOf(write: ActivityWrite): string {
  return `${write.activity.organizationId} ${write.activity.fingerprint}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
