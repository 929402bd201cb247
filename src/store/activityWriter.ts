// Group commit for new activities. Under load, activities that are ready while earlier writes are
// still running wait and are then written together, in one statement and one commit
// (writeActivities), each with its own checks and outcome. A write that finds nothing running goes
// at once, alone, as it would without this. What a statement and a commit cost besides their rows
// (the round trip, waking a backend, setting up the plan, the WAL flush) is then shared.
import { batchable, writeActivities, writeActivity, type ActivityWrite, type WriteOutcome } from './activities.ts';
import { DatabaseUnavailable } from '../errors.ts';
import type { Database } from './db.ts';

/** Writes in one statement at most. */
const MAX_GROUP = 32;

interface Pending {
  write: ActivityWrite;
  /** Writes of one shape compose the same statement: the type, credential kind and number of checks and rows. */
  shape: string;
  /** The organization and fingerprint: the body, which one statement holds once at most. */
  body: string;
  resolve(outcome: WriteOutcome): void;
  reject(error: unknown): void;
}

export class ActivityWriter {
  private queue: Pending[] = [];
  /**
   * Whether a statement is running. One at a time: on the benchmark's two cores, two in flight made
   * smaller groups and fewer activities/s (0.49–0.51× the floor against 0.61–0.64× in interleaved
   * runs; again 0.59–0.64× against 0.69–0.78× with the stamp check on the event loop). A statement
   * of 32 writes takes a few milliseconds, so one writer is not what bounds a process.
   */
  private writing = false;

  constructor(private readonly db: Database) {}

  /** Writes the activity, alone or with others that are ready at the same moment; the outcome is its own. */
  write(write: ActivityWrite): Promise<WriteOutcome> {
    if (!batchable(write)) return writeActivity(this.db, write);
    return new Promise((resolve, reject) => {
      const { activity, credential, guards, rows } = write;
      const shape = `${activity.type} ${credential.kind} ${guards.length} ${rows.length} ${write.bumpsAuthority === true}`;
      this.queue.push({ write, shape, body: `${activity.organizationId} ${activity.fingerprint}`, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    void this.flush(this.take()).finally(() => {
      this.writing = false;
      this.drain();
    });
  }

  /**
   * The oldest waiting write and those after it of the same shape that carry other bodies than each
   * other: a second submission of a body waits for the next statement, which sees the first. Their
   * number is rounded down to a power of two, so a shape of write is prepared in a few sizes only.
   */
  private take(): Pending[] {
    const { shape } = this.queue[0]!;
    const bodies = new Set<string>();
    const eligible: Pending[] = [];
    for (const pending of this.queue) {
      if (eligible.length === MAX_GROUP) break;
      if (pending.shape !== shape || bodies.has(pending.body)) continue;
      bodies.add(pending.body);
      eligible.push(pending);
    }
    const batch = eligible.slice(0, 2 ** Math.floor(Math.log2(eligible.length)));
    const taken = new Set(batch);
    this.queue = this.queue.filter((pending) => !taken.has(pending));
    return batch;
  }

  private async flush(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return this.writeAlone(batch[0]!);
    // In one order whatever the arrival: two statements holding the same bodies (a client that
    // resubmitted while its first request was in flight) then wait on each other, never in a circle.
    batch.sort((a, b) => (a.body < b.body ? -1 : a.body > b.body ? 1 : 0));
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
      await Promise.all(batch.map((pending) => this.writeAlone(pending)));
      return;
    }
    batch.forEach((pending, i) => pending.resolve(outcomes[i]!));
  }

  private async writeAlone(pending: Pending): Promise<void> {
    try {
      pending.resolve(await writeActivity(this.db, pending.write));
    } catch (error) {
      pending.reject(error);
    }
  }
}
