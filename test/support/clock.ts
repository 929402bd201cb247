// A clock a test moves forward instead of waiting for time to pass: the real time plus whatever the
// test has skipped, so time still runs on its own (stamps' timestamps stay fresh) but an expiry of
// a second is reached at once.
import type { Clock } from '../../src/wire/clock.ts';

export class TestClock {
  private skippedMs = 0;

  /** What a server is given (StartOptions.clock). */
  readonly now: Clock = () => new Date(Date.now() + this.skippedMs);

  /** Moves the clock `ms` forward, as if that much time had passed. */
  advance(ms: number): void {
    this.skippedMs += ms;
  }
}
